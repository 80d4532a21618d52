import Foundation
import Hotels
import Logos
import Matching
import OfflineStore

/// Matching through a store: every list's records grouped into properties,
/// kept in the same store with stable ids, reviewed and decided.
///
/// A run works scope by scope (a scope is the lists of one city, folded: see
/// ``/Matching/MatchSource/scope``): it reads the scope's records, matches
/// them with the people's decisions, gives the properties the ids of the
/// last run (``/Matching/PropertyIdentities``), and replaces the scope's
/// properties and review pairs in one transaction.
///
/// ```swift
/// let catalogue = Catalogue(storage: runtime.storage)
/// let summary = try await catalogue.match()
/// print(summary)   // 12,480 records from 5 suppliers → 3,210 properties (…); 41 pairs to review
/// ```
public struct Catalogue: Sendable {
    public let storage: any HotelStorage
    public let matcher: Matcher
    /// The clock of ids' creation and decisions.
    public let now: @Sendable () -> Date
    /// The cities' last runs, when this process matches a city more than once (a worker): a city kept there is matched
    /// again only where its records changed. Nil: every city is matched in full.
    public let memory: MatchMemory?

    public init(
        storage: any HotelStorage, configuration: MatchConfiguration = .default, memory: MatchMemory? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        matcher = Matcher(configuration: configuration)
        self.memory = memory
        self.now = now
    }

    /// Matches every list's records (only those of `cities`' lists when given), scope by scope.
    /// - Parameter cities: The cities whose lists are matched; empty: every list.
    /// - Parameter logos: First loads, through these pipelines, every logo the records name that has no hash yet, and
    ///   hashes it (`hotels match --logos`): pipelines with no filter (``HotelRuntime/originalLogos``), so the hash is of
    ///   the picture the supplier sent, each reaching only what its list's service may. Nil: the hashes already stored count.
    /// - Parameter full: Matches every scope, even one whose input is what its last run was made from
    ///   (``/Matching/ScopeFingerprint``), which is otherwise left as it is, with the same result.
    /// - Parameter progress: called after each scope, with the scopes done and their number.
    public func match(
        cities: [String] = [], logos: SupplierLogos? = nil, full: Bool = false, progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> CatalogueSummary {
        let wanted = Set(cities.map { MatchSource.scope(ofCity: $0, listID: 0) })
        let scopes = try await listsByScope().filter { wanted.isEmpty || wanted.contains($0.key) }
        guard !scopes.isEmpty else {
            let asked = cities.isEmpty ? "" : " of " + cities.joined(separator: ", ")
            throw CatalogueError(.nothingToMatch, "the store \(storage.location) holds no list\(asked) to match")
        }
        var summary = CatalogueSummary()
        // A full run also empties the scopes whose lists are all gone.
        let gone = cities.isEmpty ? Set(try await storage.propertyScopes()).subtracting(scopes.keys) : []
        // The largest scope first: its peak of memory then comes before the smaller scopes' leftovers.
        let size = scopes.mapValues { $0.reduce(0) { $0 + $1.count } }
        let order = scopes.keys.sorted { a, b in size[a] != size[b] ? size[a] ?? 0 > size[b] ?? 0 : a < b } + gone.sorted()
        // Read once for the whole run: each scope's new ids join the taken ones for the next.
        let decisions = try await storage.decisions()
        var taken = try await storage.takenPropertyIDs()
        for (done, scope) in order.enumerated() {
            let (scopeSummary, ids) = try await matchScope(
                scope, lists: scopes[scope] ?? [], decisions: decisions, taken: taken, hashingLogos: logos, full: full)
            summary.add(scopeSummary)
            taken.formUnion(ids)
            progress(done + 1, order.count)
        }
        return summary
    }

    /// After a list of `city` changed: matches its scope again when it has been matched before (its
    /// catalogue is in use), so the properties follow the lists; nil when it has not.
    public func rematch(city: String) async throws -> CatalogueSummary? {
        let scope = MatchSource.scope(ofCity: city, listID: 0)
        guard try await storage.propertyScopes().contains(scope) else { return nil }
        return try await matchScope(scope, lists: try await lists(inScope: scope))
    }

    /// Matches one scope's lists and stores the result in place of its last run's; a scope whose input is what its
    /// last run was made from is left as it is.
    @discardableResult
    public func matchScope(_ scope: String, lists: [CachedList]) async throws -> CatalogueSummary {
        try await matchScope(scope, lists: lists, decisions: try await storage.decisions(), taken: try await storage.takenPropertyIDs())
            .summary
    }

    /// The lists of one scope.
    public func lists(inScope scope: String) async throws -> [CachedList] {
        try await storage.allLists().filter { $0.matchScope == scope }
    }

    /// One scope matched with `decisions`, its new ids never one of `taken`; returns its summary and the ids it gave.
    /// Unless `full`, a scope whose input is what its last run was made from is left as it is, its summary the stamp's.
    private func matchScope(
        _ scope: String, lists: [CachedList], decisions: [PairDecision], taken: Set<String>,
        hashingLogos logos: SupplierLogos? = nil, full: Bool = false
    ) async throws -> (summary: CatalogueSummary, ids: [String]) {
        var records = try await records(of: lists)
        let hashed = if let logos { try await hashLogos(of: &records, through: logos) } else { LogoHashing.Outcome?.none }
        let fingerprint = ScopeFingerprint(records: records, decisions: decisions, configuration: matcher.configuration)
        var summary: CatalogueSummary
        var ids: [String] = []
        if !full, let stamped = try await storage.summaryIfUnchanged(scope: scope, fingerprint: fingerprint.description, at: now()),
            let unchanged = CatalogueSummary(unchangedSince: stamped)
        {
            summary = unchanged
        } else {
            let previous = try await storage.propertyIdentities(scope: scope)
            let outcome = try matched(
                consume records, scope: scope, fingerprint: fingerprint, decisions: decisions, previous: previous, taken: taken)
            let changes = try await storage.replaceProperties(outcome.match)
            summary = outcome.summary
            summary.propertiesWritten = changes.insertedProperties.count
            summary.propertiesDeleted = changes.deletedProperties.count
            summary.reviewPairsWritten = changes.insertedReviews.count
            ids = outcome.ids
        }
        if let hashed {
            summary.logosHashed = hashed.hashes.count
            summary.logosFailed = hashed.failed
            summary.firstLogoFailure = hashed.firstFailure
        }
        return (summary, ids)
    }

    /// A scope's records matched into what the store keeps. Synchronous, so that
    /// the records, their prepared forms and the scored pairs are gone before the
    /// store writes: at a million records they are most of the run's memory.
    private func matched(
        _ records: consuming [MatchRecord], scope: String, fingerprint: ScopeFingerprint, decisions: [PairDecision],
        previous: [PropertyIdentity], taken: Set<String>
    ) throws -> (match: ScopeMatch, summary: CatalogueSummary, ids: [String]) {
        let lastRun = memory?.previous(of: scope)
        let prepared = matcher.prepare(records, reusing: lastRun?.prepared, keepingInputs: memory != nil)
        // Only the properties, the pairs to review and the blocking's counts outlive the match, unless the memory keeps it.
        let match = {
            let result = lastRun.flatMap { prepared.rematch(since: $0, decisions: decisions) } ?? prepared.match(decisions: decisions)
            memory?.keep(PreviousMatch(prepared: prepared, result: result, decisions: decisions), of: scope)
            return (
                properties: result.properties, reviewPairs: result.reviewPairs, candidatePairs: result.blocking.candidatePairs,
                matchedAgain: result.recordsMatchedAgain
            )
        }()
        FreedMemory.returnToSystem()
        let date = now()
        let memberKeys = match.properties.map(\.members)
        let identities = PropertyIdentities(assigning: memberKeys, scope: scope, previous: previous, taken: taken, now: date)
        let builder = PropertyBuilder(prepared: prepared)
        let properties = ParallelChunks.map(match.properties.count, chunkSize: 4_096) { range in
            range.map { index in
                builder.property(match.properties[index], id: identities.ids[index], scope: scope, createdAt: identities.createdAt[index])
            }
        }
        let reviews = match.reviewPairs.map { explanation in
            ReviewPair(
                scope: scope, first: builder.member(explanation.pair.first), second: builder.member(explanation.pair.second),
                score: explanation.score, explanation: explanation.mappingEndpoints(builder.shown))
        }
        var summary = CatalogueSummary(
            records: prepared.records, properties: properties, reviews: reviews.count,
            candidatePairs: match.candidatePairs)
        let stored = ScopeMatch(
            scope: scope, properties: properties, memberKeys: memberKeys, retired: identities.retired, reviews: reviews, matchedAt: date,
            stamp: MatchStamp(fingerprint: fingerprint.description, summary: try summary.stamped()))
        summary.recordsMatchedAgain = match.matchedAgain
        return (stored, summary, identities.ids)
    }

    /// Loads and hashes the logos the records name that have no hash, keeps the hashes in the store, and gives them to the records.
    private func hashLogos(of records: inout [MatchRecord], through logos: SupplierLogos) async throws -> LogoHashing.Outcome {
        // Each logo through the pipeline of the first list that names it.
        var missing: [String: String] = [:]
        for record in records where record.logoHash == nil {
            if let url = record.hotel.logoURL, missing[url] == nil { missing[url] = record.source.endpoint }
        }
        var work: [(url: String, pipeline: LogoPipeline)] = []
        for (url, endpoint) in missing.sorted(by: { $0.key < $1.key }) { work.append((url, await logos.pipeline(forServiceAt: endpoint))) }
        let outcome = await LogoHashing(parallel: work.first?.pipeline.configuration.downloadConcurrency ?? 1).hash(work)
        // The pipelines note each logo's index entry in the background: the hash joins the entry once it is there.
        await logos.indexWritten()
        try await storage.storeLogoHashes(outcome.hashes)
        for index in records.indices {
            if records[index].logoHash == nil, let url = records[index].hotel.logoURL { records[index].logoHash = outcome.hashes[url] }
        }
        return outcome
    }

    /// Every signal of a pair of records, as the run that matches their scopes scores it.
    public func explain(_ first: RecordReference, _ second: RecordReference) async throws -> PairExplanation {
        let (pair, prepared, _) = try await resolve(first, second)
        // Both keys are records of `prepared`: resolve found them there.
        guard let explanation = prepared.explain(pair) else {
            throw CatalogueError(.unknownRecord, "\(first) or \(second) is not in the store")
        }
        return explanation.mappingEndpoints(ShownURL.of)
    }

    /// Records a person's decision, then matches the records' scopes again so the catalogue follows it at once.
    /// - Returns: the properties holding the two records afterwards.
    public func decide(_ first: RecordReference, _ second: RecordReference, _ verdict: PairDecision.Verdict) async throws
        -> (first: CatalogueProperty?, second: CatalogueProperty?)
    {
        let (pair, _, scopes) = try await resolve(first, second)
        if verdict == .same && scopes.count > 1 {
            throw CatalogueError(.acrossScopes, "\(first) and \(second) are in lists of two cities, which are matched apart")
        }
        try await storage.recordDecision(PairDecision(pair: pair, verdict: verdict), at: now())
        let lists = try await listsByScope()
        for scope in scopes.sorted() { try await matchScope(scope, lists: lists[scope] ?? []) }
        return (try await storage.property(holding: pair.first), try await storage.property(holding: pair.second))
    }

    /// The stored pairs to review, best score first; only `city`'s when given.
    public func reviews(city: String? = nil) async throws -> [ReviewPair] {
        try await storage.reviewPairs(scope: city.map { MatchSource.scope(ofCity: $0, listID: 0) })
    }

    /// The stored property with `id`; a retired id is followed to its successor.
    public func property(id: String) async throws -> CatalogueProperty {
        var seen = Set<String>()
        var current = id
        while seen.insert(current).inserted {
            if let property = try await storage.property(id: current) { return property }
            guard let successor = try await storage.retiredPropertyID(current)?.successor else { break }
            current = successor
        }
        throw CatalogueError(.unknownProperty, "no property has the id \(id)")
    }

    /// The records' pair, their scopes' records prepared, and the scopes.
    private func resolve(_ first: RecordReference, _ second: RecordReference) async throws -> (RecordPair, PreparedRecords, Set<String>) {
        var lists: [CachedList] = []
        for reference in [first, second] {
            guard let list = try await storage.list(id: reference.list) else {
                throw CatalogueError(.unknownList, "the store \(storage.location) has no list \(reference.list) (in \(reference))")
            }
            lists.append(list)
        }
        let scopes = Set(lists.map(\.matchScope))
        let byScope = try await listsByScope()
        let records = try await records(of: scopes.flatMap { byScope[$0] ?? [] })
        var keys: [RecordKey] = []
        for (reference, list) in zip([first, second], lists) {
            guard records.contains(where: { $0.source.listID == list.id && $0.hotel.code == reference.code }) else {
                throw CatalogueError(.unknownRecord, "list \(list.id) (\(list.key)) has no hotel with the code \(reference.code)")
            }
            keys.append(RecordKey(profile: list.key.profile, endpoint: list.key.endpoint, code: reference.code))
        }
        guard let pair = RecordPair(keys[0], keys[1]) else {
            throw CatalogueError(.sameRecord, "\(first) and \(second) are one record (one supplier's code)")
        }
        return (pair, matcher.prepare(records), scopes)
    }

    /// Every list, by scope.
    private func listsByScope() async throws -> [String: [CachedList]] {
        Dictionary(grouping: try await storage.allLists(), by: \.matchScope)
    }

    /// The lists' rows as records, with their logos' stored hashes, in list order. Lists are read a few at a time,
    /// each on its own connection: reading and decoding rows is most of the time of a run whose cities have not changed.
    private func records(of lists: [CachedList]) async throws -> [MatchRecord] {
        let hashes = try await storage.logoHashes(lists: lists.map(\.id))
        var parts = await HotelRuntime.forEach(
            lists.sorted { $0.id < $1.id }, parallel: min(4, ProcessInfo.processInfo.activeProcessorCount)
        ) { list in
            do {
                return Result<[MatchRecord], any Error>.success(try await self.records(of: list, logoHashes: hashes))
            } catch {
                return .failure(error)
            }
        }
        // Each list's records go as they join the city's: at Paris's size, both at once are 60 MB more at the peak.
        var records: [MatchRecord] = []
        records.reserveCapacity(parts.reduce(0) { $0 + ((try? $1.get().count) ?? 0) })
        for index in parts.indices {
            records += try parts[index].get()
            parts[index] = .success([])
        }
        return records
    }

    /// One list's rows as records, read a batch at a time.
    private func records(of list: CachedList, logoHashes hashes: [String: UInt64]) async throws -> [MatchRecord] {
        let source = MatchSource(listID: list.id, profile: list.key.profile, endpoint: list.key.endpoint, listCity: list.key.city)
        var records: [MatchRecord] = []
        records.reserveCapacity(list.count)
        try await storage.forEachBatch(in: list, batchSize: 10_000) { batch in
            records += batch.map { MatchRecord(hotel: $0, source: source, logoHash: $0.logoURL.flatMap { hashes[$0] }) }
        }
        return records
    }
}

/// Stored properties from a clustering: a name, a city and a centre each.
struct PropertyBuilder {
    let prepared: PreparedRecords
    /// Each supplier's endpoint as shown: parsed once, not once per member.
    private let shownEndpoints: [String: String]

    init(prepared: PreparedRecords) {
        self.prepared = prepared
        let endpoints = Set(prepared.records.map(\.key.supplier.endpoint))
        shownEndpoints = Dictionary(uniqueKeysWithValues: endpoints.map { ($0, ShownURL.of($0)) })
    }

    func member(_ key: RecordKey) -> CatalogueMember {
        member(key, prepared.record(key)?.record)
    }

    /// An endpoint as output shows it (``/OfflineStore/ShownURL``).
    func shown(_ endpoint: String) -> String {
        shownEndpoints[endpoint] ?? ShownURL.of(endpoint)
    }

    private func member(_ key: RecordKey, _ record: PreparedRecord?) -> CatalogueMember {
        CatalogueMember(
            list: record?.source.listID ?? 0, profile: key.supplier.profile, endpoint: shown(key.supplier.endpoint), code: key.code,
            name: record?.name)
    }

    func property(_ property: Property, id: String, scope: String, createdAt: Date) -> CatalogueProperty {
        let found = property.members.map { prepared.record($0) }
        let members = found.compactMap { $0?.record }
        let positions = found.compactMap { $0?.normalised.position }
        return CatalogueProperty(
            id: id, scope: scope,
            name: Self.mostGiven(members.compactMap(\.name)),
            city: Self.mostGiven(members.compactMap(\.city)) ?? members.first?.source.listCity,
            latitude: Self.median(positions.map(\.latitude)), longitude: Self.median(positions.map(\.longitude)),
            confidence: property.tier, members: zip(property.members, found).map { member($0, $1?.record) }, createdAt: createdAt)
    }

    /// The value most members give, trimmed; on a tie the longest (it says most), then the first in order.
    static func mostGiven(_ values: [String]) -> String? {
        let trimmed = values.map(trimmed).filter { !$0.isEmpty }
        var counts: [String: Int] = [:]
        for value in trimmed { counts[value, default: 0] += 1 }
        return trimmed.enumerated().max { a, b in
            let (countA, countB) = (counts[a.element] ?? 0, counts[b.element] ?? 0)
            if countA != countB { return countA < countB }
            if a.element.count != b.element.count { return a.element.count < b.element.count }
            return a.offset > b.offset
        }?.element
    }

    /// Most values need no trimming: only those that do go through Foundation.
    private static func trimmed(_ value: String) -> String {
        guard value.first?.isWhitespace == true || value.last?.isWhitespace == true else { return value }
        return value.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The middle value: one stray position moves a median less than a mean.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension CachedList {
    /// The scope the list's records are matched in: its city, folded (``/Matching/MatchSource/scope``).
    public var matchScope: String { MatchSource.scope(ofCity: key.city, listID: id) }
}
