/// The fields a run works with, as a value: the built-in ones
/// (``HotelFields/all``), and any a team adds for what its suppliers send.
///
/// An added field is one entry:
///
/// ```swift
/// let fields = try HotelFieldTable.standard.adding(.added("checkInTime", type: .text))
/// let profile = try ServiceProfile(json: json, source: "acme.json", fields: fields)  // "fields": {"checkInTime": "Policy/@CheckInTime", …}
/// let store = try SQLiteHotelStore(folder: folder, fields: fields)                    // a column "checkInTime"
/// ```
///
/// The profile maps it like any field, a parse keeps it in ``Hotel/extensions``,
/// the JSON Lines writer writes it after `references`, and both stores give
/// it a column of its own (added in place to a store made without it).
public struct HotelFieldTable: Sendable, Equatable {
    /// Every field, built-in ones first, in the order of the JSON keys.
    public let fields: [HotelFieldSpec]

    /// The built-in fields alone.
    public static let standard = HotelFieldTable(fields: HotelFields.all)

    private init(fields: [HotelFieldSpec]) {
        self.fields = fields
    }

    /// The fields added to the built-in ones, in order.
    public var extensions: ArraySlice<HotelFieldSpec> { fields[HotelFields.all.count...] }

    public var jsonKeys: [String] { fields.map(\.jsonKey) }

    /// What a hotel read with this table holds before its values are read: `.null` for each added field, in
    /// order; nil when the table adds none. A hotel so read holds a value for each of them (``Hotel/extensions``).
    public var blankExtensions: [HotelExtensionValue]? {
        extensions.isEmpty ? nil : extensions.map { HotelExtensionValue(key: $0.jsonKey, value: .null) }
    }

    /// The added field with this JSON key.
    public func addedField(_ key: String) -> HotelFieldSpec? {
        extensions.first { $0.jsonKey == key }
    }

    /// This table with `spec` after its fields. Refused when its key or a
    /// column is taken, or the table is full: a parse keeps one bit per
    /// field, 64 in all.
    public func adding(_ spec: HotelFieldSpec) throws(HotelFieldTableError) -> HotelFieldTable {
        guard fields.count < 64 else { throw HotelFieldTableError("a table holds at most 64 fields; \(spec.jsonKey) is one more") }
        let sqlite = Set((fields.map(\.column) + Self.otherSQLiteColumns).map { $0.lowercased() })
        let postgres = Set(fields.map(\.postgresColumn) + Self.otherPostgresColumns)
        guard !jsonKeys.contains(spec.jsonKey), !sqlite.contains(spec.column.lowercased()), !postgres.contains(spec.postgresColumn)
        else {
            throw HotelFieldTableError("“\(spec.jsonKey)” is already a field or a column of the hotels table; choose another key")
        }
        return HotelFieldTable(fields: fields + [spec])
    }

    /// Tables are equal when their fields have the same keys, columns and types.
    public static func == (left: HotelFieldTable, right: HotelFieldTable) -> Bool {
        left.fields.map(\.shape) == right.fields.map(\.shape)
    }

    /// The hotels table's columns that are no field.
    static let otherSQLiteColumns = ["listId", "position"]
    static let otherPostgresColumns = ["list_id", "position"]
}

/// A field that cannot join a table, in plain words.
public struct HotelFieldTableError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension HotelFieldSpec {
    /// A field of one's own, for ``HotelFieldTable/adding(_:)``: its JSON key
    /// (`checkInTime`: a letter, then letters and digits) is also its SQLite
    /// column, and its snake case (`check_in_time`) its PostgreSQL one. Its
    /// value is text, a number or an integer, read from the text a profile
    /// maps; one that does not read as its type is left empty, with a warning.
    public static func added(_ key: String, type: ValueType) throws(HotelFieldTableError) -> HotelFieldSpec {
        let letters = key.unicodeScalars
        guard let first = letters.first, ("a"..."z").contains(first), letters.count <= 48,
            letters.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
        else {
            throw HotelFieldTableError(
                "“\(key)” cannot be a field's key: it must start with a lower-case letter and hold only ASCII letters and digits (48 at most)"
            )
        }
        guard type != .references else {
            throw HotelFieldTableError("“\(key)” cannot hold references: a record's catalogue references are the built-in “references”")
        }
        var snakeCase = ""
        for letter in letters {
            snakeCase += ("A"..."Z").contains(letter) ? "_" + String(letter).lowercased() : String(letter)
        }
        // PostgreSQL cuts a longer name to 63 bytes, and two keys could then name one column.
        guard snakeCase.utf8.count <= 63 else {
            throw HotelFieldTableError("“\(key)” is too long a name for a column (\(snakeCase), over 63 characters)")
        }
        guard !PostgresKeywords.reserved.contains(snakeCase) else {
            throw HotelFieldTableError("“\(key)” is a word SQL reserves (\(snakeCase)); choose another key")
        }
        return HotelFieldSpec(
            field: nil, jsonKey: key, column: key, postgresColumn: snakeCase, type: type,
            value: { $0[extension: key] }, assign: { $0[extension: key] = $1.conformed(to: type) })
    }

    /// What makes two entries the same field for a store and the JSON.
    fileprivate var shape: [String] { [jsonKey, column, postgresColumn, type.sqliteType] }
}

extension HotelFieldSpec.Value {
    /// This value as a field of `type` holds it: an integer is also a number; any other mismatch is empty.
    public func conformed(to type: HotelFieldSpec.ValueType) -> HotelFieldSpec.Value {
        switch (self, type) {
        case (.text, .text), (.real, .real), (.integer, .integer), (.references, .references): self
        case (.integer(let number), .real): .real(Double(number))
        default: .null
        }
    }
}

/// PostgreSQL's reserved key words: none can name a column unquoted.
private enum PostgresKeywords {
    static let reserved: Set<String> = [
        "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "binary", "both", "case",
        "cast", "check", "collate", "collation", "column", "concurrently", "constraint", "create", "cross", "current_catalog",
        "current_date", "current_role", "current_schema", "current_time", "current_timestamp", "current_user", "default",
        "deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign", "freeze", "from",
        "full", "grant", "group", "having", "ilike", "in", "initially", "inner", "intersect", "into", "is", "isnull", "join",
        "lateral", "leading", "left", "like", "limit", "localtime", "localtimestamp", "natural", "not", "notnull", "null",
        "offset", "on", "only", "or", "order", "outer", "overlaps", "placing", "primary", "references", "returning", "right",
        "select", "session_user", "similar", "some", "symmetric", "system_user", "table", "tablesample", "then", "to",
        "trailing", "true", "union", "unique", "user", "using", "variadic", "verbose", "when", "where", "window", "with",
    ]
}
