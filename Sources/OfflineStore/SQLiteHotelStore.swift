import Foundation
import GRDB
import Hotels
import Imaging

/// The offline store: hotel lists and the logo index in SQLite, through any
/// GRDB `DatabaseWriter`: a `DatabasePool` in WAL mode on disk (safe to share
/// between processes), or a `DatabaseQueue` in memory for tests and cold runs.
///
/// Every page is written with its paging checkpoint in one transaction, so
/// a process killed at any moment leaves the list and "load more" in step.
public final class SQLiteHotelStore: ListStorage, ImageIndex {
    /// The database: read it with GRDB and the record types (``HotelRecord``,
    /// ``ListRecord``, `ImageIndexEntry`) as you like.
    public let writer: any DatabaseWriter
    /// The file, or ":memory:".
    public let path: String
    /// What happened when opening: a damaged or newer file moved aside.
    public let warnings: [String]
    /// The fields the store keeps, each in its own column of `hotels`.
    public var fields: HotelFieldTable { columns.table }
    let columns: HotelColumns

    /// `$XDG_CACHE_HOME/hotelkit`, else `~/.cache/hotelkit`: the store's file and the logo cache live here.
    public static var defaultFolder: URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("hotelkit")
    }

    /// A store on `writer`, migrated to the current schema, keeping `fields`: a column missing for one is added in place.
    public init(writer: any DatabaseWriter, fields: HotelFieldTable = .standard) throws(StoreError) {
        self.writer = writer
        path = writer.path
        warnings = []
        columns = HotelColumns(fields)
        do {
            try Self.migrate(writer, fields: fields)
        } catch {
            throw StoreError(path: writer.path, reason: String(describing: error))
        }
    }

    /// A store in memory: nothing outlives the process.
    public static func inMemory(fields: HotelFieldTable = .standard) throws(StoreError) -> SQLiteHotelStore {
        do {
            return try SQLiteHotelStore(writer: DatabaseQueue(), fields: fields)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(path: ":memory:", reason: String(describing: error))
        }
    }

    /// Opens (or creates) `folder/hotels.sqlite`. A file that is not a
    /// database, is damaged, or was written by a newer HotelKit is moved
    /// aside, never deleted, and a new one is made; ``warnings`` says so.
    /// It keeps `fields`: a column missing for one is added in place.
    public init(folder: URL = SQLiteHotelStore.defaultFolder, fields: HotelFieldTable = .standard) throws(StoreError) {
        let file = folder.appendingPathComponent("hotels.sqlite")
        path = file.path
        columns = HotelColumns(fields)
        var warnings: [String] = []
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(path: file.path, reason: "cannot create its folder: \(error.localizedDescription)")
        }
        do {
            writer = try Self.open(file, fields: fields)
        } catch let problem as UnusableFile {
            let aside = file.path + ".\(problem.suffix)-\(Int(Date().timeIntervalSince1970))"
            do {
                for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: file.path + suffix) {
                    try FileManager.default.moveItem(atPath: file.path + suffix, toPath: aside + suffix)
                }
                writer = try Self.open(file, fields: fields)
            } catch {
                throw StoreError(path: file.path, reason: "\(problem.reason), and it could not be replaced: \(error)")
            }
            warnings.append("the hotel cache \(file.path) \(problem.reason); it was moved to \(aside) and a new one started")
        } catch {
            throw StoreError(path: file.path, reason: String(describing: error))
        }
        self.warnings = warnings
    }

    private struct UnusableFile: Error {
        var reason: String
        var suffix: String
    }

    private static func open(_ file: URL, fields: HotelFieldTable) throws -> DatabasePool {
        var configuration = Configuration()
        // Another process may be writing: wait for it rather than fail.
        configuration.busyMode = .timeout(30)
        // In WAL mode, NORMAL loses no committed transaction when a process dies
        // (only, at worst, the last ones on power loss) and never corrupts the file.
        // The writer's page cache is 64 MiB (SQLite's default is 2 MiB): a match run writes hundreds of thousands of rows
        // into indexes keyed by text, whose pages a small cache reads back from disk again and again. Readers keep the
        // default: they read lists front to back, which the system's file cache serves, and a match's records read
        // through several of them would otherwise stay resident, 64 MiB each, while it matches.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -65536") }
        }
        let pool: DatabasePool
        do {
            pool = try openWaiting(file.path, configuration)
            if try pool.read({ db in try Self.migrator.hasBeenSuperseded(db) }) {
                throw UnusableFile(reason: "was written by a newer HotelKit", suffix: "newer")
            }
            try migrate(pool, fields: fields)
            try pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM lists") }
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw UnusableFile(reason: "is damaged (\(error.message ?? "not a database"))", suffix: "corrupt")
        }
        return pool
    }

    /// Two processes that create the file at once race to switch it to WAL,
    /// and SQLite answers the loser "locked" without calling the busy handler:
    /// the loser waits and tries again, as it would for any other lock.
    private static func openWaiting(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        var attempt = 0
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 100 {
                attempt += 1
                usleep(50_000)
            }
        }
    }

    /// Migrates `writer`, even while another process migrates the same file.
    ///
    /// GRDB reads which migrations are applied before it takes the write lock,
    /// so of two processes opening a new file at once, the second runs a
    /// migration the first has just committed, and fails ("table already
    /// exists") after its transaction rolls back. When the applied set grew
    /// meanwhile, that failure is someone else's progress: look again.
    static func migrate(_ writer: any DatabaseWriter, with migrator: DatabaseMigrator = migrator, fields: HotelFieldTable = .standard)
        throws
    {
        while true {
            let before = try writer.read { db in try migrator.appliedIdentifiers(db) }
            do {
                try migrator.migrate(writer)
                return try writer.write { db in
                    try addMissingFieldColumns(db, fields)
                    try addListBounds(db)
                    try createCatalogueTables(db)
                }
            } catch {
                let after = try writer.read { db in try migrator.appliedIdentifiers(db) }
                guard after.isStrictSuperset(of: before) else { throw error }
            }
        }
    }

    /// Gives the `hotels` table a column for every field of `fields` it
    /// lacks: a store made before a field was added takes it in place, its
    /// rows keeping everything and the new column empty until the list is
    /// fetched again. No version is recorded for it, so an older HotelKit still
    /// opens the file and reads the columns it knows.
    static func addMissingFieldColumns(_ db: Database, _ fields: HotelFieldTable) throws {
        try addMissingColumns(db, table: "hotels", fields.fields.map { ($0.column, $0.type.sqliteType) })
    }

    /// Gives `lists` the columns of its bounds (``ListRecord/nextPosition``) in place, as fields get theirs.
    static func addListBounds(_ db: Database) throws {
        try addMissingColumns(db, table: "lists", [("firstPosition", "INTEGER"), ("nextPosition", "INTEGER")])
    }

    /// Adds each of `columns` (name, SQL type) that `table` lacks, when the table exists.
    private static func addMissingColumns(_ db: Database, table: String, _ columns: [(name: String, type: String)]) throws {
        guard try db.tableExists(table) else { return }
        let existing = Set(try db.columns(in: table).map { $0.name.lowercased() })
        for column in columns where !existing.contains(column.name.lowercased()) {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(quoted(column.name)) \(column.type)")
        }
    }

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: lists, hotels, image index") { db in
            try db.create(table: "lists") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("profile", .text).notNull()
                table.column("endpoint", .text).notNull()
                table.column("city", .text).notNull()
                table.column("keyword", .text).notNull().defaults(to: "")
                table.column("checkpoint", .jsonText)
                table.column("exhausted", .boolean).notNull().defaults(to: false)
                table.column("fetchedAt", .double).notNull()
                table.uniqueKey(["profile", "endpoint", "city", "keyword"])
            }
            try db.create(table: "hotels") { table in
                table.column("listId", .integer).notNull().references("lists", onDelete: .cascade)
                table.column("code", .text).notNull()
                table.column("name", .text)
                table.column("address", .text)
                table.column("latitude", .double)
                table.column("longitude", .double)
                table.column("logoURL", .text)
                table.column("addtime", .integer)
                // Service order: the first page's rows take positions below the
                // smallest, so a merge touches only the rows it changes.
                table.column("position", .integer).notNull()
                table.primaryKey(["listId", "code"])
            }
            try db.create(index: "hotels_by_position", on: "hotels", columns: ["listId", "position"])
            try db.create(table: "images") { table in
                table.column("url", .text).notNull()
                table.column("filter", .text).notNull()
                table.column("file", .text).notNull()
                table.column("bytes", .integer).notNull()
                table.column("lastAccess", .double).notNull()
                table.column("etag", .text)
                table.column("lastModified", .text)
                table.primaryKey(["url", "filter"])
            }
        }
        return migrator
    }()
}
