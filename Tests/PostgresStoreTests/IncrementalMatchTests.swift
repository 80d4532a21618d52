import Foundation
import Hotels
import Matching
import OfflineStore
import Runtime
import SupplierWorlds
import Testing

/// A city kept in a process's memory is matched again only where its records changed, on both stores, and the
/// store then holds what a full run makes.
@Suite("Incremental matching through a store, on both backends", .closingStores)
struct IncrementalMatchTests {
    /// Four suppliers' lists of one city of the matching tests' world, hard cases included.
    static let world = SupplierWorld(.matchingTests(hotels: 400, seed: 31), suppliers: 1...4)
    static let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)

    static func key(_ supplier: Int) -> ListKey {
        ListKey(profile: "supplier\(supplier)", endpoint: "https://supplier\(supplier).example/soap", city: "Paris")
    }

    /// Each supplier's list, changed by `edit` first. Its last hotel comes as the first page: for a refreshed list, a
    /// new hotel, and a first page that shares no row with the stored list replaces it, so the rows gone go.
    static func store(into store: any HotelStorage, edit: (Int, inout [Hotel]) -> Void = { _, _ in }) async throws {
        for supplier in 1...4 {
            var hotels = world.records.filter { $0.supplier == supplier }.map(\.hotel)
            edit(supplier, &hotels)
            let last = try #require(hotels.last)
            _ = try await store.mergeFirstPage([last], into: key(supplier), checkpoint: checkpoint, now: Date())
            _ = try await store.appendPage(Array(hotels.dropLast()), to: key(supplier), checkpoint: checkpoint, now: Date())
        }
    }

    /// Supplier 2's list refreshed: ten names edited, one position moved, eight rows gone, and two hotels new.
    static func refresh(_ supplier: Int, _ hotels: inout [Hotel]) {
        guard supplier == 2 else { return }
        for index in stride(from: 0, to: 100, by: 10) { hotels[index].name = (hotels[index].name ?? "") + " Opéra" }
        hotels[5].latitude = hotels[5].latitude.map { $0 + 0.002 }
        hotels.removeLast(8)
        hotels.append(
            Hotel(code: "NEW-1", name: "Hôtel Zéta Batignolles", address: "12 Rue des Dames", latitude: 48.8842, longitude: 2.3217))
        var twin = hotels[20]
        twin.code = "NEW-2"
        hotels.append(twin)
    }

    @Test(
        "a refresh that adds, removes and edits records is matched again from the last run kept in memory, to what a full run stores",
        arguments: Backend.allCases)
    func refreshMatchesAgainOnlyTheChange(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        try await Self.store(into: store)
        let memory = MatchMemory(recordLimit: 10_000, smallestCity: 0)
        let catalogue = Catalogue(storage: store, memory: memory)
        let first = try await catalogue.match()
        #expect(first.recordsMatchedAgain == nil && memory.kept.cities == 1 && memory.kept.records == first.records)

        try await Self.store(into: store, edit: Self.refresh)
        var refreshed = Self.world.records.filter { $0.supplier == 2 }.map(\.hotel)
        Self.refresh(2, &refreshed)
        let list = try #require(try await store.cachedList(Self.key(2)))
        #expect(Set(try await store.hotels(in: list, limit: nil).map(\.code)) == Set(refreshed.map(\.code)))
        let again = try await catalogue.match()
        let matchedAgain = try #require(again.recordsMatchedAgain)
        #expect(matchedAgain > 12 && matchedAgain < again.records / 2, "\(matchedAgain) of \(again.records) records matched again")
        #expect(again.propertiesWritten > 0 && again.propertiesDeleted > 0)
        #expect(again.description.contains("records matched again, the others' pairs kept"))

        // A process with no memory matches the city in full, and finds nothing to write.
        let held = try await store.properties(PropertyQuery())
        let reviews = try await store.reviewPairs(scope: nil)
        let full = try await Catalogue(storage: store).match(full: true)
        #expect(full.recordsMatchedAgain == nil)
        #expect(full.propertiesWritten == 0 && full.propertiesDeleted == 0 && full.reviewPairsWritten == 0)
        #expect(full.properties == again.properties && full.reviewPairs == again.reviewPairs)
        #expect(try await store.properties(PropertyQuery()) == held)
        #expect(try await store.reviewPairs(scope: nil) == reviews)
    }

    @Test("a decision about two of the city's records matches it in full, and keeps the new run")
    func decisionMatchesInFull() async throws {
        let store = try await Backend.sqlite.makeStore()
        try await Self.store(into: store)
        let memory = MatchMemory(recordLimit: 10_000, smallestCity: 0)
        let catalogue = Catalogue(storage: store, memory: memory)
        _ = try await catalogue.match()
        let property = try #require(try await store.properties(PropertyQuery()).first { $0.members.count > 1 })
        let (a, b) = (property.members[0], property.members[1])
        let pair = try #require(
            PairDecision(
                RecordKey(profile: a.profile, endpoint: a.endpoint, code: a.code),
                RecordKey(profile: b.profile, endpoint: b.endpoint, code: b.code),
                .different))
        try await store.recordDecision(pair, at: Date())
        let decided = try await catalogue.match()
        #expect(decided.recordsMatchedAgain == nil && decided.scopesUnchanged == 0)
        try await Self.store(into: store, edit: Self.refresh)
        #expect(try await catalogue.match().recordsMatchedAgain != nil)
    }

    @Test("a runtime's catalogue (a worker's match jobs) keeps its cities in the memory its configuration gives")
    func runtimeMemory() async throws {
        let store = try await Backend.sqlite.makeStore()
        try await Self.store(into: store)
        var configuration = HotelRuntime.Configuration(store: .inMemory)
        configuration.matchMemory = MatchMemory(recordLimit: 10_000, smallestCity: 0)
        let runtime = HotelRuntime(storage: store, configuration: configuration)
        _ = try await runtime.catalogue.match()
        try await Self.store(into: store, edit: Self.refresh)
        #expect(try await runtime.catalogue.match().recordsMatchedAgain != nil)
        #expect(try await HotelRuntime(storage: store).catalogue.match(full: true).recordsMatchedAgain == nil)
    }

    @Test("the memory keeps cities up to its records, forgetting the one used longest ago, and none smaller than its smallest")
    func memoryLimits() throws {
        let matcher = Matcher()
        func run(_ count: Int) -> PreviousMatch {
            let prepared = matcher.prepare(
                Self.world.records.prefix(count).map {
                    MatchRecord(
                        hotel: $0.hotel, source: MatchSource(listID: 1, profile: "s\($0.supplier)", endpoint: "e", listCity: "Paris"))
                })
            return PreviousMatch(prepared: prepared, result: prepared.match(), decisions: [])
        }
        let memory = MatchMemory(recordLimit: 100, smallestCity: 20)
        memory.keep(run(40), of: "a")
        memory.keep(run(40), of: "b")
        memory.keep(run(10), of: "small")
        #expect(memory.kept == (2, 80))
        _ = memory.previous(of: "a")
        memory.keep(run(50), of: "c")
        #expect(memory.previous(of: "b") == nil && memory.previous(of: "a") != nil && memory.kept == (2, 90))
        memory.keep(run(101), of: "a")
        #expect(memory.previous(of: "a") == nil && memory.kept == (1, 50))
    }
}
