/// The clustering stage: records into properties, without chaining.
///
/// Match-level pairs join groups in descending score order, but a join is
/// refused when any pair across the two groups scores below
/// ``ClusteringConfiguration/cannotLinkBelow``, has two codes in one
/// catalogue, or was decided `different`.
/// So A≈B and B≈C do not put A with C when A and C disagree strongly (sibling
/// brands, two catalogue codes): B goes with whichever it matches better,
/// since that pair comes first. Pairs across groups are scored on demand:
/// groups are small. `same` decisions are joined before any score.
public struct PropertyClusterer: Sendable {
    public var configuration: ClusteringConfiguration
    public var thresholds: DecisionThresholds

    public init(configuration: ClusteringConfiguration = ClusteringConfiguration(), thresholds: DecisionThresholds = DecisionThresholds()) {
        self.configuration = configuration
        self.thresholds = thresholds
    }

    /// - Parameters:
    ///   - records: every record to place, each in exactly one property.
    ///   - pairs: the scored candidate pairs; those at match level may join groups,
    ///     those at review level mark the properties they lead out of as low.
    ///   - decisions: what people decided; pairs naming unknown records are ignored.
    ///   - score: any pair's score, for pairs across groups and within properties.
    public func cluster(
        records: [RecordKey], pairs: [ScoredPair], decisions: [PairDecision],
        score: (RecordPair) -> ScoredPair
    ) -> Clustering {
        let keys = zip(records, records.dropFirst()).allSatisfy { $0 < $1 } ? records : Array(Set(records)).sorted()
        return cluster(
            sortedKeys: keys, index: Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }), pairs: pairs,
            decisions: decisions, score: score)
    }

    /// The same, over keys sorted and unique and their positions: ``PreparedRecords``' own, not built a second time.
    func cluster(
        sortedKeys keys: [RecordKey], index: [RecordKey: Int], pairs: [ScoredPair], decisions: [PairDecision],
        score: (RecordPair) -> ScoredPair
    ) -> Clustering {
        var groups = Groups(count: keys.count)
        // Scores by the pair's indices, without its keys: a city's cache holds
        // hundreds of thousands, and whole ``ScoredPair``s were most of the run's peak memory.
        let pairKeys = pairs.map { Self.key($0.pair, index) }
        var cache: [UInt64: PairScore] = [:]
        cache.reserveCapacity(pairs.count)
        for (pair, key) in zip(pairs, pairKeys) { if let key { cache[key] = PairScore(pair) } }
        func scored(_ a: Int, _ b: Int) -> PairScore {
            let key = IndexPair.key(a, b)
            if let known = cache[key] { return known }
            // Only pairs of two records are asked for, and `keys` holds each key once.
            let pair = PairScore(score(RecordPair(distinct: keys[a], keys[b])))
            cache[key] = pair
            return pair
        }

        var different = Set<UInt64>()
        var decidedSame = Set<UInt64>()
        var links: [Int: [PropertyLink]] = [:]
        var refused: [RefusedLink] = []
        for decision in decisions.sorted(by: { $0.pair < $1.pair }) {
            guard let key = Self.key(decision.pair, index) else { continue }
            switch decision.verdict {
            case .different: different.insert(key)
            case .same:
                decidedSame.insert(key)
                let (a, b) = IndexPair.indices(key)
                let known = cache[key]
                link(
                    a, b,
                    PropertyLink(
                        pair: decision.pair, score: known?.score, reason: .decision, identifierAgrees: known?.identifierAgrees ?? false),
                    &groups, &links)
            }
        }
        let conflicting = decisions.filter { decision in
            guard decision.verdict == .different, let key = Self.key(decision.pair, index) else { return false }
            let (a, b) = IndexPair.indices(key)
            return groups.group(of: a) == groups.group(of: b)
        }

        // Best score first, then pair order, which is the order of the pairs' indices: `keys` are sorted.
        let matches = pairs.indices.compactMap { position in
            pairs[position].decision == .match ? pairKeys[position].map { (key: $0, position: position) } : nil
        }.sorted { first, second in
            let (a, b) = (pairs[first.position].score, pairs[second.position].score)
            return a != b ? a > b : first.key < second.key
        }
        for (key, position) in matches {
            let pair = pairs[position]
            let (a, b) = IndexPair.indices(key)
            let (groupA, groupB) = (groups.group(of: a), groups.group(of: b))
            guard groupA != groupB else { continue }
            if let reason = obstacle(groups.members(groupA), groups.members(groupB), different: different, scored: scored) {
                let across = RecordPair(distinct: keys[reason.a], keys[reason.b])
                refused.append(RefusedLink(pair: pair, across: across, acrossScore: reason.score, reason: reason.reason))
                continue
            }
            link(
                a, b, PropertyLink(pair: pair.pair, score: pair.score, reason: .score, identifierAgrees: pair.identifierAgrees), &groups,
                &links)
        }

        let reviewsOut = pairs.indices.filter { pairs[$0].decision == .review }.compactMap { position -> (Int, Int)? in
            guard let key = pairKeys[position] else { return nil }
            let (a, b) = IndexPair.indices(key)
            let (groupA, groupB) = (groups.group(of: a), groups.group(of: b))
            return groupA == groupB ? nil : (groupA, groupB)
        }
        let lowGroups = Set(reviewsOut.flatMap { [$0.0, $0.1] })
        let properties = groups.all().map { group, members in
            let groupLinks = links[group] ?? []
            return Property(
                members: members.sorted().map { keys[$0] },
                tier: tier(members, groupLinks, leadsOutForReview: lowGroups.contains(group), decidedSame: decidedSame, scored: scored),
                links: groupLinks)
        }.sorted { $0.members[0] < $1.members[0] }
        return Clustering(properties: properties, refusedLinks: refused, conflictingDecisions: conflicting.sorted { $0.pair < $1.pair })
    }

    /// The first pair across two groups that forbids joining them, in member order: its indices, score and why.
    private func obstacle(_ first: [Int], _ second: [Int], different: Set<UInt64>, scored: (Int, Int) -> PairScore)
        -> (a: Int, b: Int, score: Double?, reason: RefusedLink.Reason)?
    {
        for a in first.sorted() {
            for b in second.sorted() {
                let pair = scored(a, b)
                if different.contains(IndexPair.key(a, b)) { return (a, b, pair.score, .decision) }
                if pair.score < configuration.cannotLinkBelow { return (a, b, pair.score, .disagreement) }
                if pair.catalogueDisagrees { return (a, b, pair.score, .catalogue) }
            }
        }
        return nil
    }

    private func link(_ a: Int, _ b: Int, _ link: PropertyLink, _ groups: inout Groups, _ links: inout [Int: [PropertyLink]]) {
        let (groupA, groupB) = (groups.group(of: a), groups.group(of: b))
        guard groupA != groupB else { return }
        let joined = (links.removeValue(forKey: groupA) ?? []) + (links.removeValue(forKey: groupB) ?? []) + [link]
        links[groups.join(groupA, groupB)] = joined
    }

    private func tier(
        _ members: [Int], _ links: [PropertyLink], leadsOutForReview: Bool, decidedSame: Set<UInt64>,
        scored: (Int, Int) -> PairScore
    ) -> ConfidenceTier {
        if leadsOutForReview { return .low }
        let sorted = members.sorted()
        for (position, a) in sorted.enumerated() {
            for b in sorted[(position + 1)...]
            where !decidedSame.contains(IndexPair.key(a, b)) && scored(a, b).score < thresholds.reviewAtLeast {
                return .low
            }
        }
        let strict = links.allSatisfy { link in
            link.reason == .decision || (link.identifierAgrees && (link.score ?? 0) >= configuration.strictLinkAtLeast)
        }
        return strict ? .strict : .medium
    }

    private static func key(_ pair: RecordPair, _ index: [RecordKey: Int]) -> UInt64? {
        guard let a = index[pair.first], let b = index[pair.second] else { return nil }
        return IndexPair.key(a, b)
    }
}

/// What clustering keeps of a scored pair.
private struct PairScore {
    let score: Double
    let identifierAgrees: Bool
    let catalogueDisagrees: Bool

    init(_ pair: ScoredPair) {
        score = pair.score
        identifierAgrees = pair.identifierAgrees
        catalogueDisagrees = pair.catalogueDisagrees
    }
}

/// Union–find over record indices, each group knowing its members.
private struct Groups {
    private var roots: UnionFind
    private var members: [[Int]]

    init(count: Int) {
        roots = UnionFind(count: count)
        members = (0..<count).map { [$0] }
    }

    mutating func group(of index: Int) -> Int { roots.root(of: index) }

    func members(_ group: Int) -> [Int] { members[group] }

    /// Joins two roots; the larger group absorbs the smaller (the lower root on a tie). Returns the new root.
    mutating func join(_ a: Int, _ b: Int) -> Int {
        let (keep, absorb) = members[a].count > members[b].count || (members[a].count == members[b].count && a < b) ? (a, b) : (b, a)
        roots.attach(absorb, to: keep)
        members[keep] += members[absorb]
        members[absorb] = []
        return keep
    }

    /// Every group's root and members.
    mutating func all() -> [(Int, [Int])] {
        members.indices.compactMap { index in group(of: index) == index ? (index, members[index]) : nil }
    }
}
