/// Records after the first two stages, normalisation and learning term
/// frequencies: ready to block, score, explain and cluster.
///
/// Everything here depends on the records alone, in key order, never on the
/// order they came in. Explaining a pair needs the same frequencies the
/// pair was scored with, so a later `hotels match explain` prepares the
/// same records and asks ``explain(_:)``.
public struct PreparedRecords: Sendable {
    public let configuration: MatchConfiguration
    /// One record per key, in key order (``RecordKey``'s `<`: the clusterer relies on it).
    public let records: [PreparedRecord]
    /// ``records``' fields as compared, in the same order.
    public let normalised: [Normalised]
    public let statistics: TokenStatistics
    /// Records left out because a record with the same key (the same
    /// supplier and code, from another list) came first, by list id.
    public let duplicates: [MatchRecord]
    let scorer: PairScorer
    /// Each token's tokens one typo away, as blocking pairs them (``CandidateBlocker/typoNeighbours(_:)``).
    let typos: [[TokenID]]
    /// Each key's position in ``records``.
    let index: [RecordKey: Int]
    /// The phones, catalogue codes and logos too many records carry, as normalisation found them.
    let shared: SharedIdentifiers
    /// The records as given, in the order of ``records``: kept only when asked, so that a later run may take over the
    /// normalised fields of those that did not change.
    let inputs: [MatchRecord]?
    /// Records whose normalised fields were taken over from a previous run's (``Matcher/prepare(_:reusing:keepingInputs:)``).
    public let reusedRecords: Int

    /// Takes the records over (`consuming`): at a million records, a second array of them is a tenth of the run's memory.
    /// - Parameters:
    ///   - previous: a run whose records, when unchanged, keep their normalised fields (``RecordNormaliser/normalise(_:reusing:)``).
    ///   - keepingInputs: keeps the records as given (``inputs``), for a later run to reuse this one.
    init(
        _ input: consuming [MatchRecord], configuration: MatchConfiguration, reusing previous: PreparedRecords? = nil,
        keepingInputs: Bool = false
    ) {
        // What an earlier match in this process freed, before this one's records are kept.
        FreedMemory.returnToSystem()
        self.configuration = configuration
        // Key order, suppliers by rank: sorting indices by numbers first moves and compares far less than sorting records by strings.
        let supplierRanks = Dictionary(uniqueKeysWithValues: Set(input.map(\.key.supplier)).sorted().enumerated().map { ($1, $0) })
        let ranks = input.map { supplierRanks[$0.key.supplier] ?? 0 }
        let order = input.indices.sorted { i, j in
            if ranks[i] != ranks[j] { return ranks[i] < ranks[j] }
            if input[i].key.code != input[j].key.code { return input[i].key.code < input[j].key.code }
            if input[i].source.listID != input[j].source.listID { return input[i].source.listID < input[j].source.listID }
            return (input[i].hotel.name ?? "", input[i].hotel.address ?? "") < (input[j].hotel.name ?? "", input[j].hotel.address ?? "")
        }
        var kept: [MatchRecord] = []
        kept.reserveCapacity(order.count)
        var duplicates: [MatchRecord] = []
        for index in order {
            if kept.last?.key == input[index].key { duplicates.append(input[index]) } else { kept.append(input[index]) }
        }
        input = []
        self.duplicates = duplicates
        index = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1.key, $0) })

        let (normalised, shared, reused) = RecordNormaliser(configuration: configuration.normalisation).normalise(
            kept, reusing: previous)
        self.normalised = normalised
        self.shared = shared
        reusedRecords = reused
        records = kept.map(PreparedRecord.init)
        inputs = keepingInputs ? kept : nil
        kept = []
        FreedMemory.returnToSystem()
        let (statistics, nameTokens) = TokenStatistics.learn(
            names: normalised.map { $0.name?.tokens ?? [] },
            positions: normalised.map(\.position),
            suppliers: records.map(\.key.supplier),
            identityKeys: normalised.map(Self.identityKeys),
            configuration: configuration.frequencies)
        self.statistics = statistics
        typos = CandidateBlocker(configuration: configuration.blocking).typoNeighbours(statistics)
        scorer = PairScorer(
            records: normalised, nameTokens: nameTokens, statistics: statistics, model: configuration.model,
            distinctiveBits: configuration.frequencies.distinctiveBits)
    }

    /// A record's phone and street address, as keys: what tells one supplier's two records of one name apart.
    private static func identityKeys(_ record: Normalised) -> [String] {
        var keys: [String] = []
        if let phone = record.phone { keys.append("phone \(RecordNormaliser.phoneKey(phone))") }
        if let address = record.address, let number = address.houseNumber, !address.streetTokens.isEmpty {
            keys.append("address \(number) \(address.streetTokens.joined(separator: " "))")
        }
        return keys
    }

    /// The keys of ``records``, in order.
    public var keys: [RecordKey] { records.map(\.key) }

    /// A record's fields as compared.
    public func normalised(_ key: RecordKey) -> Normalised? {
        index[key].map { normalised[$0] }
    }

    /// A record and its fields as compared, found once.
    public func record(_ key: RecordKey) -> (record: PreparedRecord, normalised: Normalised)? {
        index[key].map { (records[$0], normalised[$0]) }
    }

    /// The blocking stage's pairs.
    public func candidates() -> CandidatePairs { candidates(focus: nil) }

    /// The blocking stage's pairs; with `focus`, only those with a record in it. `grid`: ``gridNeighbours``, when the
    /// caller has them already.
    func candidates(focus: Focus?, grid: GridNeighbours? = nil) -> CandidatePairs {
        blocker.candidates(normalised, nameTokens: scorer.nameTokens, statistics: statistics, grid: grid ?? gridNeighbours, focus: focus)
    }

    var blocker: CandidateBlocker { CandidateBlocker(configuration: configuration.blocking) }

    /// The grid's neighbours of every record, as blocking finds them.
    var gridNeighbours: GridNeighbours {
        GridNeighbours(normalised, nameTokens: scorer.nameTokens, typos: typos, configuration: configuration.blocking)
    }

    /// The candidate pairs as record keys, in order.
    public func pairs(of candidates: CandidatePairs) -> [RecordPair] {
        candidates.keys.map { key in
            let pair = IndexPair.indices(key)
            return RecordPair(distinct: records[pair.first].key, records[pair.second].key)
        }
    }

    /// Every candidate pair's score; with `atLeast`, only those scoring that much.
    public func score(_ candidates: CandidatePairs, atLeast minimum: Double = -.infinity) -> [ScoredPair] {
        let keys = candidates.keys
        return ParallelChunks.map(keys.count, chunkSize: 16_384) { range in
            keys[range].compactMap { key in
                let pair = IndexPair.indices(key)
                let comparison = scorer.compare(pair.first, pair.second)
                let score = scorer.score(comparison)
                guard score >= minimum else { return nil }
                return scoredPair(pair.first, pair.second, comparison, score)
            }
        }
    }

    /// Any pair's score, candidate or not; nil when a key is unknown or both keys are one record.
    public func score(_ pair: RecordPair) -> ScoredPair? {
        guard let a = index[pair.first], let b = index[pair.second], a != b else { return nil }
        let comparison = scorer.compare(a, b)
        return scoredPair(a, b, comparison, scorer.score(comparison))
    }

    /// Every signal of any pair: values, levels, weights, score and decision.
    public func explain(_ pair: RecordPair) -> PairExplanation? {
        guard let a = index[pair.first], let b = index[pair.second], a != b else { return nil }
        return scorer.explain(a, b, pair: pair, thresholds: configuration.thresholds)
    }

    /// The clustering stage over scored pairs (those below the review threshold may be left out).
    public func cluster(_ pairs: [ScoredPair], decisions: [PairDecision] = []) -> Clustering {
        cluster(sortedKeys: keys, index: index, pairs: pairs, decisions: decisions)
    }

    /// The clustering stage over some of the records, in key order, and their pairs.
    func cluster(keys: [RecordKey], pairs: [ScoredPair], decisions: [PairDecision]) -> Clustering {
        cluster(
            sortedKeys: keys, index: Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }), pairs: pairs,
            decisions: decisions)
    }

    private func cluster(sortedKeys: [RecordKey], index: [RecordKey: Int], pairs: [ScoredPair], decisions: [PairDecision]) -> Clustering {
        PropertyClusterer(configuration: configuration.clustering, thresholds: configuration.thresholds)
            .cluster(sortedKeys: sortedKeys, index: index, pairs: pairs, decisions: decisions) { pair in
                // The clusterer asks only for pairs of its own records.
                score(pair) ?? ScoredPair(pair: pair, score: 0, decision: .noMatch, identifierAgrees: false)
            }
    }

    /// Blocking, scoring and clustering, with the review band explained.
    public func match(decisions: [PairDecision] = []) -> MatchResult {
        // The candidates go once scored: at a million records they outweigh the scored pairs.
        let (scored, blocking) = { () -> ([ScoredPair], BlockingReport) in
            let candidates = candidates()
            return (score(candidates, atLeast: configuration.thresholds.reviewAtLeast), BlockingReport(candidates))
        }()
        FreedMemory.returnToSystem()
        let clustering = cluster(scored, decisions: decisions)
        FreedMemory.returnToSystem()
        let property = clustering.propertyIndex()
        let reviews = scored.filter { $0.decision == .review && property[$0.pair.first] != property[$0.pair.second] }
            .compactMap { explain($0.pair) }
        return MatchResult(
            clustering: clustering,
            scoredPairs: scored,
            reviewPairs: reviews,
            blocking: blocking,
            duplicateKeys: duplicates.map(\.key)
        )
    }

    private func scoredPair(_ a: Int, _ b: Int, _ comparison: PairComparison, _ score: Double) -> ScoredPair {
        ScoredPair(
            pair: RecordPair(distinct: records[a].key, records[b].key), score: score,
            decision: configuration.thresholds.decision(for: score),
            identifierAgrees: comparison.phone == .exact || comparison.reference == .exact,
            catalogueDisagrees: comparison.reference == .different && comparison.phone != .exact)
    }
}
