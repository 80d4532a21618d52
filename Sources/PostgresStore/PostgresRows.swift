import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// The statements on the `hotels` table's field columns, made once from a
/// ``HotelFieldTable`` (``PostgresDatabase/fields``): a field added to the
/// table is a column here with nothing else to write.
struct HotelStatements: Sendable {
    let table: HotelFieldTable
    /// The table's field columns, as an insert names them.
    let columnList: String
    /// `r`'s field columns, as an insert's select list.
    let selectList: String
    /// Every field but the code, set from `r`: `name = r.name, …`.
    let assignments: String
    /// Every field's column, as a read's select list; references as their JSON text.
    let readList: String
    /// The load-more page's function, made from these statements.
    let loadMore: LoadMoreFunction

    static let standard = HotelStatements(.standard)

    init(_ table: HotelFieldTable) {
        self.table = table
        columnList = table.fields.map(\.postgresColumn).joined(separator: ", ")
        selectList = table.fields.map(Self.fromRow).joined(separator: ", ")
        assignments = table.fields.dropFirst().map { "\($0.postgresColumn) = " + Self.fromRow($0) }.joined(separator: ", ")
        readList = table.fields.map {
            $0.type == .references ? "\($0.postgresColumn)::text AS \($0.postgresColumn)" : $0.postgresColumn
        }
        .joined(separator: ", ")
        loadMore = LoadMoreFunction(table: table, columnList: columnList, selectList: selectList)
    }

    /// The rows, zipped from the field arrays bound from `$first` on (then,
    /// with `positions`, one array of positions), as `r`: one column per field,
    /// named as the table names it, and `n`, the row's number from 1.
    static func source(_ table: HotelFieldTable, from first: Int, positions: Bool = false) -> String {
        let arrays =
            table.fields.enumerated().map { "$\(first + $0.offset)::\(Rows.Column.arrayType($0.element.type))" }
            + (positions ? ["$\(first + table.fields.count)::int8[]"] : [])
        let names = table.fields.map(\.postgresColumn) + (positions ? ["position"] : [])
        return "unnest(" + arrays.joined(separator: ", ") + ") WITH ORDINALITY AS r (" + names.joined(separator: ", ") + ", n)"
    }

    /// A field of `r` as its column takes it: references made `jsonb` from their text.
    private static func fromRow(_ spec: HotelFieldSpec) -> String {
        spec.type == .references ? "r.\(spec.postgresColumn)::jsonb" : "r.\(spec.postgresColumn)"
    }
}

/// Rows to insert or update, sent as one binary array per field of a
/// ``HotelFieldTable`` (and one of positions), zipped back into rows by
/// `unnest` in ``HotelStatements`` made from the same table. Binary arrays
/// cost the server no parse of any value; rows as `jsonb` cost it a parse of
/// every row, and twice 19ca83b's time per page (BENCHMARKS.md, "The record's fields").
struct Rows: HotelFieldVisitor {
    private let statements: HotelStatements
    /// The table's added fields, whose arrays follow the built-in ones'.
    private let added: [HotelFieldSpec]
    private var columns: [Column]
    private var positions: [Int64?] = []

    init(_ statements: HotelStatements) {
        self.statements = statements
        added = Array(statements.table.extensions)
        columns = statements.table.fields.map { Column(type: $0.type) }
    }

    var count: Int { positions.count }

    /// `position` nil: the row keeps its place.
    mutating func add(_ hotel: Hotel, position: Int64?) {
        hotel.visitFields(&self)
        if !added.isEmpty {
            for (index, spec) in added.enumerated() { columns[columns.count - added.count + index].add(spec.value(hotel)) }
        }
        positions.append(position)
    }

    /// Every field's array, as bindings in the table's order: what ``HotelStatements/source(_:from:positions:)`` reads.
    func appendColumns(to bindings: inout PostgresBindings) {
        for column in columns { column.append(to: &bindings) }
    }

    func insert(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO hotels (list_id, \(statements.columnList), position)
                    SELECT $1, \(statements.selectList), r.position FROM \(HotelStatements.source(statements.table, from: 2, positions: true))
                    """, binds: bindings(list: id)), logger: logger)
    }

    /// Updates rows in place; their position too, where one was given.
    func update(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE hotels AS h SET \(statements.assignments), position = coalesce(r.position, h.position)
                    FROM \(HotelStatements.source(statements.table, from: 2, positions: true))
                    WHERE h.list_id = $1 AND h.code = r.code
                    """, binds: bindings(list: id)), logger: logger)
    }

    private func bindings(list id: Int64) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: columns.count + 2)
        bindings.append(id)
        appendColumns(to: &bindings)
        bindings.append(NullableArray(positions))
        return bindings
    }

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

        /// An added field's value, as its type travels.
        mutating func add(_ value: HotelFieldSpec.Value) {
            switch value {
            case .text(let text): add(text: HotelFieldSpec.Value.textUpToNUL(text))
            case .real(let number): add(real: number)
            case .integer(let number): add(integer: number)
            case .references(let references): add(text: HotelFieldSpec.Value.referencesJSON(references))
            case .null:
                switch type {
                case .text, .references: add(text: nil)
                case .real: add(real: nil)
                case .integer: add(integer: nil)
                }
            }
        }
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

/// Reads a ``Hotel`` from a row by column name, as a ``HotelFieldTable``
/// names the columns (``HotelStatements/readList``): which cell is which
/// field is worked out from the first row's column names, then each row is
/// read in one pass over its cells. An added field the row lacks is `.null`,
/// so the hotel holds a value for each of the table's.
struct HotelRowDecoder {
    private let table: HotelFieldTable
    private let blankExtensions: [HotelExtensionValue]?
    /// For each cell of a row, the field it is (an index into the table), or nil.
    private var fields: [Int?]?

    init(_ table: HotelFieldTable) {
        self.table = table
        blankExtensions = table.blankExtensions
    }

    mutating func hotel(_ row: PostgresRow) throws -> Hotel {
        let specs = table.fields
        let fields = self.fields ?? row.map { cell in specs.firstIndex { $0.postgresColumn == cell.columnName } }
        self.fields = fields
        var hotel = Hotel(code: "", extensions: blankExtensions)
        for (cell, field) in zip(row, fields) {
            guard let field else { continue }
            let spec = specs[field]
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
