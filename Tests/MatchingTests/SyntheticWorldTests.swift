import Foundation
import Matching
import Testing

/// The synthetic city against its truth. MATCHING_SEED, MATCHING_SUPPLIERS
/// and MATCHING_HOTELS change the world of the first test; MATCHING_DEBUG=1
/// prints the explanations of the pairs it gets wrong.
@Suite struct SyntheticWorldTests {
    @Test func pairwisePrecisionAndRecallOnTwoThousandRecords() {
        let environment = ProcessInfo.processInfo.environment
        let world = SyntheticWorld(
            hotels: environment["MATCHING_HOTELS"].flatMap { Int($0) } ?? 700,
            suppliers: environment["MATCHING_SUPPLIERS"].flatMap { Int($0) } ?? 4,
            seed: environment["MATCHING_SEED"].flatMap { UInt64($0) } ?? 47)
        let quality = measure(world, debug: environment["MATCHING_DEBUG"] != nil)
        #expect(quality.precision >= 0.95)
        #expect(quality.recall >= 0.95)
    }

    /// Other worlds, with three and five suppliers: the rules are not the first world's.
    @Test(arguments: [(seed: UInt64(4), suppliers: 3), (seed: 5, suppliers: 5)])
    func otherWorlds(_ world: (seed: UInt64, suppliers: Int)) {
        let quality = measure(SyntheticWorld(hotels: 700, suppliers: world.suppliers, seed: world.seed), debug: false)
        #expect(quality.precision >= 0.95)
        #expect(quality.recall >= 0.95)
    }

    private func measure(_ world: SyntheticWorld, debug: Bool) -> PairwiseQuality {
        let clock = ContinuousClock()
        var prepared: PreparedRecords?
        let preparing = clock.measure { prepared = Matcher().prepare(world.records) }
        guard let prepared else { return PairwiseQuality(falsePositives: [], falseNegatives: [], truePositives: 0) }
        var candidates: CandidatePairs?
        let blocking = clock.measure { candidates = prepared.candidates() }
        guard let candidates else { return PairwiseQuality(falsePositives: [], falseNegatives: [], truePositives: 0) }
        var scored: [ScoredPair] = []
        let scoring = clock.measure { scored = prepared.score(candidates, atLeast: MatchConfiguration.default.thresholds.reviewAtLeast) }
        var clustering: Clustering?
        let clusteringTime = clock.measure { clustering = prepared.cluster(scored) }
        guard let clustering else { return PairwiseQuality(falsePositives: [], falseNegatives: [], truePositives: 0) }
        let quality = world.quality(of: clustering)
        func seconds(_ duration: Duration) -> String {
            String(format: "%.2f", Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds))
        }
        print(
            "synthetic: \(world.records.count) records, \(Set(world.truth.values).count) hotels, \(Set(world.records.map(\.key.supplier)).count) suppliers; "
                + String(format: "precision %.4f recall %.4f F1 %.4f; ", quality.precision, quality.recall, quality.f1)
                + "\(quality.falsePositives.count) false and \(quality.falseNegatives.count) missed pairs of \(quality.truePositives + quality.falseNegatives.count); "
                + String(format: "%d candidate pairs (%.1f per record); ", candidates.count, candidates.perRecord)
                + "seconds: prepare \(seconds(preparing)), block \(seconds(blocking)), score \(seconds(scoring)), cluster \(seconds(clusteringTime)); "
                + "properties by tier: "
                + ConfidenceTier.allCases.map { tier in "\(tier.rawValue) \(clustering.properties.count { $0.tier == tier })" }
                .joined(separator: ", "))
        if debug {
            for pair in quality.falsePositives.prefix(20) {
                print("FALSE POSITIVE\n\(prepared.explain(pair).map(String.init(describing:)) ?? "")\n")
            }
            let missed = Set(quality.falseNegatives.flatMap { [$0.first, $0.second] })
            for refused in clustering.refusedLinks where missed.contains(refused.pair.pair.first) {
                print("REFUSED \(refused.pair.pair) \(refused.pair.score) because \(refused.across) \(refused.acrossScore ?? .nan)")
            }
            for pair in quality.falseNegatives.prefix(40) {
                print("FALSE NEGATIVE\n\(prepared.explain(pair).map(String.init(describing:)) ?? "")\n")
            }
        }
        return quality
    }
}
