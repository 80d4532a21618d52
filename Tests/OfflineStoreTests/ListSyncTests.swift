import Foundation
import GRDB
import HTTP
import Hotels
import OfflineStore
import TestSupport
import Testing

/// The list flow at library level: an in-memory database and an in-memory service.
@Suite("ListSync")
struct ListSyncTests {
    static let fastRetry = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1))

    func sync(
        _ http: FakeHTTPClient, _ store: SQLiteHotelStore, options: ListSync.Options = ListSync.Options(pageSize: 5),
        now: Date = Date(), log: LogRecorder = LogRecorder()
    ) throws -> ListSync {
        let client = HotelClient(
            profile: try .named("sample"), endpoint: "http://hotels.test/soap",
            configuration: HotelClientConfiguration(transport: http, retry: Self.fastRetry, logger: log.logger()))
        return ListSync(client: client, storage: store, city: "Paris", options: options, now: { now })
    }

    /// The events of a whole run, as short words.
    func run(_ sync: ListSync) async throws -> [String] {
        var events: [String] = []
        for try await event in sync {
            switch event {
            case .cached(let list): events.append("cached \(list.count)")
            case .merged(let page, let merge):
                events.append("merged \(page.number): +\(merge.inserted) ~\(merge.updated)" + (merge.replaced ? " replaced" : ""))
            case .appended(let page, let added): events.append("appended \(page.number): +\(added)")
            case .offline(let offline): events.append("offline \(offline.list.count)")
            case .finished(let end): events.append("finished \(end.reason), \(end.list?.count ?? 0) in the list")
            }
        }
        return events
    }

    func cursors(_ http: FakeHTTPClient) -> [String?] {
        http.bodies.map { FakeSampleCatalog.value("before", in: $0) }
    }

    @Test("cold: page 1 merged, the rest appended, each page stored with its checkpoint")
    func cold() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let http = FakeSampleCatalog(count: 12).client()
        let log = LogRecorder()
        let sync = try sync(http, store, log: log)
        #expect(try await run(sync) == ["merged 1: +5 ~0", "appended 2: +5", "appended 3: +2", "finished endMarker, 12 in the list"])
        let key = "Paris (sample at http://hotels.test/soap)"
        #expect(
            log.messages == [
                "info: \(key): page 1 merged: 5 new, 0 updated, 0 moved", "info: \(key): page 2 appended: 5 hotels, 5 new",
                "info: \(key): page 3 appended: 2 hotels, 2 new", "info: \(key): finished (endMarker) after 3 pages; 12 in the list",
            ])
        let list = try #require(try await store.cachedList(sync.key))
        #expect(list.isExhausted && list.checkpoint?.pagesReceived == 3)
        #expect(try await store.hotels(in: list).map(\.code) == (1...12).map { String(format: "H%04d", $0) })
    }

    @Test("warm: the cached list first, page 1 merged, then load more resumes where the last run stopped")
    func resumes() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let first = FakeSampleCatalog(count: 20).client()
        #expect(
            try await run(try sync(first, store, options: .init(pageSize: 5, maxPages: 2)))
                == ["merged 1: +5 ~0", "appended 2: +5", "finished maxPages, 10 in the list"])
        let second = FakeSampleCatalog(count: 20).client()
        #expect(
            try await run(try sync(second, store, options: .init(pageSize: 5)))
                == ["cached 10", "merged 1: +0 ~0", "appended 3: +5", "appended 4: +5", "finished endMarker, 20 in the list"])
        // Page 2 was not asked for again.
        #expect(cursors(second) == [nil, "1910", "1860"])
    }

    @Test("a first page that shares nothing with the cache replaces it, and paging starts over")
    func replaces() async throws {
        let store = try SQLiteHotelStore.inMemory()
        _ = try await run(try sync(FakeSampleCatalog(count: 10, prefix: "OLD").client(), store))
        let http = FakeSampleCatalog(count: 7, prefix: "NEW").client()
        #expect(
            try await run(try sync(http, store))
                == ["cached 10", "merged 1: +5 ~0 replaced", "appended 2: +2", "finished endMarker, 7 in the list"])
        #expect(cursors(http) == [nil, "1960"])
    }

    @Test("offline with a cache: the cached list stands in, with its banner; no cache: nothingCached; fresh required: staleRefused")
    func offline() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let fetchedAt = Date(timeIntervalSince1970: 1_000_000)
        _ = try await run(try sync(FakeSampleCatalog(count: 10).client(), store, now: fetchedAt))
        let down = FakeHTTPClient { _, _ in throw TransportError.unreachable("connection refused") }
        var events: [ListSyncEvent] = []
        for try await event in try sync(down, store) { events.append(event) }
        guard case .offline(let offline) = events.last else {
            Issue.record("no offline event: \(events)")
            return
        }
        #expect(offline.reason as? TransportError == .unreachable("connection refused"))
        #expect(offline.banner(now: fetchedAt.addingTimeInterval(3 * 3600)) == "offline: showing 10 hotels for Paris cached 3 h ago")
        #expect(events.count == 2)  // cached, then offline

        await #expect(throws: ListSyncError.self) {
            for try await _ in try sync(down, try SQLiteHotelStore.inMemory()) {}
        }
        await #expect {
            for try await _ in try sync(down, store, options: .init(pageSize: 5, servesCacheWhenOffline: false)) {}
        } throws: { error in
            if case .staleRefused = error as? ListSyncError { true } else { false }
        }
    }

    @Test("cache only: the cached list with no request at all")
    func cacheOnly() async throws {
        let store = try SQLiteHotelStore.inMemory()
        _ = try await run(try sync(FakeSampleCatalog(count: 10).client(), store))
        let http = FakeSampleCatalog(count: 10).client()
        #expect(try await run(try sync(http, store, options: .init(pageSize: 5, cacheOnly: true))) == ["cached 10", "offline 10"])
        #expect(http.requests.isEmpty)
    }

    @Test("a failed later page keeps the pages before it; asking again retries that page, not the ones before")
    func laterPageFails() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let catalog = FakeSampleCatalog(count: 12)
        let http = FakeHTTPClient { request, index in
            // Page 2 fails, and so does its one retry.
            if index == 1 || index == 2 { throw TransportError.httpStatus(500, snippet: "") }
            return catalog.respond(to: String(decoding: request.body ?? [], as: UTF8.self))
        }
        let sync = try sync(http, store, options: .init(pageSize: 5))
        var iterator = sync.makeAsyncIterator()
        guard case .merged = try await iterator.next() else {
            Issue.record("page 1 was not merged")
            return
        }
        await #expect(throws: TransportError.self) { try await iterator.next() }
        #expect(try await store.cachedList(sync.key)?.count == 5)
        guard case .appended(let page, _) = try await iterator.next() else {
            Issue.record("page 2 was not retried")
            return
        }
        #expect(page.number == 2)
        #expect(cursors(http) == [nil, "1960", "1960", "1960"])
    }

    @Test("resume mode (a table's first page): the cached rows stand as page 1 and no page 1 is fetched")
    func resumeMode() async throws {
        let store = try SQLiteHotelStore.inMemory()
        _ = try await run(try sync(FakeSampleCatalog(count: 20).client(), store, options: .init(pageSize: 5, maxPages: 1)))
        let http = FakeSampleCatalog(count: 20).client()
        #expect(
            try await run(try sync(http, store, options: .init(pageSize: 5, maxPages: 1, firstPage: .resume)))
                == ["cached 5", "appended 2: +5", "finished maxPages, 10 in the list"])
        #expect(cursors(http) == ["1960"])
    }

    @Test("any GRDB writer works: a DatabaseQueue holds the same list")
    func anyWriter() async throws {
        let store = try SQLiteHotelStore(writer: DatabaseQueue())
        _ = try await run(try sync(FakeSampleCatalog(count: 7).client(), store))
        let records = try await store.writer.read { db in try HotelRecord.order(HotelRecord.Columns.position).fetchAll(db) }
        #expect(records.map(\.hotel.code) == (1...7).map { String(format: "H%04d", $0) })
    }
}
