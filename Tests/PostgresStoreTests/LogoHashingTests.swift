import Foundation
import Hotels
import Logos
import OfflineStore
import Runtime
import Testing
import TestSupport

/// `hotels match --logos` in the library: what it says of a logo it could not have.
@Suite("Matching with logos")
struct LogoHashingTests {
    @Test("a logo that cannot be had is counted and shown without its query (a supplier may sign its logo URLs), and the match goes on")
    func failureShownWithoutSecrets() async throws {
        let runtime = try await HotelRuntime.open(.init(store: .inMemory))
        let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)
        _ = try await runtime.storage.mergeFirstPage([Hotel(code: "A", name: "Hôtel Aurore", logoURL: "http://logos.test/a.png?token=SECRET123")],
                                                     into: ListKey(profile: "one", endpoint: "http://one.test/soap", city: "Paris"),
                                                     checkpoint: checkpoint, now: Date())
        let pipeline = LogoPipeline(configuration: .init(transport: try FakeLogoTransport(answersAtOnce: true, offline: true)))
        let summary = try await runtime.catalogue.match(logos: pipeline)
        #expect(summary.records == 1 && summary.properties == 1 && summary.logosHashed == 0 && summary.logosFailed == 1)
        let failure = try #require(summary.firstLogoFailure)
        #expect(failure.contains("logos.test/a.png") && !failure.contains("SECRET123"), "\(failure)")
        #expect(summary.description.hasSuffix("; 0 logos hashed, 1 could not be had"), "\(summary)")
        await runtime.close()
    }
}
