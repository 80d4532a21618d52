import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// Rows to insert or update, sent as one statement of nine values whatever
/// their number: the list, then each column as a binary array, zipped back
/// into rows by `unnest`. A statement with a placeholder per value would be
/// parsed and planned anew for every page, and rows as JSON cost the server
/// a parse of every value; binary arrays cost it neither.
struct Rows {
    private var codes: [String?] = []
    private var names: [String?] = []
    private var addresses: [String?] = []
    private var latitudes: [Double?] = []
    private var longitudes: [Double?] = []
    private var logoURLs: [String?] = []
    private var addtimes: [Int64?] = []
    private var positions: [Int64?] = []

    var count: Int { codes.count }

    /// `position` nil: the row keeps its place.
    mutating func add(_ hotel: Hotel, position: Int64?) {
        // Text is cut at any NUL, which PostgreSQL's text cannot hold: what SQLite keeps of it too.
        codes.append(Self.text(hotel.code))
        names.append(hotel.name.map(Self.text))
        addresses.append(hotel.address.map(Self.text))
        latitudes.append(hotel.latitude)
        longitudes.append(hotel.longitude)
        logoURLs.append(hotel.logoURL.map(Self.text))
        addtimes.append(hotel.addtime)
        positions.append(position)
    }

    /// The rows, as the columns' arrays (bound from $2 on, positions last) zipped back together.
    private static let source = "unnest(" + ["text", "text", "text", "float8", "float8", "text", "int8", "int8"].enumerated()
        .map { "$\(2 + $0.offset)::\($0.element)[]" }.joined(separator: ", ") + ") AS r (code, name, address, latitude, longitude, logo_url, addtime, position)"

    /// The seven columns but position, as bindings.
    func appendColumns(to bindings: inout PostgresBindings) {
        bindings.append(NullableArray(codes))
        bindings.append(NullableArray(names))
        bindings.append(NullableArray(addresses))
        bindings.append(NullableArray(latitudes))
        bindings.append(NullableArray(longitudes))
        bindings.append(NullableArray(logoURLs))
        bindings.append(NullableArray(addtimes))
    }

    func insert(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO hotels (list_id, code, name, address, latitude, longitude, logo_url, addtime, position)
            SELECT $1, r.* FROM \(Self.source)
            """, binds: bindings(list: id)), logger: logger)
    }

    /// Updates rows in place; their position too, where one was given.
    func update(list id: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        try await connection.query(PostgresQuery(unsafeSQL: """
            UPDATE hotels AS h SET name = r.name, address = r.address, latitude = r.latitude, longitude = r.longitude,
                logo_url = r.logo_url, addtime = r.addtime, position = coalesce(r.position, h.position)
            FROM \(Self.source)
            WHERE h.list_id = $1 AND h.code = r.code
            """, binds: bindings(list: id)), logger: logger)
    }

    private func bindings(list id: Int64) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        bindings.append(id)
        appendColumns(to: &bindings)
        bindings.append(NullableArray(positions))
        return bindings
    }

    /// Text up to its first NUL.
    static func text(_ value: String) -> String {
        guard let nul = value.utf8.firstIndex(of: 0) else { return value }
        return String(value.utf8[..<nul]) ?? ""
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
