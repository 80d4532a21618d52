import Hotels
import Matching
import Testing

@Suite struct ClusteringTests {
    let a = Fixtures.key(1, "A")
    let b = Fixtures.key(2, "B")
    let c = Fixtures.key(3, "C")
    let ab: RecordPair
    let bc: RecordPair
    let ac: RecordPair

    init() throws {
        ab = try #require(RecordPair(a, b))
        bc = try #require(RecordPair(b, c))
        ac = try #require(RecordPair(a, c))
    }

    /// A clusterer over a fixed table of scores.
    private func cluster(_ scores: [RecordPair: Double], decisions: [PairDecision] = []) -> Clustering {
        let thresholds = DecisionThresholds()
        let pairs = scores.map { pair, score in
            ScoredPair(pair: pair, score: score, decision: thresholds.decision(for: score), identifierAgrees: false)
        }
        return PropertyClusterer().cluster(records: [a, b, c], pairs: pairs, decisions: decisions) { pair in
            let score = scores[pair] ?? 0
            return ScoredPair(pair: pair, score: score, decision: thresholds.decision(for: score), identifierAgrees: false)
        }
    }

    @Test func noChainingWhenTheEndsDisagreeStrongly() {
        let clustering = cluster([ab: 12, bc: 11, ac: -15])
        #expect(clustering.property(of: a)?.members == [a, b])
        #expect(clustering.property(of: c)?.members == [c])
        #expect(clustering.refusedLinks.map(\.pair.pair) == [bc])
        #expect(clustering.refusedLinks.first?.across == ac)
        #expect(clustering.refusedLinks.first?.reason == .disagreement)
    }

    @Test func chainingIsAllowedWhenTheEndsMerelyLackEvidence() {
        let clustering = cluster([ab: 12, bc: 11, ac: 0])
        #expect(clustering.properties.count == 1)
        #expect(clustering.properties.first?.links.count == 2)
    }

    @Test func noChainingThroughARecordWithoutCatalogueCodes() {
        // A and C: one name, one place, two GIATA codes and two phones. B, with neither, matches both.
        let records = [
            Fixtures.record(
                1, "A", name: "Hôtel Central", address: "3 Rue de Charonne", at: (48.85500, 2.39000),
                phone: "+33 1 45 00 00 01", references: ["giata": "111"]),
            Fixtures.record(2, "B", name: "HOTEL CENTRAL", address: "3 R DE CHARONNE 75011 PARIS", at: (48.85510, 2.39010)),
            Fixtures.record(
                3, "C", name: "Hotel Central", address: "3 rue de Charonne", at: (48.85490, 2.38990),
                phone: "+33 1 45 00 00 99", references: ["giata": "222"]),
        ]
        let result = Matcher().match(records)
        #expect(!result.together(a, c))
        #expect(result.properties.count == 2)
        #expect(result.clustering.refusedLinks.contains { $0.reason == .catalogue })
    }

    @Test func decisionsAreHonoured() throws {
        let forced = cluster(
            [ab: 12, bc: 5, ac: -1],
            decisions: [PairDecision(pair: bc, verdict: .same), PairDecision(pair: ab, verdict: .different)])
        #expect(forced.property(of: b)?.members == [b, c])
        #expect(forced.property(of: a)?.members == [a])
        #expect(forced.property(of: b)?.links.first?.reason == .decision)
        #expect(forced.refusedLinks.first?.reason == .decision)
    }

    @Test func aDifferentDecisionAcrossSameDecisionsIsReported() throws {
        let clustering = cluster(
            [:],
            decisions: [
                PairDecision(pair: ab, verdict: .same), PairDecision(pair: bc, verdict: .same),
                PairDecision(pair: ac, verdict: .different),
            ])
        #expect(clustering.properties.count == 1)
        #expect(clustering.conflictingDecisions == [PairDecision(pair: ac, verdict: .different)])
    }

    @Test func decisionsOnRealRecordsSplitAndJoin() throws {
        let records = [
            Fixtures.record(1, "IB", name: "Ibis Paris Gare du Nord", address: "33 Rue de Dunkerque", at: (48.88060, 2.35390), chain: "RT"),
            Fixtures.record(
                2, "IS", name: "Ibis Styles Paris Gare du Nord", address: "33 Rue de Dunkerque", at: (48.88062, 2.35395), chain: "RT"),
            Fixtures.record(3, "IB", name: "IBIS PARIS GARE DU NORD", address: "33 R DE DUNKERQUE", at: (48.88070, 2.35400)),
        ]
        let (ib1, is2, ib3) = (Fixtures.key(1, "IB"), Fixtures.key(2, "IS"), Fixtures.key(3, "IB"))
        let matcher = Matcher()
        let undecided = matcher.match(records)
        #expect(undecided.together(ib1, ib3))
        #expect(!undecided.together(ib1, is2))

        let decided = matcher.match(
            records,
            decisions: [
                try #require(PairDecision(ib1, is2, .same)), try #require(PairDecision(ib1, ib3, .different)),
            ])
        #expect(decided.together(ib1, is2))
        #expect(!decided.together(ib1, ib3))
        #expect(decided.properties.flatMap(\.members).sorted() == [ib1, is2, ib3].sorted())
    }

    @Test func tiersFollowTheLinks() throws {
        let thresholds = DecisionThresholds()
        let scores: [RecordPair: (Double, Bool)] = [ab: (20, true), bc: (5, false), ac: (4, false)]
        let pairs = scores.map { ScoredPair(pair: $0, score: $1.0, decision: thresholds.decision(for: $1.0), identifierAgrees: $1.1) }
        let clustering = PropertyClusterer().cluster(records: [a, b, c], pairs: pairs, decisions: []) { pair in
            let (score, agrees) = scores[pair] ?? (0, false)
            return ScoredPair(pair: pair, score: score, decision: thresholds.decision(for: score), identifierAgrees: agrees)
        }
        // A and B: a strong link with the phone agreeing; but B to C is in the review band and leads out.
        #expect(clustering.property(of: a)?.tier == .low)
        #expect(clustering.property(of: c)?.tier == .low)

        let alone = PropertyClusterer().cluster(records: [a, b], pairs: pairs.filter { $0.pair == ab }, decisions: []) {
            ScoredPair(pair: $0, score: 20, decision: .match, identifierAgrees: true)
        }
        #expect(alone.properties.map(\.tier) == [.strict])
    }
}
