import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// Rows to insert or update, sent as one binary array per field of
/// ``HotelFields`` (and one of positions), zipped back into rows by `unnest`
/// in statements made from the same table: a field added to the table is a
/// column here with nothing else to write. Binary arrays cost the server no
/// parse of any value; rows as `jsonb` cost it a parse of every row, and
/// twice 19ca83b's time per page (BENCHMARKS.md, "The record's fields").
struct Rows: HotelFieldVisitor {
    private var columns: [Column] = HotelFields.all.map { Column(type: $0.type) }
    private var positions: [Int64?] = []

    var count: Int { positions.count }

    /// `position` nil: the row keeps its place.
    mutating func add(_ hotel: Hotel, position: Int64?) {
        hotel.visitFields(&self)
        positions.append(position)
    }

    /// Every field's array, as bindings in ``HotelFields`` order: what ``source(from:)`` reads.
    func appendColumns(to bindings: inout PostgresBindings) {
        for column in columns { column.append(to: &bindings) }
    }

    /// The rows, zipped from the field arrays bound from `$first` on (then,
    /// with `positions`, one array of positions), as `r`: one column per field,
    /// named as the table names it, and `n`, the row's number from 1.
    static func source(from first: Int, positions: Bool = false) -> String {
        let arrays =
            HotelFields.all.enumerated().map { "$\(first + $0.offset)::\(Column.arrayType($0.element.type))" }
            + (positions ? ["$\(first + HotelFields.all.count)::int8[]"] : [])
        let names = HotelFields.all.map(\.postgresColumn) + (positions ? ["position"] : [])
        return "unnest(" + arrays.joined(separator: ", ") + ") WITH ORDINALITY AS r (" + names.joined(separator: ", ") + ", n)"
    }

    /// The table's field columns, as an insert names them.
    static let columnList = HotelFields.all.map(\.postgresColumn).joined(separator: ", ")

    /// `r`'s field columns, as an insert's select list.
    static let selectList = HotelFields.all.map(fromRow).joined(separator: ", ")

    /// A field of `r` as its column takes it: references made `jsonb` from their text.
    private static func fromRow(_ spec: HotelFieldSpec) -> String {
        spec.type == .references ? "r.\(spec.postgresColumn)::jsonb" : "r.\(spec.postgresColumn)"
    }

    func insert(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO hotels (list_id, \(Self.columnList), position)
                    SELECT $1, \(Self.selectList), r.position FROM \(Self.source(from: 2, positions: true))
                    """, binds: bindings(list: id)), logger: logger)
    }

    /// Updates rows in place; their position too, where one was given.
    func update(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE hotels AS h SET \(Self.assignments), position = coalesce(r.position, h.position)
                    FROM \(Self.source(from: 2, positions: true))
                    WHERE h.list_id = $1 AND h.code = r.code
                    """, binds: bindings(list: id)), logger: logger)
    }

    private func bindings(list id: Int64) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: HotelFields.all.count + 2)
        bindings.append(id)
        appendColumns(to: &bindings)
        bindings.append(NullableArray(positions))
        return bindings
    }

    /// Every field but the code, set from the row: `name = r.name, …`.
    private static let assignments = HotelFields.all.dropFirst().map { "\($0.postgresColumn) = " + fromRow($0) }.joined(separator: ", ")

    mutating func visit(_ field: Int, text: String?) { columns[field].add(text: text.map(HotelFieldSpec.Value.textUpToNUL)) }
    mutating func visit(_ field: Int, real: Double?) { columns[field].add(real: real) }
    mutating func visit(_ field: Int, integer: Int64?) { columns[field].add(integer: integer) }
    /// References travel as their JSON text (keys sorted, each up to a NUL), made `jsonb` by the statement.
    mutating func visit(_ field: Int, references: [String: String]?) {
        columns[field].add(text: references.map(HotelFieldSpec.Value.referencesJSON))
    }

    /// One field's values, row by row, in the array type its statement reads;
    /// text already cut at any NUL, which PostgreSQL's text cannot hold.
    struct Column {
        let type: HotelFieldSpec.ValueType
        private var texts: [String?] = []
        private var reals: [Double?] = []
        private var integers: [Int64?] = []

        init(type: HotelFieldSpec.ValueType) {
            self.type = type
        }

        /// References travel as their JSON text (keys sorted), made `jsonb` by the statement.
        static func arrayType(_ type: HotelFieldSpec.ValueType) -> String {
            switch type {
            case .text, .references: "text[]"
            case .real: "float8[]"
            case .integer: "int8[]"
            }
        }

        mutating func add(text: String?) { texts.append(text) }
        mutating func add(real: Double?) { reals.append(real) }
        mutating func add(integer: Int64?) { integers.append(integer) }

        /// A column with no value at all (a field this supplier does not send) goes as NULL, not as an
        /// array of NULLs: `unnest` pads it with NULLs all the same, and neither side encodes, sends or
        /// reads an element of it.
        func append(to bindings: inout PostgresBindings) {
            switch type {
            case .text, .references: Self.append(texts, to: &bindings)
            case .real: Self.append(reals, to: &bindings)
            case .integer: Self.append(integers, to: &bindings)
            }
        }

        private static func append<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>(
            _ values: [Element?], to bindings: inout PostgresBindings
        ) {
            if values.allSatisfy({ $0 == nil }) { bindings.appendNull() } else { bindings.append(NullableArray(values)) }
        }
    }
}

/// A one-dimensional array whose elements may be NULL, in PostgreSQL's
/// binary array format (postgres-nio's own arrays cannot hold a NULL).
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable {
    var elements: [Element?]

    init(_ elements: [Element?]) {
        self.elements = elements
    }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions, whether any element is NULL, the element type; then the one dimension's length and lower bound.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains { $0 == nil } ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            // Each element's length, then its bytes.
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex)
        }
    }
}

/// Reads a ``Hotel`` from a row by column name, as ``HotelFields`` names the
/// columns: which cell is which field is worked out from the first row's
/// column names, then each row is read in one pass over its cells.
struct HotelRowDecoder {
    /// Every field's column, as a select list; references as their JSON text.
    static let selectList = HotelFields.all.map {
        $0.type == .references ? "\($0.postgresColumn)::text AS \($0.postgresColumn)" : $0.postgresColumn
    }
    .joined(separator: ", ")

    /// For each cell of a row, the field it is (an index into ``HotelFields/all``), or nil.
    private var fields: [Int?]?

    mutating func hotel(_ row: PostgresRow) throws -> Hotel {
        let fields = self.fields ?? row.map { cell in HotelFields.all.firstIndex { $0.postgresColumn == cell.columnName } }
        self.fields = fields
        var hotel = Hotel(code: "")
        for (cell, field) in zip(row, fields) {
            guard let field else { continue }
            let spec = HotelFields.all[field]
            let value: HotelFieldSpec.Value =
                switch spec.type {
                case .text: try cell.decode(String?.self).map(HotelFieldSpec.Value.text) ?? .null
                case .real: try cell.decode(Double?.self).map(HotelFieldSpec.Value.real) ?? .null
                case .integer: try cell.decode(Int64?.self).map(HotelFieldSpec.Value.integer) ?? .null
                case .references:
                    try cell.decode(String?.self).flatMap(HotelFieldSpec.Value.references(json:)).map(HotelFieldSpec.Value.references)
                        ?? .null
                }
            spec.assign(&hotel, value)
        }
        return hotel
    }
}
