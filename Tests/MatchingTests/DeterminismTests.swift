import Matching
import Seeding
import Testing

@Suite struct DeterminismTests {
    @Test func theSameInputInAnotherOrderGivesTheSameClusters() {
        let world = SyntheticWorld(hotels: 250, suppliers: 4, seed: 2024)
        var random = SeededGenerator(seed: 99)
        let shuffled = world.records.shuffled(using: &random)
        let reversed = Array(world.records.reversed())
        let matcher = Matcher()
        let first = matcher.match(world.records)
        let second = matcher.match(shuffled)
        let third = matcher.match(reversed)
        #expect(first.properties == second.properties)
        #expect(first.properties == third.properties)
        #expect(first.reviewPairs == second.reviewPairs)
        #expect(first.scoredPairs == second.scoredPairs)
        #expect(first.clustering.refusedLinks == third.clustering.refusedLinks)
    }

    @Test func explanationsAddUpToTheScore() throws {
        let world = SyntheticWorld(hotels: 60, suppliers: 3, seed: 5)
        let prepared = Matcher().prepare(world.records)
        let scored = prepared.score(prepared.candidates())
        for pair in scored.prefix(200) {
            let explanation = try #require(prepared.explain(pair.pair))
            #expect(abs(explanation.score - pair.score) < 1e-9)
            #expect(abs(explanation.signals.reduce(0) { $0 + $1.weight } - explanation.score) < 1e-9)
            #expect(explanation.signals.map(\.signal) == Signal.allCases)
            #expect(explanation.decision == pair.decision)
        }
    }

    @Test("prepared records are in key order, each key once, whatever order they came in: the clusterer takes them as they are")
    func preparedInKeyOrder() {
        let world = SyntheticWorld(hotels: 120, suppliers: 4, seed: 7)
        var random = SeededGenerator(seed: 3)
        let prepared = Matcher().prepare((world.records + world.records.prefix(10)).shuffled(using: &random))
        let keys = prepared.keys
        #expect(keys == keys.sorted() && Set(keys).count == keys.count && prepared.duplicates.count == 10)
        let scored = prepared.score(prepared.candidates())
        let configuration = prepared.configuration
        let unsorted = PropertyClusterer(configuration: configuration.clustering, thresholds: configuration.thresholds)
            .cluster(records: keys.shuffled(using: &random), pairs: scored, decisions: []) { pair in
                prepared.score(pair) ?? ScoredPair(pair: pair, score: 0, decision: .noMatch, identifierAgrees: false)
            }
        #expect(prepared.cluster(scored).properties == unsorted.properties)
    }
}
