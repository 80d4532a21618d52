import Testing

@testable import Matching

/// A city whose input has not changed is not matched again (``ScopeFingerprint``), so a change to the rules that
/// makes other properties, tiers or scores must raise ``ScopeFingerprint/revision``: stores then match every city
/// once more. This test notices such a change on a fixed world.
@Suite struct RulesRevisionTests {
    /// What matching makes of the fixed world, by revision. Revision 2 counts a token with a doubled letter once
    /// towards its typo key's cap, which the fixed world does not reach: its digest is revision 1's. Revision 3
    /// weighs counts in steps of an eighth of a bit.
    static let pinned: [Int64: UInt64] = [
        1: 17_228_514_233_690_937_216, 2: 17_228_514_233_690_937_216, 3: 1_441_015_609_246_114_317,
    ]

    @Test("what matching makes of a fixed world is the digest pinned for this revision of the rules")
    func rulesPinnedToTheRevision() {
        let result = Matcher().match(SyntheticWorld(hotels: 300, suppliers: 4, seed: 47).records)
        var digest = StableHash()
        for property in result.properties {
            digest.add(property.tier.rawValue)
            digest.add(Int64(property.members.count))
            for member in property.members { digest.add(member) }
        }
        for pair in result.scoredPairs {
            digest.add(pair.pair.first)
            digest.add(pair.pair.second)
            digest.add(pair.score)
            digest.add(pair.decision.rawValue)
        }
        #expect(
            digest.value == Self.pinned[ScopeFingerprint.revision],
            "matching makes something else of the fixed world (\(digest.value)): raise ScopeFingerprint.revision and pin the new digest")
    }
}
