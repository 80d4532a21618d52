import Foundation
import Hotels
import Imaging
import Logos
import OfflineStore
import PostgresStore
import PostgresTestSupport
import Runtime
import TestSupport
import Testing

/// `hotels match --logos` in the library: what it says of a logo it could not have.
@Suite("Matching with logos", .closingStores)
struct LogoHashingTests {
    @Test("a logo that cannot be had is counted and shown without its query (a supplier may sign its logo URLs), and the match goes on")
    func failureShownWithoutSecrets() async throws {
        let runtime = try await HotelRuntime.open(.init(store: .inMemory))
        let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)
        _ = try await runtime.storage.mergeFirstPage(
            [Hotel(code: "A", name: "Hôtel Aurore", logoURL: "http://logos.test/a.png?token=SECRET123")],
            into: ListKey(profile: "one", endpoint: "http://one.test/soap", city: "Paris"),
            checkpoint: checkpoint, now: Date())
        let pipeline = LogoPipeline(configuration: .init(transport: try FakeLogoTransport(answersAtOnce: true, offline: true)))
        let summary = try await runtime.catalogue.match(logos: SupplierLogos(publicOnly: pipeline, anyAddress: pipeline))
        #expect(summary.records == 1 && summary.properties == 1 && summary.logosHashed == 0 && summary.logosFailed == 1)
        let failure = try #require(summary.firstLogoFailure)
        #expect(failure.contains("logos.test/a.png") && !failure.contains("SECRET123"), "\(failure)")
        #expect(summary.description.hasSuffix("; 0 logos hashed, 1 could not be had"), "\(summary)")
        await runtime.close()
    }

    @Test(
        "a logo's hash stays while its bytes do, for every filter chain's entry, and goes when other bytes are downloaded",
        arguments: Backend.allCases)
    func hashFollowsTheBytes(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let url = "http://logos.test/a.png"
        let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)
        _ = try await store.mergeFirstPage(
            [Hotel(code: "A", name: "Hôtel Aurore", logoURL: url)],
            into: ListKey(profile: "one", endpoint: "http://one.test/soap", city: "Paris"), checkpoint: checkpoint, now: Date())
        let list = try #require(try await store.allLists().first)
        func entry(filter: String = "", bytes: Int, etag: String?) -> ImageIndexEntry {
            ImageIndexEntry(url: url, filter: filter, file: "", bytes: bytes, etag: etag, data: [UInt8](repeating: 1, count: bytes))
        }
        try await store.noteImage(entry(bytes: 10, etag: "\"a\""))
        try await store.noteImage(entry(filter: "resize:8x8:fit", bytes: 4, etag: "\"a\""))
        try await store.storeLogoHashes([url: 0xFEED_F00D_0000_0001])
        #expect(try await store.logoHashes(lists: [list.id]) == [url: 0xFEED_F00D_0000_0001])
        // The same bytes again (a max-age ran out, the server sent them whole): the hash holds.
        try await store.noteImage(entry(bytes: 10, etag: "\"a\""))
        #expect(try await store.logoHashes(lists: [list.id]) == [url: 0xFEED_F00D_0000_0001])
        // Another picture: no entry of that URL keeps the old hash.
        try await store.noteImage(entry(bytes: 12, etag: "\"b\""))
        #expect(try await store.logoHashes(lists: [list.id]).isEmpty)
        await (store as? PostgresHotelStore)?.database.close()
    }
}
