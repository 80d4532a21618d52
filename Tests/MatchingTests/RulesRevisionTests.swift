import Matching
import Testing

/// A city whose input has not changed is not matched again (``ScopeFingerprint``), so a change to the rules that
/// makes other properties, tiers or scores must raise ``ScopeFingerprint/revision``: stores then match every city
/// once more. This test notices such a change on a fixed world.
@Suite struct RulesRevisionTests {
    /// What matching makes of the fixed world, by revision.
    static let pinned: [Int64: UInt64] = [1: 14_534_617_158_213_289_918]

    @Test("what matching makes of a fixed world is the digest pinned for this revision of the rules")
    func rulesPinnedToTheRevision() {
        let result = Matcher().match(SyntheticWorld(hotels: 300, suppliers: 4, seed: 47).records)
        var digest = Digest()
        for property in result.properties {
            digest.add("\(property.tier.rawValue) " + property.members.map { "\($0.supplier.profile)/\($0.code)" }.joined(separator: " "))
        }
        for pair in result.scoredPairs {
            digest.add("\(pair.pair.first.code) \(pair.pair.second.code) \(pair.score.bitPattern) \(pair.decision.rawValue)")
        }
        #expect(
            digest.value == Self.pinned[ScopeFingerprint.revision],
            "matching makes something else of the fixed world (\(digest.value)): raise ScopeFingerprint.revision and pin the new digest")
    }

    /// FNV-1a over lines, each ended by a newline.
    private struct Digest {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ line: String) {
            for byte in (line + "\n").utf8 {
                value ^= UInt64(byte)
                value = value &* 0x0000_0100_0000_01B3
            }
        }
    }
}
