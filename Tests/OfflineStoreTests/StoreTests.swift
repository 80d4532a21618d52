import Foundation
import GRDB
import Hotels
import Imaging
import OfflineStore
import TestSupport
import Testing

func temporaryFolder(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("store-\(name)-\(UUID().uuidString)")
}

/// What only SQLite has: a file reopened, its positions, a damaged or newer file, vacuum.
/// The store's meaning on both backends is `PostgresStoreTests/SharedStoreTests`.
@Suite("Offline store")
struct StoreTests {
    let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Shanghai")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "100", usedCursors: ["100"], end: nil)

    func codes(_ store: SQLiteHotelStore) throws -> [String] {
        guard let list = try store.cachedList(key) else { return [] }
        return try store.hotels(in: list).map(\.code)
    }

    @Test("Load more appends, never duplicates a code, and saves where paging stands")
    func append() throws {
        let store = try SQLiteHotelStore(folder: temporaryFolder("append"))
        try store.mergeFirstPage(hotels([("A", 300), ("B", 200)]), into: key, checkpoint: checkpoint)
        let end = Pager.Checkpoint(pagesReceived: 2, nextPage: 0, nextCursor: "100", usedCursors: ["100", "200"], end: .endMarker)
        #expect(try store.appendPage(hotels([("B", 200), ("C", 100)]), to: key, checkpoint: end) == 1)
        #expect(try codes(store) == ["A", "B", "C"])
        let list = try #require(try store.cachedList(key))
        #expect(list.isExhausted && list.checkpoint == end)
        // A new store on the same file resumes from it.
        let reopened = try SQLiteHotelStore(folder: URL(fileURLWithPath: store.path).deletingLastPathComponent())
        #expect(try reopened.cachedList(key)?.checkpoint == end)
    }

    @Test("Pages longer than one INSERT keep service order and contiguous positions, skip repeated codes, update cached rows")
    func longPages() throws {
        let store = try SQLiteHotelStore(folder: temporaryFolder("long"))
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
        #expect(try store.hotels(in: list, limit: 21).dropFirst(19).map(\.name) == ["Renamed A19", "Hotel A20"])
        let positions = try store.writer.read { db in try Int64.fetchAll(db, sql: "SELECT position FROM hotels ORDER BY position") }
        #expect(positions == Array(-250..<230))
        // No code repeats, but the last 10 are cached: the rows go in at once, come out again, and the page is redone after a lookup.
        let overlapping =
            hotels((0..<150).map { ("C\($0)", Int64(4_000 - $0)) }) + hotels((0..<10).map { ("B\($0)", Int64(5_000 - $0)) }, name: "Again")
        #expect(try store.appendPage(overlapping, to: key, checkpoint: checkpoint) == 150)
        #expect(try codes(store) == expected + (0..<150).map { "C\($0)" })
        #expect(
            try store.writer.read { db in try Int64.fetchAll(db, sql: "SELECT position FROM hotels ORDER BY position") }
                == Array(-250..<380))
        #expect(try store.hotels(in: #require(try store.cachedList(key)), limit: 251).last?.name == "Again B0")
        let expected2 = expected + (0..<150).map { "C\($0)" }

        // A fresh first page of 150: 120 new rows, then 30 cached ones, one moved (new addtime), one renamed.
        var fresh =
            hotels((0..<120).map { ("N\($0)", Int64(20_000 - $0)) })
            + hotels((0..<20).map { ("A\($0)", Int64(10_000 - $0)) }, name: "Renamed")
            + hotels((20..<30).map { ("A\($0)", Int64(10_000 - $0)) })
        fresh[125].addtime = 9_999_999
        fresh[126].name = "Renamed again"
        #expect(try store.mergeFirstPage(fresh, into: key, checkpoint: checkpoint) == MergeResult(inserted: 120, updated: 1, moved: 1))
        let merged = fresh.map(\.code) + expected2.filter { !Set(fresh.map(\.code)).contains($0) }
        #expect(try codes(store) == merged)
        #expect(try store.hotels(in: #require(try store.cachedList(key))).first { $0.code == "A6" }?.name == "Renamed again")
    }

    @Test("The writer keeps a 64 MiB page cache; readers keep SQLite's 2 MiB, so a match's records read through them do not stay resident")
    func pageCaches() async throws {
        let store = try SQLiteHotelStore(folder: temporaryFolder("page-caches"))
        #expect(try await store.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } == -65536)
        #expect(try await store.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } == -2000)
    }

    @Test("A file that is not a database is moved aside, kept, and a new store starts")
    func corruptFile() throws {
        let folder = temporaryFolder("corrupt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: folder.appendingPathComponent("hotels.sqlite"))
        let store = try SQLiteHotelStore(folder: folder)
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
            let store = try SQLiteHotelStore(folder: folder)
            try store.mergeFirstPage(hotels([("A", 1)]), into: key, checkpoint: checkpoint)
        }
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("hotels.sqlite").path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: from the future')") }
        try queue.close()
        let store = try SQLiteHotelStore(folder: folder)
        #expect(store.warnings.first?.contains("newer HotelKit") == true)
        #expect(try codes(store).isEmpty)
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasPrefix("hotels.sqlite.newer-") && !$0.contains("-wal") && !$0.contains("-shm")
        }
        #expect(aside.count == 1)
        let kept = try DatabaseQueue(path: folder.appendingPathComponent(aside[0]).path)
        #expect(try kept.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM hotels") } == 1)
    }

    @Test("The image index records logos and drops entries whose file is gone on vacuum")
    func imageIndex() throws {
        let store = try SQLiteHotelStore(folder: temporaryFolder("images"))
        try store.noteImage(
            ImageIndexEntry(url: "http://x/a.png", filter: "resize:8x8:fit", file: "/nowhere/a.img", bytes: 10, etag: "\"1\""))
        #expect(try store.imageEntry(url: "http://x/a.png", filter: "resize:8x8:fit")?.etag == "\"1\"")
        #expect(try store.stats().images == 1)
        try store.vacuum { _ in false }
        #expect(try store.stats().images == 0)
    }

    @Test("SQLite's index leaves a logo's bytes to the disk cache: logoData reads them from its file, and nothing once it is gone")
    func logoData() throws {
        let folder = temporaryFolder("logo-data")
        let store = try SQLiteHotelStore(folder: folder)
        let disk = try DiskImageCache(directory: folder.appendingPathComponent("images"))
        let key = "0123456789abcdef"
        try disk.store([1, 2, 3, 4], for: key, metadata: CachedImageMetadata(url: "http://x/a.png"))
        try store.noteImage(ImageIndexEntry(url: "http://x/a.png", filter: "", file: disk.file(for: key), bytes: 4))
        #expect(try store.logoData(url: "http://x/a.png", filter: "") == [1, 2, 3, 4])
        #expect(try store.logoData(url: "http://x/a.png", filter: "resize:8x8:fit") == nil)
        try disk.removeAll()
        #expect(try store.logoData(url: "http://x/a.png", filter: "") == nil)
    }
}
