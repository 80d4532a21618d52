import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// Rows to insert or update, sent as one `jsonb` array whatever their
/// number: each row an object keyed by the `hotels` table's column names
/// (``HotelFields``), read by `jsonb_populate_record` into the table's own
/// row type. No statement names the record's columns by position, so a
/// field added to the table needs nothing here.
struct Rows {
    private var json: [UInt8] = [UInt8(ascii: "[")]
    private(set) var count = 0

    /// `position` nil: the row keeps its place.
    mutating func add(_ hotel: Hotel, position: Int64?) {
        if count > 0 { json.append(UInt8(ascii: ",")) }
        HotelJSONLines.appendPostgresRow(hotel, to: &json)
        json.append(contentsOf: #","position":"#.utf8)
        json.append(contentsOf: (position.map(String.init) ?? "null").utf8)
        json.append(UInt8(ascii: "}"))
        count += 1
    }

    /// The rows as one JSON array.
    var array: String { String(decoding: json + [UInt8(ascii: "]")], as: UTF8.self) }

    func insert(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query("""
            INSERT INTO hotels
            SELECT h.* FROM jsonb_array_elements(\(array)::jsonb) AS e (row),
                jsonb_populate_record(NULL::hotels, e.row || jsonb_build_object('list_id', \(id))) AS h
            """, logger: logger)
    }

    /// Updates rows in place; their position too, where one was given.
    func update(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query("""
            UPDATE hotels AS h SET \(unescaped: Self.assignments), position = coalesce(r.position, h.position)
            FROM jsonb_populate_recordset(NULL::hotels, \(array)::jsonb) AS r
            WHERE h.list_id = \(id) AND h.code = r.code
            """, logger: logger)
    }

    /// Every field but the code, set from the row: `name = r.name, …`.
    private static let assignments = HotelFields.all.dropFirst().map { "\($0.postgresColumn) = r.\($0.postgresColumn)" }.joined(separator: ", ")

    /// Text up to its first NUL.
    static func text(_ value: String) -> String { HotelJSONLines.cutAtNUL(value) }
}

/// Reads a ``Hotel`` from a row by column name, as ``HotelFields`` names the
/// columns: which cell is which field is worked out from the first row's
/// column names, then each row is read in one pass over its cells.
struct HotelRowDecoder {
    /// Every field's column, as a select list; references as their JSON text.
    static let selectList = HotelFields.all.map { $0.type == .references ? "\($0.postgresColumn)::text AS \($0.postgresColumn)" : $0.postgresColumn }
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
            let value: HotelFieldSpec.Value = switch spec.type {
            case .text: try cell.decode(String?.self).map(HotelFieldSpec.Value.text) ?? .null
            case .real: try cell.decode(Double?.self).map(HotelFieldSpec.Value.real) ?? .null
            case .integer: try cell.decode(Int64?.self).map(HotelFieldSpec.Value.integer) ?? .null
            case .references: try cell.decode(String?.self).flatMap(HotelFieldSpec.Value.references(json:)).map(HotelFieldSpec.Value.references) ?? .null
            }
            spec.assign(&hotel, value)
        }
        return hotel
    }
}
