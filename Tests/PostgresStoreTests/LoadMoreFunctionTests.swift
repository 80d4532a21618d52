import Foundation
import Hotels
import OfflineStore
import PostgresTestSupport
import TestSupport
import Testing

@testable import PostgresStore

/// The load-more page goes through the function made from the field table, which each connection plans once.
@Suite(.closingStores) struct LoadMoreFunctionTests {
    let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Paris")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "100", usedCursors: ["100"], end: nil)

    @Test(
        "a plain load-more page takes the one-call path, with a field no row has sent as NULL and one only some rows have; with the function dropped, pages go the general way, and the next open makes it again"
    )
    func loadMoreThroughTheFunction() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        #expect(
            try await server.psql(
                "SELECT count(*) FROM pg_proc WHERE proname = '\(HotelStatements.standard.loadMore.name)'", database: database
            ).trimmed
                == "1")
        _ = try await store.mergeFirstPage([Hotel(code: "A", name: "First")], into: key, checkpoint: checkpoint, now: Date())
        // No row has a phone, a rating or references (their arrays go as NULL); only B has a name.
        let page = [Hotel(code: "B", name: "Second", latitude: 1.5), Hotel(code: "C", countryCode: "FR"), Hotel(code: "D")]
        // Not nil: the page was not refused and sent the general way.
        #expect(try await store.appendAtOnce(page, to: key, checkpoint: checkpoint, now: Date(), lease: nil) == 3)
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil) == [Hotel(code: "A", name: "First")] + page)
        #expect(list.count == 4)
        // Dropped while the store is open: the page goes the general way, nothing lost.
        _ = try await server.psql("DROP FUNCTION \(HotelStatements.standard.loadMore.name)", database: database)
        #expect(try await store.appendAtOnce([Hotel(code: "X")], to: key, checkpoint: checkpoint, now: Date(), lease: nil) == nil)
        #expect(try await store.appendPage([Hotel(code: "X")], to: key, checkpoint: checkpoint, now: Date()) == 1)
        #expect(try await store.hotels(in: list, limit: nil).map(\.code) == ["A", "B", "C", "D", "X"])
        await store.database.close()

        let reopened = PostgresHotelStore(database: try await ClosingStores.open(url))
        #expect(try await reopened.appendAtOnce([Hotel(code: "E")], to: key, checkpoint: checkpoint, now: Date(), lease: nil) == 1)
        await reopened.database.close()
    }
}
