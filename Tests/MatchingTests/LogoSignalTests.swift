import Hotels
import Testing

@testable import Matching

/// The logo signal: one picture re-encoded agrees, another picture disagrees,
/// and a brand's logo says only that two hotels share a brand.
@Suite struct LogoSignalTests {
    let matcher = Matcher()
    /// A distinctive picture, and the same picture as another supplier re-encoded it (3 bits moved).
    static let picture: UInt64 = 0x9C3A_51F0_2E7B_8D46
    static let reencoded: UInt64 = picture ^ 0b1011
    /// Another picture: about half the bits differ.
    static let other: UInt64 = 0x36E1_A40B_C9F2_1758

    @Test func onePictureAgreesAnotherDisagreesAndAMissingLogoSaysNothing() throws {
        let records = [
            Fixtures.record(
                1, "A", name: "Hôtel Lutetia", address: "45 Boulevard Raspail", at: (48.85110, 2.32720), logoHash: Self.picture),
            Fixtures.record(2, "A", name: "LUTETIA", address: "45 BD RASPAIL", at: (48.85120, 2.32700), logoHash: Self.reencoded),
            Fixtures.record(3, "A", name: "Lutetia Paris", address: "45 bd Raspail", at: (48.85115, 2.32710), logoHash: Self.other),
            Fixtures.record(4, "A", name: "Hotel Lutetia", address: "45 Boulevard Raspail", at: (48.85112, 2.32715)),
        ]
        let prepared = matcher.prepare(records)
        let same = try Fixtures.explain(prepared, Fixtures.key(1, "A"), Fixtures.key(2, "A"))
        #expect(same[.logo]?.level == .exact && same[.logo]?.detail == "3 of 64 bits differ")
        #expect(
            abs((same[.logo]?.weight ?? 0) - MatchModel.rules.weight(.logo, .exact)) < 1e-9 && MatchModel.rules.weight(.logo, .exact) > 5)
        let other = try Fixtures.explain(prepared, Fixtures.key(1, "A"), Fixtures.key(3, "A"))
        #expect(other[.logo]?.level == .different && (other[.logo]?.weight ?? 0) < 0)
        let missing = try Fixtures.explain(prepared, Fixtures.key(1, "A"), Fixtures.key(4, "A"))
        #expect(missing[.logo]?.level == .missing && missing[.logo]?.weight == 0)
        // The values shown are the hashes in hex.
        #expect(same[.logo]?.first == "9c3a51f02e7b8d46")
    }

    @Test func theSamePictureLiftsARenamedHotelAtOnePlaceIntoAMatch() throws {
        // Renamed: the names share nothing; the place, the phone's switchboard and the logo are the hotel's.
        func pair(logos: Bool) throws -> PairExplanation {
            let records = [
                Fixtures.record(
                    1, "A", name: "Hôtel des Arts", address: "12 Rue Saint-Paul", at: (48.85300, 2.36200), postalCode: "75004",
                    logoHash: logos ? Self.picture : nil),
                Fixtures.record(
                    2, "A", name: "Le Jardin Secret", address: "12 R SAINT PAUL", at: (48.85305, 2.36195), postalCode: "75004",
                    logoHash: logos ? Self.reencoded : nil),
            ]
            return try Fixtures.explain(matcher.prepare(records), Fixtures.key(1, "A"), Fixtures.key(2, "A"))
        }
        let without = try pair(logos: false)
        let with = try pair(logos: true)
        #expect(without.decision != .match)
        #expect(abs(with.score - without.score - MatchModel.rules.weight(.logo, .exact)) < 1e-9)
        #expect(with.decision == .match)
    }

    @Test func aPictureOneSupplierShowsForSeveralHotelsIsABrandsAndJoinsNothing() throws {
        // One brand twice nearby: supplier 1 shows the brand's logo on both hotels, and so does supplier 2.
        let brand = Self.picture
        let records = [
            Fixtures.record(
                1, "NORD", name: "Ibis Paris Gare du Nord", address: "31 Rue de Maubeuge", at: (48.87880, 2.35140),
                chain: "IB", logoHash: brand),
            Fixtures.record(
                1, "EST", name: "Ibis Paris Gare de l'Est", address: "197 Rue La Fayette", at: (48.87810, 2.35990),
                chain: "IB", logoHash: brand),
            Fixtures.record(
                2, "N", name: "IBIS GARE DU NORD", address: "31 R DE MAUBEUGE", at: (48.87885, 2.35135), chain: "IB",
                logoHash: Self.reencoded),
            Fixtures.record(
                2, "E", name: "IBIS GARE DE L EST", address: "197 R LA FAYETTE", at: (48.87815, 2.35985), chain: "IB",
                logoHash: Self.reencoded),
        ]
        let prepared = matcher.prepare(records)
        let across = try Fixtures.explain(prepared, Fixtures.key(1, "NORD"), Fixtures.key(2, "E"))
        #expect(across[.logo]?.level == .weak && across[.logo]?.weight == 0)
        #expect(across[.logo]?.detail?.contains("a brand's logo") == true)
        let result = prepared.match()
        #expect(
            result.together(Fixtures.key(1, "NORD"), Fixtures.key(2, "N")) && result.together(Fixtures.key(1, "EST"), Fixtures.key(2, "E")))
        #expect(
            !result.together(Fixtures.key(1, "NORD"), Fixtures.key(1, "EST"))
                && !result.together(Fixtures.key(2, "N"), Fixtures.key(2, "E")))
    }

    @Test func siblingBrandsInOneBuildingWithTheirOwnLogosStayApart() throws {
        let records = [
            Fixtures.record(
                1, "IB", name: "Ibis Paris Gare du Nord", address: "31 Rue de Maubeuge", at: (48.87880, 2.35140), logoHash: Self.picture),
            Fixtures.record(
                2, "ST", name: "Ibis Styles Paris Gare du Nord", address: "31 Rue de Maubeuge", at: (48.87882, 2.35142),
                logoHash: Self.other),
        ]
        let prepared = matcher.prepare(records)
        let explanation = try Fixtures.explain(prepared, Fixtures.key(1, "IB"), Fixtures.key(2, "ST"))
        #expect(explanation[.logo]?.level == .different)
        #expect(!prepared.match().together(Fixtures.key(1, "IB"), Fixtures.key(2, "ST")))
    }
}
