import Foundation

/// The record's fields, said once: each field's JSON key (which is also the
/// name a profile maps), its column in each store, its type, and how its value
/// is read from and written to a ``Hotel``. The JSON Lines writer, both stores'
/// columns, binders and row decoders, and the dashboard's rows all follow this
/// table, in its order; a test compares it with both stores' live columns.
///
/// These are the built-in fields. A field of one's own is one more entry,
/// added to the table as a value (``HotelFieldTable/adding(_:)``), and the
/// profiles that map it.
public enum HotelFields {
    /// Every field, in the order of the JSON keys; `code`, the key, first.
    public static let all: [HotelFieldSpec] = [
        .text(.code, read: { $0.code }, write: { hotel, value in hotel.code = value ?? "" }),
        .text(.name, read: { $0.name }, write: { $0.name = $1 }),
        .text(.address, read: { $0.address }, write: { $0.address = $1 }),
        .real(.latitude, read: { $0.latitude }, write: { $0.latitude = $1 }),
        .real(.longitude, read: { $0.longitude }, write: { $0.longitude = $1 }),
        .text(.logoURL, column: "logoURL", postgresColumn: "logo_url", read: { $0.logoURL }, write: { $0.logoURL = $1 }),
        .integer(.addtime, read: { $0.addtime }, write: { $0.addtime = $1 }),
        .text(.phone, read: { $0.phone }, write: { $0.phone = $1 }),
        .text(.chainCode, column: "chainCode", postgresColumn: "chain_code", read: { $0.chainCode }, write: { $0.chainCode = $1 }),
        .real(.rating, read: { $0.rating }, write: { $0.rating = $1 }),
        .text(.postalCode, column: "postalCode", postgresColumn: "postal_code", read: { $0.postalCode }, write: { $0.postalCode = $1 }),
        .text(.city, read: { $0.city }, write: { $0.city = $1 }),
        .text(
            .countryCode, column: "countryCode", postgresColumn: "country_code", read: { $0.countryCode }, write: { $0.countryCode = $1 }),
        .references(read: { $0.references }, write: { $0.references = $1 }),
    ]

    /// The fields a store adds to one made before them: all but the first seven.
    public static let addedInVersion2: [HotelFieldSpec] = Array(all.dropFirst(7))

    /// The JSON keys, in order.
    public static var jsonKeys: [String] { all.map(\.jsonKey) }
}

/// One field of ``HotelFields``.
public struct HotelFieldSpec: Sendable {
    /// How a field's value is stored: SQLite's and PostgreSQL's types, and JSON's.
    public enum ValueType: Sendable, Hashable {
        case text, real, integer
        /// An object of strings: JSON text in SQLite, `jsonb` in PostgreSQL.
        case references

        public var sqliteType: String {
            switch self {
            case .text, .references: "TEXT"
            case .real: "DOUBLE"
            case .integer: "INTEGER"
            }
        }

        public var postgresType: String {
            switch self {
            case .text: "text"
            case .real: "double precision"
            case .integer: "bigint"
            case .references: "jsonb"
            }
        }
    }

    /// One field's value, or its absence.
    public enum Value: Sendable, Hashable {
        case null
        case text(String)
        case real(Double)
        case integer(Int64)
        case references([String: String])
    }

    /// The built-in field; nil for a field added to a ``HotelFieldTable``, kept in ``Hotel/extensions``.
    public let field: HotelField?
    /// The key in JSON, and the name a profile's `fields` maps.
    public let jsonKey: String
    /// The column in SQLite (the JSON key) and in PostgreSQL (snake case); `references`, a keyword of SQL, is `refs` in both.
    public let column: String
    public let postgresColumn: String
    public let type: ValueType
    /// The field's value in a hotel.
    public let value: @Sendable (Hotel) -> Value
    /// Sets the field from a value of its type; any other value leaves it empty.
    public let assign: @Sendable (inout Hotel, Value) -> Void

    static func text(
        _ field: HotelField, column: String? = nil, postgresColumn: String? = nil,
        read: @escaping @Sendable (Hotel) -> String?, write: @escaping @Sendable (inout Hotel, String?) -> Void
    ) -> HotelFieldSpec {
        HotelFieldSpec(
            field: field, jsonKey: field.rawValue, column: column ?? field.rawValue, postgresColumn: postgresColumn ?? field.rawValue,
            type: .text,
            value: { read($0).map(Value.text) ?? .null },
            assign: { hotel, value in if case .text(let text) = value { write(&hotel, text) } else { write(&hotel, nil) } })
    }

    static func real(
        _ field: HotelField, read: @escaping @Sendable (Hotel) -> Double?,
        write: @escaping @Sendable (inout Hotel, Double?) -> Void
    ) -> HotelFieldSpec {
        HotelFieldSpec(
            field: field, jsonKey: field.rawValue, column: field.rawValue, postgresColumn: field.rawValue, type: .real,
            value: { read($0).map(Value.real) ?? .null },
            assign: { hotel, value in
                switch value {
                case .real(let number): write(&hotel, number)
                case .integer(let number): write(&hotel, Double(number))
                default: write(&hotel, nil)
                }
            })
    }

    static func integer(
        _ field: HotelField, read: @escaping @Sendable (Hotel) -> Int64?,
        write: @escaping @Sendable (inout Hotel, Int64?) -> Void
    ) -> HotelFieldSpec {
        HotelFieldSpec(
            field: field, jsonKey: field.rawValue, column: field.rawValue, postgresColumn: field.rawValue, type: .integer,
            value: { read($0).map(Value.integer) ?? .null },
            assign: { hotel, value in if case .integer(let number) = value { write(&hotel, number) } else { write(&hotel, nil) } })
    }

    static func references(
        read: @escaping @Sendable (Hotel) -> [String: String]?,
        write: @escaping @Sendable (inout Hotel, [String: String]?) -> Void
    ) -> HotelFieldSpec {
        HotelFieldSpec(
            field: .references, jsonKey: HotelField.references.rawValue, column: "refs", postgresColumn: "refs", type: .references,
            value: { read($0).map(Value.references) ?? .null },
            assign: { hotel, value in if case .references(let map) = value { write(&hotel, map) } else { write(&hotel, nil) } })
    }
}

extension HotelFieldSpec.Value {
    /// References as the JSON text both stores keep: keys sorted, so equal
    /// maps are equal text; each name and code up to its first NUL, as the
    /// stores keep all text (``textUpToNUL(_:)``).
    public static func referencesJSON(_ references: [String: String]) -> String {
        var bytes: [UInt8] = []
        let kept = Dictionary(references.map { (textUpToNUL($0.key), textUpToNUL($0.value)) }, uniquingKeysWith: { first, _ in first })
        HotelJSONLines.appendReferences(kept, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Text up to its first NUL: what both stores keep of a value (SQLite
    /// binds text as a C string, PostgreSQL's text cannot hold a NUL). Found
    /// by `memchr`, since every value of every row is looked at.
    public static func textUpToNUL(_ text: String) -> String {
        var text = text
        let length = text.withUTF8 { bytes -> Int? in
            guard let base = bytes.baseAddress, let nul = memchr(base, 0, bytes.count) else { return nil }
            return UnsafeRawPointer(base).distance(to: nul)
        }
        guard let length else { return text }
        return String(decoding: text.utf8.prefix(length), as: UTF8.self)
    }

    /// References from the JSON text a store kept; nil when it is not an object of strings.
    public static func references(json: String) -> [String: String]? {
        guard let object = try? JSONDecoder().decode([String: String].self, from: Data(json.utf8)) else { return nil }
        return object
    }
}

/// Reads a hotel's values in ``HotelFields`` order, straight from its stored
/// properties, for the writers that run at parser speed: the JSON Lines
/// writer and both stores' row binders. The table's own readers cost a
/// closure call, a boxed value and a retain per field, which at 14 fields a
/// record showed in every fetch's profile. ``Hotel/visitFields(_:)``'s switch
/// names every field, so a field added to the table does not build until it
/// is read there too.
public protocol HotelFieldVisitor {
    associatedtype Failure: Error = Never
    /// `field` is the value's index in ``HotelFields/all``.
    mutating func visit(_ field: Int, text: String?) throws(Failure)
    mutating func visit(_ field: Int, real: Double?) throws(Failure)
    mutating func visit(_ field: Int, integer: Int64?) throws(Failure)
    mutating func visit(_ field: Int, references: [String: String]?) throws(Failure)
}

extension HotelFields {
    /// Each entry's field, in the table's order.
    public static let order: [HotelField] = all.compactMap(\.field)
}

extension Hotel {
    /// Hands each field's value to `visitor`, in ``HotelFields`` order.
    @inlinable
    public func visitFields<Visitor: HotelFieldVisitor>(_ visitor: inout Visitor) throws(Visitor.Failure) {
        for (index, field) in HotelFields.order.enumerated() {
            switch field {
            case .code: try visitor.visit(index, text: code)
            case .name: try visitor.visit(index, text: name)
            case .address: try visitor.visit(index, text: address)
            case .latitude: try visitor.visit(index, real: latitude)
            case .longitude: try visitor.visit(index, real: longitude)
            case .logoURL: try visitor.visit(index, text: logoURL)
            case .addtime: try visitor.visit(index, integer: addtime)
            case .phone: try visitor.visit(index, text: phone)
            case .chainCode: try visitor.visit(index, text: chainCode)
            case .rating: try visitor.visit(index, real: rating)
            case .postalCode: try visitor.visit(index, text: postalCode)
            case .city: try visitor.visit(index, text: city)
            case .countryCode: try visitor.visit(index, text: countryCode)
            case .references: try visitor.visit(index, references: references)
            }
        }
    }
}
