import Foundation
import Hotels
import Imaging
import OfflineStore
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// The two backends every store assertion runs on.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// A new, empty store. PostgreSQL's is a new database on the tests' own server.
    func makeStore() async throws -> any HotelStorage {
        switch self {
        case .sqlite:
            return try SQLiteHotelStore(
                folder: FileManager.default.temporaryDirectory.appendingPathComponent("shared-store-\(UUID().uuidString)"))
        case .postgres:
            return PostgresHotelStore(database: try await ClosingStores.open(try await TestPostgres.shared().makeDatabase()))
        }
    }
}

/// The store's meaning, asserted the same on SQLite and PostgreSQL.
@Suite("A store, on both backends", .closingStores)
struct SharedStoreTests {
    let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Shanghai")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "100", usedCursors: ["100"], end: nil)

    func codes(_ store: any HotelStorage) async throws -> [String] {
        guard let list = try await store.cachedList(key) else { return [] }
        return try await store.hotels(in: list, limit: nil).map(\.code)
    }

    @Test("a PostgreSQL store a test makes is closed when the test ends: its calls fail after")
    func storesClosedAfterTest() async throws {
        actor Made {
            var store: (any HotelStorage)?
            func keep(_ store: any HotelStorage) { self.store = store }
        }
        let made = Made()
        try await ClosingStores().provideScope(for: try #require(Test.current), testCase: Test.Case.current) {
            let store = try await Backend.postgres.makeStore()
            #expect(try await store.allLists().isEmpty)
            await made.keep(store)
        }
        let store = try #require(await made.store)
        await #expect(throws: (any Error).self) { try await store.allLists() }
    }

    @Test("a first page into an empty store: every row inserted, in order, with its checkpoint", arguments: Backend.allCases)
    func firstPage(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let result = try await store.mergeFirstPage(
            hotels([("A", 300), ("B", 200), ("C", 100)]), into: key, checkpoint: checkpoint, now: Date())
        #expect(result == MergeResult(inserted: 3))
        #expect(try await codes(store) == ["A", "B", "C"])
        let list = try #require(try await store.cachedList(key))
        #expect(list.count == 3 && list.checkpoint == checkpoint && !list.isExhausted)
        #expect(try await store.hotels(in: list, limit: 2).dropFirst().map(\.code) == ["B"])
    }

    @Test(
        "merge: new codes inserted, changed rows updated, a row whose addtime changed moves; the cached checkpoint holds",
        arguments: Backend.allCases)
    func merge(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.mergeFirstPage(hotels([("A", 300), ("B", 200), ("C", 100)]), into: key, checkpoint: checkpoint, now: Date())
        #expect(try await store.appendPage(hotels([("D", 90), ("E", 80)]), to: key, checkpoint: checkpoint, now: Date()) == 2)
        var fresh = hotels([("D", 400), ("N", 350), ("A", 300)])
        fresh[2].name = "Renamed A"
        let later = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "350", usedCursors: ["350"], end: nil)
        let result = try await store.mergeFirstPage(fresh, into: key, checkpoint: later, now: Date())
        #expect(result == MergeResult(inserted: 1, updated: 1, moved: 1))
        #expect(try await codes(store) == ["D", "N", "A", "B", "C", "E"])
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: 3).map(\.name) == ["Hotel D", "Hotel N", "Renamed A"])
        #expect(list.checkpoint == checkpoint)
    }

    @Test("a fresh page that shares no row with the store replaces the list, paging included", arguments: Backend.allCases)
    func replace(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.mergeFirstPage(hotels([("A", 300), ("B", 200)]), into: key, checkpoint: checkpoint, now: Date())
        let fresh = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "900", usedCursors: ["900"], end: nil)
        let result = try await store.mergeFirstPage(hotels([("X", 1000), ("Y", 900)]), into: key, checkpoint: fresh, now: Date())
        #expect(result.replaced && result.inserted == 2)
        #expect(try await codes(store) == ["X", "Y"])
        #expect(try await store.cachedList(key)?.checkpoint == fresh)
    }

    @Test(
        "load more appends, never repeats a code, updates cached rows in place, and saves where paging stands", arguments: Backend.allCases)
    func append(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let first = hotels((0..<250).map { ("A\($0)", Int64(10_000 - $0)) })
        #expect(try await store.mergeFirstPage(first, into: key, checkpoint: checkpoint, now: Date()) == MergeResult(inserted: 250))
        // 230 new codes, one of them twice, then 20 rows already stored (renamed: updated in place).
        var more = hotels((0..<230).map { ("B\($0)", Int64(5_000 - $0)) })
        more.insert(more[3], at: 150)
        more += hotels((0..<20).map { ("A\($0)", Int64(10_000 - $0)) }, name: "Renamed")
        let end = Pager.Checkpoint(pagesReceived: 2, nextPage: 0, nextCursor: "1", usedCursors: ["100", "1"], end: .endMarker)
        #expect(try await store.appendPage(more, to: key, checkpoint: end, now: Date()) == 230)
        #expect(try await codes(store) == first.map(\.code) + (0..<230).map { "B\($0)" })
        let list = try #require(try await store.cachedList(key))
        #expect(list.count == 480 && list.isExhausted && list.checkpoint == end)
        #expect(try await store.hotels(in: list, limit: 21).dropFirst(19).map(\.name) == ["Renamed A19", "Hotel A20"])
    }

    @Test(
        "a load-more page of distinct codes, one of them stored already, adds the rest and updates that one in place",
        arguments: Backend.allCases)
    func appendMeetsStoredCode(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await store.mergeFirstPage(hotels([("A", 300), ("B", 200)]), into: key, checkpoint: checkpoint, now: Date())
        let end = Pager.Checkpoint(pagesReceived: 2, nextPage: 0, nextCursor: "1", usedCursors: ["100", "1"], end: .endMarker)
        #expect(
            try await store.appendPage(
                hotels([("C", 100), ("A", 300), ("D", 90)], name: "New"), to: key, checkpoint: end,
                now: Date()) == 2)
        #expect(try await codes(store) == ["A", "B", "C", "D"])
        let list = try #require(try await store.cachedList(key))
        #expect(list.count == 4 && list.checkpoint == end && list.isExhausted)
        #expect(try await store.hotels(in: list, limit: 1).map(\.name) == ["New A"])
    }

    @Test(
        "a search by position is a list of its own: the same city near two points, and without one, keep three lists",
        arguments: Backend.allCases)
    func areas(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let downtown = try SearchArea(near: "47.6062,-122.3321", radius: 2)
        let airport = try SearchArea(near: "47.4502,-122.3088")
        for (area, code) in [(downtown, "D"), (airport, "A"), (nil, "C")] as [(SearchArea?, String)] {
            var keyed = key
            keyed.area = area
            try await store.mergeFirstPage(hotels([(code, 100)]), into: keyed, checkpoint: checkpoint, now: Date())
        }
        var near = key
        near.area = airport
        let list = try #require(try await store.cachedList(near))
        #expect(list.key == near && list.key.area == airport)
        #expect(try await store.hotels(in: list, limit: nil).map(\.code) == ["A"])
        #expect(try await store.latestList(city: key.city, profile: nil, keyword: nil, area: downtown)?.key.area == downtown)
        #expect(try await store.latestList(city: key.city, profile: nil, keyword: nil, area: nil)?.key.area == nil)
        #expect(try await store.allLists().count == 3)
        // A keyword and an area together read back as they were written.
        let both = ListKey(profile: "p", endpoint: "e", city: "c", keyword: "spa", area: downtown)
        #expect(ListKey(profile: "p", endpoint: "e", city: "c", storedKeyword: both.storedKeyword) == both)
    }

    @Test("forEachBatch hands over the whole list in service order, a batch at a time", arguments: Backend.allCases)
    func batches(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let page = hotels((0..<480).map { ("C\($0)", Int64(10_000 - $0)) })
        try await store.mergeFirstPage(Array(page[..<300]), into: key, checkpoint: checkpoint, now: Date())
        try await store.appendPage(Array(page[300...]), to: key, checkpoint: checkpoint, now: Date())
        let list = try #require(try await store.cachedList(key))
        var batches: [[Hotel]] = []
        try await store.forEachBatch(in: list, batchSize: 200) { batches.append($0) }
        #expect(batches.map(\.count) == [200, 200, 80])
        #expect(batches.flatMap { $0 } == page)
        var exact: [Int] = []
        try await store.forEachBatch(in: list, batchSize: 240) { exact.append($0.count) }
        #expect(exact == [240, 240])
    }

    @Test(
        "a list is found by its id; rows pages it by keyset, after a position, and matches names case-insensitively, % and _ taken as themselves",
        arguments: Backend.allCases)
    func keysetRows(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        var page = hotels((0..<30).map { ("C\($0)", Int64(10_000 - $0)) })
        page[4].name = "Grand 100% Hotel"
        page[5].name = "grand_hotel"
        page[6].name = "Grand X Hotel"
        try await store.mergeFirstPage(page, into: key, checkpoint: checkpoint, now: Date())
        let list = try #require(try await store.cachedList(key))
        // Found by its id alone, as the dashboard finds it.
        #expect(try await store.list(id: list.id) == list)
        #expect(try await store.list(id: list.id + 1_000) == nil)
        let first = try await store.rows(in: list, after: nil, limit: 12, matching: nil)
        #expect(first.hotels == Array(page[..<12]) && first.positions.count == 12)
        let second = try await store.rows(in: list, after: first.positions.last, limit: 12, matching: nil)
        #expect(second.hotels == Array(page[12..<24]) && second.positions.first.map { $0 > first.positions.last! } == true)
        #expect(try await store.rows(in: list, after: second.positions.last, limit: 12, matching: nil).hotels == Array(page[24...]))
        #expect(try await store.rows(in: list, after: nil, limit: 10, matching: "GRAND").hotels.map(\.code) == ["C4", "C5", "C6"])
        #expect(try await store.rows(in: list, after: nil, limit: 10, matching: "100%").hotels.map(\.code) == ["C4"])
        #expect(try await store.rows(in: list, after: nil, limit: 10, matching: "d_h").hotels.map(\.code) == ["C5"])
    }

    @Test("every field survives the round trip: nulls, coordinates, text beyond ASCII", arguments: Backend.allCases)
    func fields(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let page = [
            Hotel(
                code: "B&B 1", name: "Hôtel « Les Pins » 松", address: "1 rue d'Été", latitude: -33.8688, longitude: 151.2093,
                logoURL: "http://logos.test/x.png?k=1&o=2", addtime: 1_700_000_000),
            Hotel(code: "2"),
        ]
        try await store.mergeFirstPage(page, into: key, checkpoint: checkpoint, now: Date())
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil) == page)
    }

    @Test(
        "lists are kept apart by profile, endpoint, city and keyword; the latest of a city is found without an endpoint; stats and clear",
        arguments: Backend.allCases)
    func separateLists(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let other = ListKey(profile: "sample", endpoint: "http://127.0.0.1:2/soap", city: "Shanghai")
        let keyed = ListKey(profile: "sample", endpoint: "http://127.0.0.1:2/soap", city: "Shanghai", keyword: "spa")
        try await store.mergeFirstPage(hotels([("A", 1)]), into: key, checkpoint: checkpoint, now: Date(timeIntervalSince1970: 1000))
        try await store.mergeFirstPage(
            hotels([("B", 1), ("C", 2)]), into: other, checkpoint: checkpoint, now: Date(timeIntervalSince1970: 2000))
        try await store.mergeFirstPage(hotels([("D", 1)]), into: keyed, checkpoint: checkpoint, now: Date(timeIntervalSince1970: 3000))
        #expect(try await store.cachedList(key)?.count == 1)
        #expect(try await store.latestList(city: "Shanghai", profile: nil, keyword: nil, area: nil)?.key == other)
        #expect(try await store.latestList(city: "Shanghai", profile: "sample", keyword: "spa", area: nil)?.key == keyed)
        #expect(try await store.latestList(city: "Shanghai", profile: "other", keyword: nil, area: nil) == nil)
        #expect(try await store.latestList(city: "Paris", profile: nil, keyword: nil, area: nil) == nil)
        #expect(try await store.allLists().map(\.key) == [keyed, other, key])
        try await store.noteImage(ImageIndexEntry(url: "http://logos.test/A.png", filter: "", file: "/x", bytes: 10, etag: "\"1\""))
        try await store.noteImage(ImageIndexEntry(url: "http://logos.test/A.png", filter: "", file: "/x", bytes: 12, etag: "\"2\""))
        let stats = try await store.stats()
        #expect(stats.lists.count == 3 && stats.hotels == 4 && stats.images == 1 && stats.imageBytes == 12)
        try await store.clear()
        #expect(try await store.stats().hotels == 0)
        #expect(try await store.allLists().isEmpty)
    }
}
