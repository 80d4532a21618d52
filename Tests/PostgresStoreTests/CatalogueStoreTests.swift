import Foundation
import GRDB
import Hotels
import Matching
import OfflineStore
import PostgresTestSupport
import Runtime
import TestSupport
import Testing

/// The catalogue on both stores: `hotels match` over the lists, stable ids,
/// decisions, the review pairs, and bad references.
@Suite("The catalogue, on both backends", .closingStores)
struct CatalogueStoreTests {
    /// `Samples/Matching/paris.jsonl`: five suppliers' records of Paris hotels, each with the hotel it really is.
    struct Sample {
        struct Line: Decodable {
            var property: String
            var source: MatchSource
            var hotel: Hotel
        }

        let lines: [Line]

        init() throws {
            let text = try String(contentsOf: Samples.url("Matching/paris.jsonl"), encoding: .utf8)
            lines = try text.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        }

        /// Each supplier's records as one list of `city`; `endpoint` changes every supplier's endpoint.
        func store(into store: any HotelStorage, city: String = "Paris", endpoint: (String) -> String = { $0 }) async throws {
            for (key, hotels) in lists(endpoint: endpoint, city: city) {
                _ = try await store.mergeFirstPage(hotels, into: key, checkpoint: Self.checkpoint, now: Date())
            }
        }

        /// A hotel new to every supplier's list, and the codes gone from them (two of the Marriott's five, both of the Pullman's):
        /// the refresh both ``CatalogueStoreTests/refresh(_:)`` and `CatalogueWriteTests` make.
        static let newcomer = Hotel(
            code: "ZETA", name: "Hôtel Zéta Batignolles", address: "12 Rue des Dames", latitude: 48.8842, longitude: 2.3217)
        static let dropped: Set<String> = ["MC-PAR-CE", "PARMC", "PU-MTP", "4410"]

        /// Fetched again without the `dropped` codes: a first page of `newcomer` alone, sharing no row,
        /// replaces each list, and the rest follow as a load-more page, as a service that reordered its list would make it.
        func refetch(into store: any HotelStorage, dropping dropped: Set<String>, newcomer: Hotel) async throws {
            for (key, hotels) in lists(endpoint: { $0 }, city: "Paris") {
                _ = try await store.mergeFirstPage([newcomer], into: key, checkpoint: Self.checkpoint, now: Date())
                _ = try await store.appendPage(
                    hotels.filter { !dropped.contains($0.code) }, to: key, checkpoint: Self.checkpoint, now: Date())
            }
        }

        private static let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)

        private func lists(endpoint: (String) -> String, city: String) -> [(ListKey, [Hotel])] {
            Dictionary(grouping: lines, by: { $0.source.profile }).sorted(by: { $0.key < $1.key }).map { supplier, lines in
                (ListKey(profile: supplier, endpoint: endpoint(lines[0].source.endpoint), city: city), lines.map(\.hotel))
            }
        }

        /// The true properties, as sets of `profile/code`.
        var truth: Set<Set<String>> {
            Set(Dictionary(grouping: lines, by: \.property).values.map { Set($0.map { "\($0.source.profile)/\($0.hotel.code)" }) })
        }
    }

    /// A new store of `backend` holding the sample as one set of lists for each of `cities`, and its catalogue.
    static func sampleCatalogue(_ backend: Backend, cities: [String] = ["Paris"]) async throws -> (any HotelStorage, Sample, Catalogue) {
        let store = try await backend.makeStore()
        let sample = try Sample()
        for city in cities { try await sample.store(into: store, city: city) }
        return (store, sample, Catalogue(storage: store))
    }

    static func groups(_ properties: [CatalogueProperty]) -> Set<Set<String>> {
        Set(properties.map { Set($0.members.map { "\($0.profile)/\($0.code)" }) })
    }

    /// The reference of a sample record in `store`: its list's id and code.
    static func reference(_ profile: String, _ code: String, in store: any HotelStorage) async throws -> RecordReference {
        let list = try #require(try await store.allLists().first { $0.key.profile == profile })
        return RecordReference(list: list.id, code: code)
    }

    @Test(
        "hotels match groups five suppliers' lists as the truth does, stores the properties, and a second run keeps every id",
        arguments: Backend.allCases)
    func matchAndKeep(_ backend: Backend) async throws {
        let (store, sample, catalogue) = try await Self.sampleCatalogue(backend)
        let summary = try await catalogue.match()
        #expect(summary.records == 24 && summary.suppliers == 5 && summary.properties == 10 && summary.multiSupplierProperties == 10)
        #expect(
            summary.description
                == "24 records from 5 suppliers → 10 properties (10 with 2 or more suppliers); \(summary.reviewPairs) pairs to review")
        #expect(try await store.reviewPairs(scope: "paris").count == summary.reviewPairs)
        let first = try await store.properties(PropertyQuery())
        #expect(Self.groups(first) == sample.truth)
        let marriott = try #require(first.first { $0.members.contains { $0.code == "MC-PAR-CE" } })
        #expect(marriott.members.count == 5 && marriott.city == "Paris" && marriott.confidence != .low)
        #expect(marriott.latitude.map { abs($0 - 48.871) < 0.01 } == true && marriott.longitude.map { abs($0 - 2.303) < 0.01 } == true)

        _ = try await catalogue.match()
        let second = try await store.properties(PropertyQuery())
        #expect(second.map(\.id) == first.map(\.id) && second.map(\.createdAt) == first.map(\.createdAt))
        #expect(try await store.properties(PropertyQuery(city: "PARIS", minimumSuppliers: 5)).map(\.id) == [marriott.id])
        #expect(try await store.properties(PropertyQuery(city: "Lyon")).isEmpty)
        #expect(
            try await store.property(holding: RecordKey(profile: "supplier3", endpoint: "https://supplier3.example/soap", code: "77812"))?
                .id
                == marriott.id)
    }

    @Test(
        "a refresh that drops members keeps the ids while any member remains; a property whose members are all gone retires its id",
        arguments: Backend.allCases)
    func refresh(_ backend: Backend) async throws {
        let (store, sample, catalogue) = try await Self.sampleCatalogue(backend)
        _ = try await catalogue.match()
        let before = try await store.properties(PropertyQuery())
        let marriott = try #require(before.first { $0.members.contains { $0.code == "MC-PAR-CE" } })
        let pullman = try #require(before.first { $0.members.contains { $0.code == "PU-MTP" } })
        // Every supplier's list fetched again without two Marriott records and both Pullman ones, and with a new hotel.
        try await sample.refetch(into: store, dropping: Sample.dropped, newcomer: Sample.newcomer)
        _ = try await catalogue.match()
        let after = try await store.properties(PropertyQuery())
        #expect(try await catalogue.property(id: marriott.id).members.count == 3)
        #expect(after.count == before.count && !after.contains { $0.id == pullman.id })
        #expect(Set(after.map(\.id)).subtracting(before.map(\.id)).count == 1)
        #expect(after.first { $0.name == "Hôtel Zéta Batignolles" }?.members.count == 5)
        #expect(try await store.retiredPropertyID(pullman.id) == RetiredPropertyID(id: pullman.id, successor: nil))
        await #expect(throws: CatalogueError(.unknownProperty, "no property has the id \(pullman.id)")) {
            try await catalogue.property(id: pullman.id)
        }
    }

    @Test(
        "pairs to review of one score are listed city by city, whichever city was matched first",
        arguments: Backend.allCases)
    func reviewOrder(_ backend: Backend) async throws {
        // The same records as the lists of two cities: each pair to review has its twin, of the same score, in the other.
        let (_, _, catalogue) = try await Self.sampleCatalogue(backend, cities: ["Paris", "Lyon"])
        _ = try await catalogue.match(cities: ["Paris"])
        _ = try await catalogue.match(cities: ["Lyon"])
        let reviews = try await catalogue.reviews()
        #expect(!reviews.isEmpty && reviews.count % 2 == 0)
        #expect(Set(reviews.map(\.scope)) == ["lyon", "paris"])
        #expect(zip(reviews, reviews.dropFirst()).allSatisfy { $0.score > $1.score || ($0.score == $1.score && $0.scope <= $1.scope) })
    }

    @Test(
        "decide different splits a property and every later run honours it; decide same joins two and the older id stays; a merged id leads to its successor",
        arguments: Backend.allCases)
    func decisions(_ backend: Backend) async throws {
        let (store, _, catalogue) = try await Self.sampleCatalogue(backend)
        _ = try await catalogue.match()
        let bristolOne = try await Self.reference("supplier1", "BRI-1", in: store)
        let bristolTwo = try await Self.reference("supplier1", "BRI-2", in: store)
        let whole = try await catalogue.property(
            id: try #require(try await store.properties(PropertyQuery()).first { $0.members.contains { $0.code == "BRI-1" } }).id)
        #expect(whole.members.count == 3)

        let (one, two) = try await catalogue.decide(bristolOne, bristolTwo, .different)
        #expect(one?.id != two?.id && [one?.id, two?.id].contains(whole.id))
        // The part with two members (BRI-1 or BRI-2 with supplier2's BRISTOL) keeps the id.
        #expect(try await catalogue.property(id: whole.id).members.count == 2)
        _ = try await catalogue.match()
        let separate = [
            try await store.property(holding: RecordKey(profile: "supplier1", endpoint: "https://supplier1.example/soap", code: "BRI-1")),
            try await store.property(holding: RecordKey(profile: "supplier1", endpoint: "https://supplier1.example/soap", code: "BRI-2")),
        ]
        #expect(separate[0]?.id != separate[1]?.id)
        #expect(try await store.decisions().map(\.verdict) == [.different])

        // Two Grand Hôtels far apart: joined by a decision, one id stays and the other is retired to it.
        let opera = try await Self.reference("supplier1", "GH-OP", in: store)
        let vaugirard = try await Self.reference("supplier1", "GH-VA", in: store)
        let operaID = try #require(
            try await store.property(holding: RecordKey(profile: "supplier1", endpoint: "https://supplier1.example/soap", code: "GH-OP"))?
                .id)
        let vaugirardID = try #require(
            try await store.property(holding: RecordKey(profile: "supplier1", endpoint: "https://supplier1.example/soap", code: "GH-VA"))?
                .id)
        let (joined, same) = try await catalogue.decide(opera, vaugirard, .same)
        // The two join; each one's partner from supplier2 is far from the other, so at most one follows (no chaining).
        #expect(joined?.id == same?.id && Set(joined?.members.map(\.code) ?? []).isSuperset(of: ["GH-OP", "GH-VA"]))
        let kept = try #require(joined?.id)
        #expect([operaID, vaugirardID].contains(kept))
        let retired = kept == operaID ? vaugirardID : operaID
        #expect(try await store.retiredPropertyID(retired)?.successor == kept)
        #expect(try await catalogue.property(id: retired).id == kept)
        // A later decision about the same pair replaces the earlier one.
        _ = try await catalogue.decide(opera, vaugirard, .different)
        let decisions = try await store.decisions()
        #expect(decisions.count == 2 && !decisions.contains { $0.verdict == .same })
    }

    @Test(
        "explain prints every signal; bad references say what is wrong: no such list, no such code, one record twice, not LIST:CODE; an empty store has nothing to match",
        arguments: Backend.allCases)
    func explainAndBadReferences(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let catalogue = Catalogue(storage: store)
        await #expect { try await catalogue.match() } throws: { ($0 as? CatalogueError)?.kind == .nothingToMatch }
        try await Sample().store(into: store)
        let a = try await Self.reference("supplier1", "IB-GDN", in: store)
        let b = try await Self.reference("supplier1", "IS-GDN", in: store)
        let explanation = try await catalogue.explain(a, b)
        #expect(explanation.signals.count == Signal.allCases.count && explanation.decision != .match)
        #expect(explanation.description.contains("Ibis Styles Paris Gare du Nord"))
        for (first, second, kind) in [
            (RecordReference(list: 99, code: "X"), b, CatalogueError.Kind.unknownList),
            (RecordReference(list: a.list, code: "NOPE"), b, .unknownRecord), (a, a, .sameRecord),
        ] {
            await #expect { try await catalogue.decide(first, second, .same) } throws: { ($0 as? CatalogueError)?.kind == kind }
        }
        #expect(throws: CatalogueError.self) { try RecordReference(parsing: "PAR1234") }
        #expect(try RecordReference(parsing: "3:A:B") == RecordReference(list: 3, code: "A:B"))
        // Nothing was stored by the refused decisions.
        #expect(try await store.decisions().isEmpty)
    }

    @Test(
        "a credential in a list's endpoint never reaches a property's members, a review pair or an explanation", arguments: Backend.allCases
    )
    func noSecrets(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await Sample().store(into: store, endpoint: { $0 + "?apikey=s3cret-token" })
        let catalogue = Catalogue(storage: store)
        _ = try await catalogue.match()
        let properties = try await store.properties(PropertyQuery())
        #expect(!properties.isEmpty && !properties.contains { $0.jsonLine.contains("s3cret") })
        #expect(properties[0].members[0].endpoint.hasSuffix("?apikey=…"))
        let reviews = try await catalogue.reviews()
        #expect(!reviews.contains { String(describing: $0).contains("s3cret") })
        let a = try await Self.reference("supplier1", "IB-GDN", in: store)
        let b = try await Self.reference("supplier2", "2231", in: store)
        let explained = try await catalogue.explain(a, b)
        #expect(!String(describing: explained.pair.first).contains("s3cret") && !explained.pair.first.supplier.endpoint.contains("s3cret"))
    }

    @Test(
        "a SQLite file whose properties were deleted without their members (a tool that runs SQLite without foreign keys) still matches, every record in one property"
    )
    func orphanedMembers() async throws {
        let store = try SQLiteHotelStore(
            folder: FileManager.default.temporaryDirectory.appendingPathComponent("orphans-\(UUID().uuidString)"))
        try await Sample().store(into: store)
        let catalogue = Catalogue(storage: store)
        _ = try await catalogue.match()
        try await store.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DELETE FROM properties")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        #expect(try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM property_members") } == 24)
        let summary = try await catalogue.match()
        #expect(summary.properties == 10)
        #expect(try store.properties(PropertyQuery()).reduce(0) { $0 + $1.members.count } == 24)
    }
}
