/// A run to match again from: the records it prepared, what it made of them, and the decisions it honoured.
public struct PreviousMatch: Sendable {
    public let prepared: PreparedRecords
    public let result: MatchResult
    public let decisions: [PairDecision]

    public init(prepared: PreparedRecords, result: MatchResult, decisions: [PairDecision]) {
        self.prepared = prepared
        self.result = result
        self.decisions = decisions
    }
}

extension PreparedRecords {
    /// What ``match(decisions:)`` makes of these records, found by matching again only the records that
    /// changed since `previous` and their neighbours; the rest of the previous result stands.
    ///
    /// Nil when a change reaches every pair: the configuration or the decisions changed, or the scope
    /// grew or shrank past a step of its weights (an eighth of a bit: about 9 % more or fewer records).
    public func rematch(since previous: PreviousMatch, decisions: [PairDecision]) -> MatchResult? {
        let old = previous.prepared
        guard configuration == old.configuration, Set(decisions) == Set(previous.decisions),
            statistics.populationBits == old.statistics.populationBits
        else { return nil }
        let grids = (old: old.gridNeighbours, new: gridNeighbours)
        let region = AffectedRegion(from: old, to: self, grids: grids, decisions: decisions)
        let focusKeys = Set(region.focus.records.map { records[$0].key }).union(region.removed)

        // Pairs with a record of the focus are found and scored again; every other pair is as it was.
        let fresh = candidates(focus: region.focus, grid: grids.new)
        let previousFresh = old.candidates(focus: Focus(focusKeys.compactMap { old.index[$0] }, count: old.records.count), grid: grids.old)
        let rescored = score(fresh, atLeast: configuration.thresholds.reviewAtLeast)
        let touchesFocus = { (pair: RecordPair) in focusKeys.contains(pair.first) || focusKeys.contains(pair.second) }
        let dropped = previous.result.scoredPairs.filter { touchesFocus($0.pair) }
        // Both in the order of candidate pairs (the records that stay keep their order): merged, not sorted again.
        let pairsInOrder = { (a: ScoredPair, b: ScoredPair) in pairOrder(a.pair) < pairOrder(b.pair) }
        let scored = Self.merge(
            previous.result.scoredPairs.filter { !touchesFocus($0.pair) }, rescored.sorted(by: pairsInOrder), by: pairsInOrder)

        let clustering = recluster(
            scored, decisions: decisions, previous: previous.result.clustering,
            seeds: region.focus.records.map { records[$0].key } + dropped.flatMap { [$0.pair.first, $0.pair.second] }
                + decisions.filter { touchesFocus($0.pair) }.flatMap { [$0.pair.first, $0.pair.second] })
        let property = clustering.propertyIndex()
        let explained = Dictionary(
            previous.result.reviewPairs.filter { !touchesFocus($0.pair) }.map { ($0.pair, $0) }, uniquingKeysWith: { first, _ in first })
        let reviews = scored.filter { $0.decision == .review && property[$0.pair.first] != property[$0.pair.second] }
            .compactMap { explained[$0.pair] ?? explain($0.pair) }
        var blocking = previous.result.blocking
        blocking.records = records.count
        blocking.candidatePairs += fresh.count - previousFresh.count
        for rule in BlockingRule.allCases {
            let count = (blocking.proposedBy[rule] ?? 0) + (fresh.proposedBy[rule] ?? 0) - (previousFresh.proposedBy[rule] ?? 0)
            blocking.proposedBy[rule] = count
        }
        blocking.pairsPerRecord = records.isEmpty ? 0 : 2 * Double(blocking.candidatePairs) / Double(records.count)
        return MatchResult(
            clustering: clustering, scoredPairs: scored, reviewPairs: reviews, blocking: blocking, duplicateKeys: duplicates.map(\.key),
            recordsMatchedAgain: region.focus.records.count)
    }

    /// A pair's place in the order of candidate pairs: by its records' positions.
    private func pairOrder(_ pair: RecordPair) -> UInt64 {
        IndexPair.key(index[pair.first] ?? 0, index[pair.second] ?? 0)
    }

    /// The previous properties whose records no pair, decision or record change reaches, and the records that
    /// one does reach clustered again: the clusterer treats each connected group of pairs on its own.
    private func recluster(_ scored: [ScoredPair], decisions: [PairDecision], previous: Clustering, seeds: [RecordKey]) -> Clustering {
        var components = UnionFind(count: records.count)
        for pair in scored {
            if let a = index[pair.pair.first], let b = index[pair.pair.second] { components.join(a, b) }
        }
        for decision in decisions where decision.verdict == .same {
            if let a = index[decision.pair.first], let b = index[decision.pair.second] { components.join(a, b) }
        }
        let reached = Set(seeds.compactMap { index[$0] }.map { components.root(of: $0) })
        let affected = records.indices.filter { reached.contains(components.root(of: $0)) }
        let affectedKeys = Set(affected.map { records[$0].key })

        let kept = previous.properties.filter { property in
            property.members.allSatisfy { index[$0] != nil && !affectedKeys.contains($0) }
        }
        let inAffected = { (pair: RecordPair) in affectedKeys.contains(pair.first) && affectedKeys.contains(pair.second) }
        let again = cluster(
            keys: affected.map { records[$0].key }, pairs: scored.filter { inAffected($0.pair) },
            decisions: decisions.filter { inAffected($0.pair) })
        let refusedOrder = { (a: RefusedLink, b: RefusedLink) in
            a.pair.score != b.pair.score ? a.pair.score > b.pair.score : pairOrder(a.pair.pair) < pairOrder(b.pair.pair)
        }
        // The kept links are in that order already: records that stay keep their order, so their positions' order holds.
        let refused = Self.merge(
            previous.refusedLinks.filter { !inAffected($0.pair.pair) && index[$0.pair.pair.first] != nil },
            again.refusedLinks.sorted(by: refusedOrder), by: refusedOrder)
        let conflicting =
            (previous.conflictingDecisions.filter { !inAffected($0.pair) && index[$0.pair.first] != nil }
            + again.conflictingDecisions).sorted { $0.pair < $1.pair }
        return Clustering(
            properties: Self.merge(kept, again.properties.sorted { $0.members[0] < $1.members[0] }) { $0.members[0] < $1.members[0] },
            refusedLinks: refused,
            conflictingDecisions: conflicting)
    }
}

extension PreparedRecords {
    /// Two lists, each in `order`, as one list in `order`; on a tie the first list's element comes first.
    static func merge<Element>(_ first: [Element], _ second: [Element], by order: (Element, Element) -> Bool) -> [Element] {
        var merged: [Element] = []
        merged.reserveCapacity(first.count + second.count)
        var (i, j) = (first.startIndex, second.startIndex)
        while i < first.endIndex, j < second.endIndex {
            if order(second[j], first[i]) {
                merged.append(second[j])
                j += 1
            } else {
                merged.append(first[i])
                i += 1
            }
        }
        merged.append(contentsOf: first[i...])
        merged.append(contentsOf: second[j...])
        return merged
    }
}
