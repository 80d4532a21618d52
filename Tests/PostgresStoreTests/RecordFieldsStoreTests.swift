import Foundation
import GRDB
import Hotels
import OfflineStore
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// The record's fields in both stores: every field kept and read back by the
/// load-more fast path, the general path and a merge; the table, both stores'
/// live columns and the JSON keys the same; and stores made by the release
/// before the fields migrating in place with nothing lost.
@Suite("The record's fields in both stores", .closingStores)
struct RecordFieldsStoreTests {
    let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Paris")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "100", usedCursors: ["100"], end: nil)

    /// A hotel with every field, its values made from `code`.
    static func full(_ code: String, addtime: Int64) -> Hotel {
        Hotel(
            code: code, name: "Hôtel \(code) «Paris»", address: "1 Rue \"\(code)\"", latitude: 48.85, longitude: 2.35,
            logoURL: "http://l.test/\(code).png", addtime: addtime, phone: "+33 1 00 00 00 0\(code.count)", chainCode: "AC",
            rating: 3.5, postalCode: "75001", city: "Paris", countryCode: "FR", references: ["giata": "9\(code.count)", "tti": code])
    }

    @Test(
        "every field goes in and comes back: a first page, a load-more page (the one-statement path), a page with a code the list has (the general path) and a merge that changes fields",
        arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let first = [Self.full("A", addtime: 300), Hotel(code: "B", addtime: 200)]
        _ = try await store.mergeFirstPage(first, into: key, checkpoint: checkpoint, now: Date())
        #expect(try await store.appendPage([Self.full("C", addtime: 100)], to: key, checkpoint: checkpoint, now: Date()) == 1)
        // D is new and A is already in the list: the page goes the general way.
        var changed = Self.full("A", addtime: 300)
        changed.rating = 4
        changed.references = ["giata": "1"]
        changed.phone = nil
        #expect(try await store.appendPage([Self.full("D", addtime: 90), changed], to: key, checkpoint: checkpoint, now: Date()) == 1)
        let list = try #require(try await store.cachedList(key))
        let all = try await store.hotels(in: list, limit: nil)
        #expect(all == [changed, Hotel(code: "B", addtime: 200), Self.full("C", addtime: 100), Self.full("D", addtime: 90)])
        let rows = try await store.rows(in: list, after: nil, limit: 10, matching: nil)
        #expect(rows.hotels == all)
        // A merge whose page changes a field updates it in place.
        var renamed = Self.full("C", addtime: 100)
        renamed.city = "Lyon"
        renamed.countryCode = nil
        let result = try await store.mergeFirstPage(
            [changed, Hotel(code: "B", addtime: 200), renamed], into: key, checkpoint: checkpoint, now: Date())
        #expect(result.updated == 1)
        #expect(try await store.hotels(in: list, limit: 3).dropFirst(2) == [renamed])
    }

    @Test(
        "text is kept up to its first NUL, which PostgreSQL's text cannot hold, the same in both stores and on every path: the one-statement load-more page, the general path and a merge",
        arguments: Backend.allCases)
    func textUpToNUL(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        func hotel(_ code: String, name: String, address: String, references: [String: String]) -> Hotel {
            var hotel = Self.full(code, addtime: 1)
            (hotel.name, hotel.address, hotel.references) = (name, address, references)
            return hotel
        }
        func withNUL(_ code: String) -> Hotel {
            hotel(code, name: "Grand\u{0}Hidden", address: "\u{0}", references: ["giata\u{0}x": "9\u{0}1"])
        }
        func cut(_ code: String) -> Hotel { hotel(code, name: "Grand", address: "", references: ["giata": "9"]) }
        _ = try await store.mergeFirstPage([Self.full("A", addtime: 1)], into: key, checkpoint: checkpoint, now: Date())
        #expect(try await store.appendPage([withNUL("B")], to: key, checkpoint: checkpoint, now: Date()) == 1)
        #expect(try await store.appendPage([withNUL("C"), Self.full("A", addtime: 1)], to: key, checkpoint: checkpoint, now: Date()) == 1)
        _ = try await store.mergeFirstPage([withNUL("A"), withNUL("B"), withNUL("C")], into: key, checkpoint: checkpoint, now: Date())
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil) == [cut("A"), cut("B"), cut("C")])
    }

    @Test("a PostgreSQL store whose hotels lack a field's column gets it when opened, as SQLite's does: a new field needs no migration")
    func missingFieldColumnAdded() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        try await ClosingStores.open(url).close()
        try await server.psql("ALTER TABLE hotels DROP COLUMN refs, DROP COLUMN chain_code", database: TestPostgres.database(in: url))
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        defer { Task { await store.database.close() } }
        #expect(store.database.appliedMigrations.isEmpty)
        _ = try await store.mergeFirstPage([Self.full("A", addtime: 2)], into: key, checkpoint: checkpoint, now: Date())
        #expect(try await store.appendPage([Self.full("B", addtime: 1)], to: key, checkpoint: checkpoint, now: Date()) == 1)
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil) == [Self.full("A", addtime: 2), Self.full("B", addtime: 1)])
    }

    @Test("the field table, SQLite's live columns, PostgreSQL's live columns and the JSON keys name the same fields")
    func noDrift() async throws {
        let sqlite = try SQLiteHotelStore.inMemory()
        let sqliteColumns = try await sqlite.writer.read { db in try db.columns(in: "hotels").map(\.name) }
        #expect(
            sqliteColumns == ["listId"] + Array(HotelFields.all.prefix(7).map(\.column)) + ["position"]
                + HotelFields.all.dropFirst(7).map(\.column))
        let url = try await TestPostgres.shared().makeDatabase()
        let postgres = PostgresHotelStore(database: try await ClosingStores.open(url))
        defer { Task { await postgres.database.close() } }
        let live = try await TestPostgres.shared().psql(
            """
            SELECT string_agg(column_name || ':' || data_type, ',' ORDER BY ordinal_position) FROM information_schema.columns
            WHERE table_name = 'hotels' AND table_schema = current_schema()
            """, database: TestPostgres.database(in: url)
        ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        let expected =
            ["list_id:bigint"] + HotelFields.all.prefix(7).map { "\($0.postgresColumn):\($0.type.postgresType)" } + ["position:bigint"]
            + HotelFields.all.dropFirst(7).map { "\($0.postgresColumn):\($0.type.postgresType)" }
        #expect(live == expected)
        #expect(HotelFields.all.map(\.jsonKey) == HotelFields.jsonKeys && HotelFields.jsonKeys == HotelField.allCases.map(\.rawValue))
    }

    @Test(
        "a SQLite store made by the release before the fields opens in place: every list, row, checkpoint and logo index entry kept, the new fields empty until the list is fetched again"
    )
    func sqliteBeforeFields() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("before-fields-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Samples.url("Stores/before-record-fields.sqlite"), to: folder.appendingPathComponent("hotels.sqlite"))
        let store = try SQLiteHotelStore(folder: folder)
        #expect(store.warnings.isEmpty)
        let lists = try store.allLists()
        #expect(Set(lists.map(\.key.city)) == ["Paris", "Tokyo"])
        let paris = try #require(lists.first { $0.key.city == "Paris" })
        #expect(paris.count == 20 && paris.checkpoint?.pagesReceived == 2)
        let hotels = try await store.hotels(in: paris, limit: nil)
        #expect(hotels.count == 20 && hotels.allSatisfy { $0.name != nil && $0.logoURL != nil && $0.addtime != nil })
        #expect(hotels.allSatisfy { $0.phone == nil && $0.city == nil && $0.references == nil })
        #expect(try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM images") } == 20)
        // The next page carries the fields, beside the old rows.
        #expect(try await store.appendPage([Self.full("NEW", addtime: 1)], to: paris.key, checkpoint: checkpoint, now: Date()) == 1)
        #expect(try await store.hotels(in: paris, limit: 21).dropFirst(20) == [Self.full("NEW", addtime: 1)])
        // Opened again, nothing changes.
        #expect(try await SQLiteHotelStore(folder: folder).hotels(in: paris, limit: nil).count == 21)
    }

    @Test(
        "a PostgreSQL store at schema version 7 migrates to the latest in place: lists, rows, checkpoints, the logo index, jobs and schedules kept; a load-more page then carries the fields"
    )
    func postgresVersion7() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        try await server.psql(file: Samples.url("Stores/postgres-v7.sql"), database: database)
        let before = try await server.psql("SELECT count(*) FROM hotels", database: database)
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        defer { Task { await store.database.close() } }
        #expect(store.database.appliedMigrations.map(\.version) == Array(8...PostgresSchema.latestVersion))
        #expect(try await server.psql("SELECT count(*) FROM hotels", database: database) == before)
        let lists = try await store.allLists()
        let paris = try #require(lists.first { $0.key.city == "Paris" })
        #expect(lists.count == 1 && paris.count == 20 && paris.checkpoint?.pagesReceived == 2)
        let hotels = try await store.hotels(in: paris, limit: nil)
        #expect(hotels.count == 20 && hotels.allSatisfy { $0.name != nil && $0.phone == nil && $0.references == nil })
        #expect(
            try await server.psql("SELECT count(*), count(etag) FROM images", database: database).trimmingCharacters(
                in: .whitespacesAndNewlines) == "20|20")
        let queue = JobQueue<TestKind>(database: store.database)
        #expect(try await queue.overview().byKind[.list]?[.available] == 3)
        #expect(try await queue.schedules().map(\.every) == [6 * 3600])
        #expect(try await store.appendPage([Self.full("NEW", addtime: 1)], to: paris.key, checkpoint: checkpoint, now: Date()) == 1)
        #expect(try await store.hotels(in: paris, limit: 21).dropFirst(20) == [Self.full("NEW", addtime: 1)])
    }
}
