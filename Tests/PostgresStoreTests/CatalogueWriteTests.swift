import Foundation
import GRDB
import Matching
import OfflineStore
import PostgresStore
import PostgresTestSupport
import Runtime
import TestSupport
import Testing

/// A run writes only the catalogue's rows that changed, on both stores, and
/// leaves what a write of every row would.
@Suite("Writing only what a run changed, on both backends", .closingStores)
struct CatalogueWriteTests {
    @Test(
        "a run over an unchanged city writes nothing; a refresh writes only the properties it changed",
        arguments: Backend.allCases)
    func onlyChangedRows(_ backend: Backend) async throws {
        let (store, sample, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend)
        let first = try await catalogue.match()
        #expect(first.propertiesWritten == 10 && first.propertiesDeleted == 0 && first.reviewPairsWritten == first.reviewPairs)
        let again = try await catalogue.match()
        #expect(again.propertiesWritten == 0 && again.propertiesDeleted == 0 && again.reviewPairsWritten == 0)

        try await sample.refetch(
            into: store, dropping: CatalogueStoreTests.Sample.dropped, newcomer: CatalogueStoreTests.Sample.newcomer)
        let refreshed = try await catalogue.match()
        // Zéta is new, the Marriott lost two members and the Pullman is gone: at least those, and not every property.
        #expect(refreshed.propertiesWritten >= 2 && refreshed.propertiesWritten < refreshed.properties)
        #expect(refreshed.propertiesDeleted >= 2 && refreshed.propertiesDeleted < 10)
    }

    @Test(
        "rows changed, gone, moved and new: the store then holds what a new store given only the second run holds",
        arguments: Backend.allCases)
    func storeAfterChanges(_ backend: Backend) async throws {
        let (source, _, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend)
        _ = try await catalogue.match()
        let properties = try await source.properties(PropertyQuery())
        let reviews = try await source.reviewPairs(scope: nil)
        try #require(properties.count == 10 && properties[2].members.count > 1 && reviews.count > 1)
        let before = Self.scopeMatch(properties, reviews: reviews)

        var changed = properties
        changed[1].name = "Renamed"
        // One member moves from the third property to the fourth; the first is gone; one is new.
        changed[3].members.append(changed[2].members.removeLast())
        changed[3].members.sort { ($0.profile, $0.endpoint, $0.code) < ($1.profile, $1.endpoint, $1.code) }
        changed.removeFirst()
        changed.append(
            CatalogueProperty(
                id: "PNEW", scope: "paris", name: "New", city: "Paris", latitude: nil, longitude: nil, confidence: .medium,
                members: [
                    CatalogueMember(list: 1, profile: "supplier9", endpoint: "https://supplier9.example/soap", code: "N1", name: "New")
                ],
                createdAt: Date(timeIntervalSince1970: 1_000)))
        var changedReviews = reviews
        changedReviews[0].score -= 1
        changedReviews.removeLast()
        let after = Self.scopeMatch(changed, reviews: changedReviews)

        let store = try await backend.makeStore()
        let written = try await store.replaceProperties(before)
        #expect(
            written.insertedProperties.count == 10 && written.deletedProperties.isEmpty && written.insertedReviews.count == reviews.count)
        let changes = try await store.replaceProperties(after)
        #expect(Set(changes.deletedProperties) == Set(properties[0...3].map(\.id)))
        #expect(Set(changes.insertedProperties.map { changed[$0].id }) == Set(properties[1...3].map(\.id) + ["PNEW"]))
        #expect(changes.insertedReviews == [0] && changes.deletedReviews.count == 2)

        let fresh = try await backend.makeStore()
        try await fresh.replaceProperties(after)
        let held = try await store.properties(PropertyQuery())
        #expect(held == changed.sorted { $0.id < $1.id })
        #expect(held == (try await fresh.properties(PropertyQuery())))
        #expect(try await store.reviewPairs(scope: nil) == (try await fresh.reviewPairs(scope: nil)))
        #expect(Set(try await store.reviewPairs(scope: nil)) == Set(changedReviews))
        let again = try await store.replaceProperties(after)
        #expect(again == CatalogueChanges(deletedProperties: [], insertedProperties: [], deletedReviews: [], insertedReviews: []))
    }

    @Test(
        "a record listed in two cities belongs to the property of the city matched last, even when that run wrote no row",
        arguments: Backend.allCases)
    func cityMatchedLast(_ backend: Backend) async throws {
        let (store, _, _) = try await CatalogueStoreTests.sampleCatalogue(backend, cities: ["Paris", "Lyon"])
        func catalogue(at seconds: Double) -> Catalogue { Catalogue(storage: store, now: { Date(timeIntervalSince1970: seconds) }) }
        let key = RecordKey(profile: "supplier3", endpoint: "https://supplier3.example/soap", code: "77812")
        _ = try await catalogue(at: 1_000).match(cities: ["Paris"])
        _ = try await catalogue(at: 2_000).match(cities: ["Lyon"])
        #expect(try await store.property(holding: key)?.scope == "lyon")
        let unchanged = try await catalogue(at: 3_000).match(cities: ["Paris"])
        #expect(unchanged.propertiesWritten == 0 && unchanged.propertiesDeleted == 0)
        #expect(try await store.property(holding: key)?.scope == "paris")
    }

    @Test("pairs to review of one score are listed in pair order, whichever run wrote each", arguments: Backend.allCases)
    func reviewPairOrder(_ backend: Backend) async throws {
        let (source, _, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend)
        _ = try await catalogue.match()
        let properties = try await source.properties(PropertyQuery())
        var reviews = try await source.reviewPairs(scope: nil)
        try #require(reviews.count >= 3)
        for index in reviews.indices { reviews[index].score = 1 }
        let inPairOrder = reviews.sorted { $0.explanation.pair < $1.explanation.pair }
        let store = try await backend.makeStore()
        // The last pair written by one run, the others by the next.
        try await store.replaceProperties(Self.scopeMatch(properties, reviews: [inPairOrder[inPairOrder.count - 1]]))
        let changes = try await store.replaceProperties(Self.scopeMatch(properties, reviews: inPairOrder.reversed()))
        #expect(changes.insertedReviews.count == inPairOrder.count - 1)
        #expect(try await store.reviewPairs(scope: nil) == inPairOrder)
    }

    @Test("thousands of pairs to review, more than one statement takes, are all stored, best score first", arguments: Backend.allCases)
    func manyReviews(_ backend: Backend) async throws {
        let (source, _, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend)
        _ = try await catalogue.match()
        let properties = try await source.properties(PropertyQuery())
        let sample = try #require(try await source.reviewPairs(scope: nil).first)
        let reviews = (0..<4_100).map { index in
            var review = sample
            review.score = Double(4_100 - index)
            return review
        }
        let store = try await backend.makeStore()
        let changes = try await store.replaceProperties(Self.scopeMatch(properties, reviews: reviews))
        #expect(changes.insertedReviews.count == 4_100)
        #expect(try await store.reviewPairs(scope: nil) == reviews)
    }

    @Test(
        "a catalogue an older HotelKit wrote (SQLite), or one from before schema 12 (PostgreSQL), without digests or order keys: every such row is written again",
        arguments: Backend.allCases)
    func olderRows(_ backend: Backend) async throws {
        let (store, _, catalogue) = try await CatalogueStoreTests.sampleCatalogue(backend)
        let first = try await catalogue.match()
        let expected = try await store.reviewPairs(scope: nil)
        try await Self.forgetHalf(in: store)
        let again = try await catalogue.match()
        #expect(again.propertiesWritten == first.properties / 2 && again.propertiesWritten == again.propertiesDeleted)
        #expect(again.reviewPairsWritten == first.reviewPairs / 2)
        #expect(try await store.reviewPairs(scope: nil) == expected)
    }

    /// Half of the catalogue's properties without a digest, and half of its pairs to review without an order key.
    static func forgetHalf(in store: any HotelStorage) async throws {
        try await execute(
            """
            UPDATE properties SET digest = NULL WHERE rowid % 2 = 0;
            UPDATE match_reviews SET pairOrder = NULL WHERE rowid % 2 = 0;
            """,
            postgres: """
                UPDATE properties SET digest = NULL WHERE id IN (SELECT id FROM properties ORDER BY id LIMIT (SELECT count(*) / 2 FROM properties));
                UPDATE match_reviews SET pair_order = NULL
                WHERE ctid IN (SELECT ctid FROM match_reviews LIMIT (SELECT count(*) / 2 FROM match_reviews));
                """, in: store)
    }

    /// Statements run on the store's file or database, as a person's SQL would: `postgres`, when given, on PostgreSQL.
    static func execute(_ sql: String, postgres: String? = nil, in store: any HotelStorage) async throws {
        if let sqlite = store as? SQLiteHotelStore {
            try await sqlite.writer.write { db in try db.execute(sql: sql) }
        } else if let database = store as? PostgresHotelStore {
            _ = try await TestPostgres.shared().psql(postgres ?? sql, database: TestPostgres.database(in: database.database.location))
        } else {
            Issue.record("no store of either backend: \(type(of: store))")
        }
    }

    @Test(
        "SQLite: member rows that outlived their property (foreign keys turned off by a tool) do not join a new property of the same id; a city an older HotelKit matched last still counts as matched last"
    )
    func leftoversOfOtherWriters() async throws {
        let store = try SQLiteHotelStore(
            folder: FileManager.default.temporaryDirectory.appendingPathComponent("leftovers-\(UUID().uuidString)"))
        try await CatalogueStoreTests.Sample().store(into: store)
        _ = try await Catalogue(storage: store).match()
        var properties = try store.properties(PropertyQuery())
        let index = try #require(properties.firstIndex { $0.members.count > 2 })
        let orphaned = properties[index].id
        try await store.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DELETE FROM properties WHERE id = ?", arguments: [orphaned])
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        properties[index].members.removeLast()
        try store.replaceProperties(Self.scopeMatch(properties, reviews: []))
        #expect(try store.property(id: properties[index].id)?.members == properties[index].members)

        // An older HotelKit writes the rows' time of matching and not the city's.
        let key = RecordKey(profile: "supplier3", endpoint: "https://supplier3.example/soap", code: "77812")
        try await CatalogueStoreTests.Sample().store(into: store, city: "Lyon")
        _ = try await Catalogue(storage: store, now: { Date(timeIntervalSince1970: 1_000) }).match(cities: ["Paris"])
        _ = try await Catalogue(storage: store, now: { Date(timeIntervalSince1970: 2_000) }).match(cities: ["Lyon"])
        try await store.writer.write { db in try db.execute(sql: "UPDATE properties SET matchedAt = 3000 WHERE scope = 'paris'") }
        #expect(try store.property(holding: key)?.scope == "paris")
    }

    @Test("SQLite finds a pair to review to delete through an index, not by reading every pair of its city")
    func reviewDeleteIndexed() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let plan = try await store.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN DELETE FROM match_reviews WHERE scope = 'paris' AND digest = 1")
                .map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("USING INDEX match_reviews_by_digest (scope=? AND digest=?)") })
    }

    @Test("a property's digest is the same in every process and on every machine: a fixed property's is a known number")
    func stableDigest() {
        let property = CatalogueProperty(
            id: "P000000000001", scope: "paris", name: "Hôtel Zéta", city: "Paris", latitude: 48.8842, longitude: nil,
            confidence: .strict,
            members: [CatalogueMember(list: 3, profile: "supplier1", endpoint: "https://supplier1.example/soap", code: "Z1", name: nil)],
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        // FNV-1a of StableHash's encoding of these fields, as a few lines of Python compute it too.
        #expect(Self.scopeMatch([property], reviews: []).propertyDigests == [1_551_572_787_896_246_202])
    }

    @Test(
        "PostgreSQL: a write of a city whose lock another writer holds gives up at lock_timeout, then writes once the lock is let go",
        // Hangs are what it catches; a sanitized build on a loaded machine takes its time.
        .timeLimit(.minutes(10)))
    func heldScopeLock() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase() + "&lock_timeout=1"
        let database = TestPostgres.database(in: url)
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        let session = try await server.holdTransaction(
            "SELECT pg_advisory_xact_lock(hashtextextended('hotelkit catalogue paris', 0))", database: database)
        await #expect {
            try await store.replaceProperties(Self.scopeMatch([], reviews: []))
        } throws: { error in
            (error as? StoreError)?.kind == .server && (error as? StoreError)?.reason.contains("55P03") == true
        }
        try await server.endHeldTransaction(session, database: database)
        #expect(try await store.replaceProperties(Self.scopeMatch([], reviews: [])).insertedProperties.isEmpty)
        await store.database.close()
    }

    /// A run that would store these properties and pairs, as read back from a store.
    static func scopeMatch(_ properties: [CatalogueProperty], reviews: [ReviewPair]) -> ScopeMatch {
        ScopeMatch(
            scope: "paris", properties: properties,
            memberKeys: properties.map { $0.members.map { RecordKey(profile: $0.profile, endpoint: $0.endpoint, code: $0.code) } },
            retired: [], reviews: reviews, matchedAt: Date(timeIntervalSince1970: 2_000))
    }
}
