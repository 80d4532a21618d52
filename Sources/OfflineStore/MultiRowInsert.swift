import Foundation
import GRDB
import GRDBSQLite
import Hotels

/// Rows inserted `rowsPerStatement` at a time by one multi-row INSERT,
/// compiled once per connection for each row count, their values bound with
/// SQLite's own calls (``SQLiteBinder``): through `StatementArguments`, or
/// GRDB's `String` binding (a C string, then `strlen`), binding cost more
/// than SQLite's insert itself. A list's page and a city's catalogue go in this way.
struct MultiRowInsert {
    static let rowsPerStatement = 100

    /// `INSERT INTO table (columns) VALUES `.
    let head: String
    let columns: Int
    /// After the rows: an `ON CONFLICT` clause, or nothing.
    var tail = ""
    /// The statement of `rowsPerStatement` rows, without ``tail``, when the caller keeps one made already.
    var full: String?
    /// A store's added fields, for rows of hotels (``SQLiteBinder/bind(_:position:)``).
    var added: ArraySlice<HotelFieldSpec> = []

    static func sql(head: String, columns: Int, rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
        return head + Array(repeating: row, count: rows).joined(separator: ",")
    }

    /// Inserts `count` rows; `bindRow` binds row `index`'s values, in the columns' order, straight from where
    /// the caller keeps them. Returns how many rows went in.
    @discardableResult
    func insert(_ count: Int, _ db: Database, bindRow: (_ index: Int, inout SQLiteBinder) throws -> Void) throws -> Int {
        let perStatement = min(Self.rowsPerStatement, max(1, db.maximumStatementArgumentCount / columns))
        var inserted = 0
        for start in stride(from: 0, to: count, by: perStatement) {
            let rows = min(perStatement, count - start)
            let sql = ((rows == Self.rowsPerStatement ? full : nil) ?? Self.sql(head: head, columns: columns, rows: rows)) + tail
            let statement = try db.cachedStatement(sql: sql)
            // Resets the statement and clears its bindings; execute() then runs what is bound below.
            statement.setUncheckedArguments(StatementArguments())
            var binder = SQLiteBinder(statement: statement.sqliteStatement, added: added)
            for index in start..<(start + rows) { try bindRow(index, &binder) }
            try statement.execute()
            inserted += db.changesCount
        }
        return inserted
    }
}

/// Binds a statement's arguments in order, as GRDB would bind the same values.
struct SQLiteBinder: HotelFieldVisitor {
    /// SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    let statement: SQLiteStatement
    /// A store's added fields, bound after a hotel's built-in ones.
    let added: ArraySlice<HotelFieldSpec>
    private var index: CInt = 0

    init(statement: SQLiteStatement, added: ArraySlice<HotelFieldSpec> = []) {
        self.statement = statement
        self.added = added
    }

    /// A hotel's row after its list's id, in ``HotelColumns/insertHead``'s order.
    mutating func bind(_ hotel: borrowing Hotel, position: Int64) throws(DatabaseError) {
        try hotel.visitFields(&self)
        for spec in added { try bind(spec.value(hotel)) }
        try bind(position)
    }

    mutating func bind(_ value: HotelFieldSpec.Value) throws(DatabaseError) {
        switch value {
        case .null: try next { sqlite3_bind_null($0, $1) }
        case .text(let text): try bind(text)
        case .real(let number): try bind(number)
        case .integer(let number): try bind(number)
        case .references(let references): try bind(HotelFieldSpec.Value.referencesJSON(references))
        }
    }

    mutating func visit(_ field: Int, text: String?) throws(DatabaseError) { try bind(text) }
    mutating func visit(_ field: Int, real: Double?) throws(DatabaseError) { try bind(real) }
    mutating func visit(_ field: Int, integer: Int64?) throws(DatabaseError) { try bind(integer) }
    mutating func visit(_ field: Int, references: [String: String]?) throws(DatabaseError) {
        try bind(references.map(HotelFieldSpec.Value.referencesJSON))
    }

    mutating func bind(_ value: Int64?) throws(DatabaseError) {
        try next { statement, index in value.map { sqlite3_bind_int64(statement, index, $0) } ?? sqlite3_bind_null(statement, index) }
    }

    mutating func bind(_ value: Double?) throws(DatabaseError) {
        try next { statement, index in value.map { sqlite3_bind_double(statement, index, $0) } ?? sqlite3_bind_null(statement, index) }
    }

    /// Text up to its first NUL, as GRDB binds a `String` (as a C string).
    mutating func bind(_ value: String?) throws(DatabaseError) {
        guard var value else { return try next { sqlite3_bind_null($0, $1) } }
        try next { statement, index in
            value.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(statement, index, "", 0, Self.transient)
                }
                let length = memchr(base, 0, bytes.count).map { UnsafeRawPointer(base).distance(to: $0) } ?? bytes.count
                return base.withMemoryRebound(to: CChar.self, capacity: length) {
                    sqlite3_bind_text(statement, index, $0, CInt(length), Self.transient)
                }
            }
        }
    }

    private mutating func next(_ bind: (SQLiteStatement, CInt) -> CInt) throws(DatabaseError) {
        index += 1
        let code = bind(statement, index)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errstr(code)))
        }
    }
}
