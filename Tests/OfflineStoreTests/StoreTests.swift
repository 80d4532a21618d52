import Foundation
import GRDB
import Hotels
import Imaging
import OfflineStore
import Testing

func temporaryFolder(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("store-\(name)-\(UUID().uuidString)")
}

/// Hotels named by code with an addtime; newest first, as services list them.
func hotels(_ codes: [(String, Int64)], name: String = "Hotel") -> [Hotel] {
    codes.map { Hotel(code: $0.0, name: "\(name) \($0.0)", logoURL: "http://logos.test/\($0.0).png", addtime: $0.1) }
}

@Suite("Offline store")
struct StoreTests {
    let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Shanghai")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "100", usedCursors: ["100"], end: nil)

    func codes(_ store: HotelStore) throws -> [String] {
        guard let list = try store.cachedList(key) else { return [] }
        return try store.hotels(in: list).map(\.code)
    }

    @Test("A first page into an empty cache: every row inserted, in order, with its paging checkpoint")
    func firstPage() throws {
        let store = try HotelStore(folder: temporaryFolder("first"))
        let result = try store.mergeFirstPage(hotels([("A", 300), ("B", 200), ("C", 100)]), into: key, checkpoint: checkpoint)
        #expect(result == MergeResult(inserted: 3))
        #expect(try codes(store) == ["A", "B", "C"])
        let list = try #require(try store.cachedList(key))
        #expect(list.count == 3 && list.checkpoint == checkpoint && !list.isExhausted)
        #expect(try store.hotels(in: list, offset: 1, limit: 1).map(\.code) == ["B"])
    }

    @Test("Merge: new codes inserted, changed rows updated, a row whose addtime changed moves to its new place")
    func merge() throws {
        let store = try HotelStore(folder: temporaryFolder("merge"))
        try store.mergeFirstPage(hotels([("A", 300), ("B", 200), ("C", 100)]), into: key, checkpoint: checkpoint)
        try store.appendPage(hotels([("D", 90), ("E", 80)]), to: key, checkpoint: checkpoint)
        // N is new; D got a new episode (addtime 400) and moves to the top; A was renamed.
        var fresh = hotels([("D", 400), ("N", 350), ("A", 300)])
        fresh[2].name = "Renamed A"
        let result = try store.mergeFirstPage(fresh, into: key, checkpoint: checkpoint)
        #expect(result == MergeResult(inserted: 1, updated: 1, moved: 1))
        #expect(try codes(store) == ["D", "N", "A", "B", "C", "E"])
        let list = try #require(try store.cachedList(key))
        #expect(try store.hotels(in: list, limit: 3).map(\.name) == ["Hotel D", "Hotel N", "Renamed A"])
        // The continuation of "load more" is the cached one: it still holds.
        #expect(list.checkpoint == checkpoint)
    }

    @Test("A fresh page that shares no row with the cache replaces it, paging included")
    func replace() throws {
        let store = try HotelStore(folder: temporaryFolder("replace"))
        try store.mergeFirstPage(hotels([("A", 300), ("B", 200)]), into: key, checkpoint: checkpoint)
        let fresh = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "900", usedCursors: ["900"], end: nil)
        let result = try store.mergeFirstPage(hotels([("X", 1000), ("Y", 900)]), into: key, checkpoint: fresh)
        #expect(result.replaced && result.inserted == 2)
        #expect(try codes(store) == ["X", "Y"])
        #expect(try store.cachedList(key)?.checkpoint == fresh)
    }

    @Test("Load more appends, never duplicates a code, and saves where paging stands")
    func append() throws {
        let store = try HotelStore(folder: temporaryFolder("append"))
        try store.mergeFirstPage(hotels([("A", 300), ("B", 200)]), into: key, checkpoint: checkpoint)
        let end = Pager.Checkpoint(pagesReceived: 2, nextPage: 0, nextCursor: "100", usedCursors: ["100", "200"], end: .endMarker)
        #expect(try store.appendPage(hotels([("B", 200), ("C", 100)]), to: key, checkpoint: end) == 1)
        #expect(try codes(store) == ["A", "B", "C"])
        let list = try #require(try store.cachedList(key))
        #expect(list.isExhausted && list.checkpoint == end)
        // A new store on the same file resumes from it.
        let reopened = try HotelStore(folder: URL(fileURLWithPath: store.path).deletingLastPathComponent())
        #expect(try reopened.cachedList(key)?.checkpoint == end)
    }

    @Test("Pages longer than one INSERT keep service order and contiguous positions, skip repeated codes, update cached rows")
    func longPages() throws {
        let store = try HotelStore(folder: temporaryFolder("long"))
        let first = hotels((0..<250).map { ("A\($0)", Int64(10_000 - $0)) })
        #expect(try store.mergeFirstPage(first, into: key, checkpoint: checkpoint) == MergeResult(inserted: 250))
        // 230 new codes, one of them twice, then 20 rows already cached (renamed: updated in place).
        var more = hotels((0..<230).map { ("B\($0)", Int64(5_000 - $0)) })
        more.insert(more[3], at: 150)
        more += hotels((0..<20).map { ("A\($0)", Int64(10_000 - $0)) }, name: "Renamed")
        #expect(try store.appendPage(more, to: key, checkpoint: checkpoint) == 230)
        let expected = first.map(\.code) + (0..<230).map { "B\($0)" }
        #expect(try codes(store) == expected)
        let list = try #require(try store.cachedList(key))
        #expect(list.count == 480)
        #expect(try store.hotels(in: list, offset: 19, limit: 2).map(\.name) == ["Renamed A19", "Hotel A20"])
        let positions = try store.writer.read { db in try Int64.fetchAll(db, sql: "SELECT position FROM hotels ORDER BY position") }
        #expect(positions == Array(-250..<230))
        // No code repeats, but the last 10 are cached: the rows go in at once, come out again, and the page is redone after a lookup.
        let overlapping = hotels((0..<150).map { ("C\($0)", Int64(4_000 - $0)) }) + hotels((0..<10).map { ("B\($0)", Int64(5_000 - $0)) }, name: "Again")
        #expect(try store.appendPage(overlapping, to: key, checkpoint: checkpoint) == 150)
        #expect(try codes(store) == expected + (0..<150).map { "C\($0)" })
        #expect(try store.writer.read { db in try Int64.fetchAll(db, sql: "SELECT position FROM hotels ORDER BY position") } == Array(-250..<380))
        #expect(try store.hotels(in: #require(try store.cachedList(key)), offset: 250, limit: 1).first?.name == "Again B0")
        let expected2 = expected + (0..<150).map { "C\($0)" }

        // A fresh first page of 150: 120 new rows, then 30 cached ones, one moved (new addtime), one renamed.
        var fresh = hotels((0..<120).map { ("N\($0)", Int64(20_000 - $0)) })
            + hotels((0..<20).map { ("A\($0)", Int64(10_000 - $0)) }, name: "Renamed") + hotels((20..<30).map { ("A\($0)", Int64(10_000 - $0)) })
        fresh[125].addtime = 9_999_999
        fresh[126].name = "Renamed again"
        #expect(try store.mergeFirstPage(fresh, into: key, checkpoint: checkpoint) == MergeResult(inserted: 120, updated: 1, moved: 1))
        let merged = fresh.map(\.code) + expected2.filter { !Set(fresh.map(\.code)).contains($0) }
        #expect(try codes(store) == merged)
        #expect(try store.hotels(in: #require(try store.cachedList(key))).first { $0.code == "A6" }?.name == "Renamed again")
    }

    @Test("forEachBatch hands over the whole list in service order, a batch at a time")
    func batches() async throws {
        let store = try HotelStore(folder: temporaryFolder("batches"))
        let page = hotels((0..<480).map { ("C\($0)", Int64(10_000 - $0)) })
        try await store.mergeFirstPage(Array(page[..<300]), into: key, checkpoint: checkpoint)
        try await store.appendPage(Array(page[300...]), to: key, checkpoint: checkpoint)
        let list = try #require(try await store.cachedList(key))
        var batches: [[Hotel]] = []
        try await store.forEachBatch(in: list, batchSize: 200) { batches.append($0) }
        #expect(batches.map(\.count) == [200, 200, 80])
        #expect(batches.flatMap { $0 } == page)
        #expect(try await store.hotels(in: list) == page)
        // A list that is a whole number of batches ends without an empty one.
        var exact: [Int] = []
        try await store.forEachBatch(in: list, batchSize: 240) { exact.append($0.count) }
        #expect(exact == [240, 240])
    }

    @Test("Lists are kept apart by profile, endpoint, city and keyword; the latest of a city is found without an endpoint")
    func separateLists() throws {
        let store = try HotelStore(folder: temporaryFolder("lists"))
        let other = ListKey(profile: "sample", endpoint: "http://127.0.0.1:2/soap", city: "Shanghai")
        try store.mergeFirstPage(hotels([("A", 1)]), into: key, checkpoint: checkpoint, now: Date(timeIntervalSince1970: 1000))
        try store.mergeFirstPage(hotels([("B", 1), ("C", 2)]), into: other, checkpoint: checkpoint, now: Date(timeIntervalSince1970: 2000))
        #expect(try store.cachedList(key)?.count == 1)
        #expect(try store.latestList(city: "Shanghai", profile: nil)?.key == other)
        #expect(try store.latestList(city: "Paris", profile: nil) == nil)
        let stats = try store.stats()
        #expect(stats.lists.count == 2 && stats.hotels == 3)
        try store.clear()
        #expect(try store.stats().hotels == 0)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("A file that is not a database is moved aside, kept, and a new store starts")
    func corruptFile() throws {
        let folder = temporaryFolder("corrupt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: folder.appendingPathComponent("hotels.sqlite"))
        let store = try HotelStore(folder: folder)
        #expect(store.warnings.count == 1)
        #expect(store.warnings.first?.contains("damaged") == true)
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("hotels.sqlite.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: folder.appendingPathComponent(aside[0])) == garbage, "the user's file was changed")
        try store.mergeFirstPage(hotels([("A", 1)]), into: key, checkpoint: checkpoint)
        #expect(try codes(store) == ["A"])
    }

    @Test("A file from a newer HotelKit is moved aside with a warning, not migrated or dropped")
    func futureSchema() throws {
        let folder = temporaryFolder("future")
        do {
            let store = try HotelStore(folder: folder)
            try store.mergeFirstPage(hotels([("A", 1)]), into: key, checkpoint: checkpoint)
        }
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("hotels.sqlite").path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: from the future')") }
        try queue.close()
        let store = try HotelStore(folder: folder)
        #expect(store.warnings.first?.contains("newer HotelKit") == true)
        #expect(try codes(store).isEmpty)
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("hotels.sqlite.newer-") && !$0.contains("-wal") && !$0.contains("-shm") }
        #expect(aside.count == 1)
        let kept = try DatabaseQueue(path: folder.appendingPathComponent(aside[0]).path)
        #expect(try kept.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM hotels") } == 1)
    }

    @Test("The image index records logos and drops entries whose file is gone on vacuum")
    func imageIndex() throws {
        let store = try HotelStore(folder: temporaryFolder("images"))
        try store.noteImage(ImageIndexEntry(url: "http://x/a.png", filter: "resize:8x8:fit", file: "/nowhere/a.img", bytes: 10, etag: "\"1\""))
        #expect(try store.imageEntry(url: "http://x/a.png", filter: "resize:8x8:fit")?.etag == "\"1\"")
        #expect(try store.stats().images == 1)
        try store.vacuum { _ in false }
        #expect(try store.stats().images == 0)
    }
}
