import Foundation
import GRDB
import Matching
import OfflineStore
import PostgresStore
import PostgresTestSupport
import Runtime
import TestSupport
import Testing

/// A city whose lists, decisions and settings are what its last run was made
/// from is left as it is, on both stores; anything else is matched again.
@Suite("A city matched again only when its input changed, on both backends", .closingStores)
struct UnchangedScopeTests {
    @Test(
        "a second run leaves both cities as they are, with their counts; a refresh matches its city alone; full matches all to the same",
        arguments: Backend.allCases)
    func unchangedCities(_ backend: Backend) async throws {
        let (store, sample, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend, cities: ["Paris", "Lyon"])
        let first = try await catalogue.match()
        #expect(first.scopes == 2 && first.scopesUnchanged == 0 && first.propertiesWritten == first.properties)
        let again = try await catalogue.match()
        var expected = first
        (expected.propertiesWritten, expected.reviewPairsWritten, expected.scopesUnchanged) = (0, 0, 2)
        #expect(again == expected)
        #expect(again.description.hasSuffix("pairs to review; 2 cities unchanged since the last match"))

        try await sample.refetch(
            into: store, dropping: CatalogueStoreTests.Sample.dropped, newcomer: CatalogueStoreTests.Sample.newcomer)
        let refreshed = try await catalogue.match()
        #expect(refreshed.scopes == 2 && refreshed.scopesUnchanged == 1 && refreshed.suppliers == first.suppliers)
        #expect(refreshed.propertiesWritten > 0)
        let held = try await store.properties(PropertyQuery())
        let full = try await catalogue.match(full: true)
        #expect(full.scopesUnchanged == 0 && full.properties == refreshed.properties)
        #expect(full.propertiesWritten == 0 && full.propertiesDeleted == 0 && full.reviewPairsWritten == 0)
        #expect(try await store.properties(PropertyQuery()) == held)
    }

    @Test(
        "a decision about two of the city's records, or another configuration, matches it again; a decision about other records does not",
        arguments: Backend.allCases)
    func otherInput(_ backend: Backend) async throws {
        let (store, _, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend)
        _ = try await catalogue.match()
        let property = try #require(try await store.properties(PropertyQuery()).first { $0.members.count > 1 })
        let (a, b) = (property.members[0], property.members[1])
        let (keyA, keyB) = (
            RecordKey(profile: a.profile, endpoint: a.endpoint, code: a.code),
            RecordKey(profile: b.profile, endpoint: b.endpoint, code: b.code)
        )
        let elsewhere = RecordKey(profile: "supplier9", endpoint: "https://supplier9.example/soap", code: "NONE")
        try await store.recordDecision(try #require(PairDecision(keyA, elsewhere, .different)), at: Date())
        #expect(try await catalogue.match().scopesUnchanged == 1)

        try await store.recordDecision(try #require(PairDecision(keyA, keyB, .different)), at: Date())
        #expect(try await catalogue.match().scopesUnchanged == 0)
        #expect(try await store.property(holding: keyA)?.id != store.property(holding: keyB)?.id)
        #expect(try await catalogue.match().scopesUnchanged == 1)

        var configuration = MatchConfiguration.default
        configuration.thresholds.reviewAtLeast += 0.5
        #expect(try await Catalogue(storage: store, configuration: configuration).match().scopesUnchanged == 0)
    }

    @Test(
        "rows changed since the last run (a property or a pair to review deleted by hand; rows of an older HotelKit) match the city again, and make it whole",
        arguments: Backend.allCases)
    func rowsChangedSince(_ backend: Backend) async throws {
        let (store, _, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend)
        let first = try await catalogue.match()
        let held = try await store.properties(PropertyQuery())
        let reviews = try await store.reviewPairs(scope: nil)
        for edit in [
            "DELETE FROM properties WHERE id = '\(held[0].id)'",
            "DELETE FROM match_reviews WHERE digest = (SELECT min(digest) FROM match_reviews)",
        ] {
            try await CatalogueWriteTests.execute(edit, in: store)
            let mended = try await catalogue.match()
            #expect(mended.scopesUnchanged == 0 && mended.propertiesWritten + mended.reviewPairsWritten == 1, "after \(edit)")
            #expect(CatalogueStoreTests.groups(try await store.properties(PropertyQuery())) == CatalogueStoreTests.groups(held))
            #expect(try await store.reviewPairs(scope: nil) == reviews)
        }

        try await CatalogueWriteTests.forgetHalf(in: store)
        let rewritten = try await catalogue.match()
        #expect(rewritten.scopesUnchanged == 0 && rewritten.propertiesWritten == first.properties / 2)
        #expect(try await catalogue.match().scopesUnchanged == 1)
    }

    @Test("PostgreSQL: a process of an older HotelKit that wrote the city after this one (its time of matching alone) matches it again")
    func olderWriterSince() async throws {
        let (store, _, catalogue) = try await CatalogueStoreTests.sampleCatalogue(.postgres)
        _ = try await catalogue.match()
        try await CatalogueWriteTests.execute("UPDATE match_scopes SET matched_at = matched_at + 1", in: store)
        #expect(try await catalogue.match().scopesUnchanged == 0)
        #expect(try await catalogue.match().scopesUnchanged == 1)
    }
}
