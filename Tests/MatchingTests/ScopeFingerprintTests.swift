import Hotels
import Matching
import Testing

/// A scope's fingerprint follows everything its match is made from, and nothing else.
@Suite("A scope's fingerprint")
struct ScopeFingerprintTests {
    let records = [
        Fixtures.record(
            1, "A1", name: "Hôtel Lutetia", address: "45 Boulevard Raspail", at: (48.8511, 2.3273), phone: "+33 1 49 54 46 00",
            postalCode: "75006", chain: "LX", rating: 5, references: ["giata": "12345"], logoHash: 0xFEED),
        Fixtures.record(2, "B1", name: "LUTETIA", address: "45 BD RASPAIL", at: (48.8512, 2.3275)),
    ]
    var decision: PairDecision { PairDecision(records[0].key, records[1].key, .different)! }

    func fingerprint(_ records: [MatchRecord], _ decisions: [PairDecision] = [], _ configuration: MatchConfiguration = .default)
        -> String
    {
        ScopeFingerprint(records: records, decisions: decisions, configuration: configuration).description
    }

    @Test("the same input gives the same 64 hexadecimal digits")
    func sameInput() {
        let made = fingerprint(records, [decision])
        #expect(made == fingerprint(records, [decision]))
        #expect(made.count == 64 && made.allSatisfy(\.isHexDigit))
    }

    @Test("every field matching reads, and what a property shows of a member, changes it")
    func everyField() {
        let changes: [(String, (inout MatchRecord) -> Void)] = [
            ("list", { $0.source.listID += 1 }), ("profile", { $0.source.profile += "x" }),
            ("endpoint", { $0.source.endpoint += "x" }), ("list's city", { $0.source.listCity = "Lyon" }),
            ("code", { $0.hotel.code += "x" }), ("name", { $0.hotel.name = "Hôtel Lutetia Paris" }),
            ("no name", { $0.hotel.name = nil }), ("address", { $0.hotel.address = "46 Boulevard Raspail" }),
            ("latitude", { $0.hotel.latitude = 48.8512 }), ("longitude", { $0.hotel.longitude = nil }),
            ("phone", { $0.hotel.phone = "+33 1 49 54 46 01" }), ("chain", { $0.hotel.chainCode = "LY" }),
            ("rating", { $0.hotel.rating = 4.5 }), ("postal code", { $0.hotel.postalCode = "75007" }),
            ("city", { $0.hotel.city = "Paris 6e" }), ("country", { $0.hotel.countryCode = "BE" }),
            ("reference", { $0.hotel.references = ["giata": "12346"] }), ("no references", { $0.hotel.references = nil }),
            ("no reference", { $0.hotel.references = [:] }), ("logo hash", { $0.logoHash = 0xFEEE }),
            ("no logo hash", { $0.logoHash = nil }),
        ]
        var seen = [fingerprint(records): "unchanged"]
        for (field, change) in changes {
            var changed = records
            change(&changed[0])
            let made = fingerprint(changed)
            #expect(seen[made] == nil, "\(field) gives the fingerprint of \(seen[made] ?? "")")
            seen[made] = field
        }
    }

    @Test("texts are told apart by their lengths: a character moved from the name to the address changes it")
    func textBoundaries() {
        var first = records
        (first[0].hotel.name, first[0].hotel.address) = ("ab", "c")
        var second = records
        (second[0].hotel.name, second[0].hotel.address) = ("a", "bc")
        #expect(fingerprint(first) != fingerprint(second))
    }

    @Test("a decision about two of the scope's records counts, by its verdict; one naming another record, or the order, does not")
    func decisions() throws {
        let none = fingerprint(records)
        let different = fingerprint(records, [decision])
        let same = fingerprint(records, [PairDecision(pair: decision.pair, verdict: .same)])
        #expect(Set([none, different, same]).count == 3)
        let elsewhere = try #require(PairDecision(records[0].key, Fixtures.key(3, "C1"), .same))
        #expect(fingerprint(records, [elsewhere]) == none)
        let other = try #require(PairDecision(records[1].key, records[0].key.supplier.code("A2"), .same))
        let both = records + [Fixtures.record(1, "A2", name: "Lutetia")]
        #expect(fingerprint(both, [decision, other]) == fingerprint(both, [other, decision]))
    }

    @Test("another configuration changes it, one with infinite or undefined numbers too")
    func configuration() {
        var configuration = MatchConfiguration.default
        configuration.thresholds.reviewAtLeast += 0.5
        var infinite = MatchConfiguration.default
        infinite.thresholds.matchAtLeast = .infinity
        var undefined = MatchConfiguration.default
        undefined.thresholds.reviewAtLeast = .nan
        let made = [.default, configuration, infinite, undefined].map { fingerprint(records, [], $0) }
        #expect(Set(made).count == 4)
    }
}
