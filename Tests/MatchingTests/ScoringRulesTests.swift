import Hotels
import Testing

@testable import Matching

/// The rules that decide which pairs are scored and what catalogue codes are
/// worth, and the parts that make scoring fast without changing a score.
@Suite struct ScoringRulesTests {
    let matcher = Matcher()

    /// The records matched, and one pair of them explained, from one preparation.
    private func matchAndExplain(_ records: [MatchRecord], _ a: RecordKey, _ b: RecordKey) throws -> (MatchResult, PairExplanation) {
        let prepared = matcher.prepare(records)
        return (prepared.match(), try Fixtures.explain(prepared, a, b))
    }

    @Test func aWrongCatalogueCodeDoesNotVetoAPairWhosePhoneAgrees() throws {
        // One supplier's mapping gives the hotel another hotel's GIATA code.
        let records = [
            Fixtures.record(
                1, "A", name: "Hôtel Lutetia", address: "45 Boulevard Raspail", at: (48.85110, 2.32720),
                phone: "+33 1 49 54 46 00", references: ["giata": "107032"]),
            Fixtures.record(
                2, "A", name: "LUTETIA", address: "45 BD RASPAIL 75006 PARIS", at: (48.85120, 2.32700),
                phone: "01 49 54 46 00", references: ["giata": "116180"]),
        ]
        let (result, explanation) = try matchAndExplain(records, Fixtures.key(1, "A"), Fixtures.key(2, "A"))
        #expect(result.together(Fixtures.key(1, "A"), Fixtures.key(2, "A")))
        #expect(explanation[.reference]?.level == .different)
        #expect(explanation[.phone]?.level == .exact)
    }

    @Test func twoCatalogueCodesStillKeepApartWhatOnlyLooksAlike() {
        // Three records: A≈B and A≈C by name and place, but B and C have two codes in one catalogue and two phones.
        let records = [
            Fixtures.record(1, "A", name: "Hôtel du Théâtre", address: "12 Rue de la Gaîté", at: (48.84200, 2.32300)),
            Fixtures.record(
                2, "B", name: "Hotel du Theatre", address: "12 Rue de la Gaite", at: (48.84205, 2.32310),
                phone: "+33 1 43 20 00 01", references: ["giata": "1"]),
            Fixtures.record(
                3, "C", name: "HOTEL DU THEATRE", address: "12 R DE LA GAITE", at: (48.84195, 2.32305),
                phone: "+33 1 43 20 99 99", references: ["giata": "2"]),
        ]
        let result = matcher.match(records)
        #expect(!result.together(Fixtures.key(2, "B"), Fixtures.key(3, "C")))
    }

    @Test func aSharedCodeAloneDoesNotJoinTwoHotelsWhoseNamesAndPhonesDisagree() throws {
        // A catalogue mapped two different hotels of one street to one code.
        let records = [
            Fixtures.record(
                1, "A", name: "Hôtel Bellevue", address: "3 Rue Lepic", at: (48.88400, 2.33300),
                phone: "+33 1 46 06 00 01", references: ["giata": "55"]),
            Fixtures.record(
                1, "B", name: "Timhotel Montmartre", address: "11 Rue Ravignan", at: (48.88500, 2.33800),
                phone: "+33 1 42 55 74 79", references: ["giata": "55"]),
        ]
        let (result, explanation) = try matchAndExplain(records, Fixtures.key(1, "A"), Fixtures.key(1, "B"))
        #expect(!result.together(Fixtures.key(1, "A"), Fixtures.key(1, "B")))
        #expect(explanation[.reference]?.level == .conflicting)
        #expect(explanation[.reference]?.detail?.contains("mapping mistake") == true)
        #expect(explanation.decision == .noMatch)
    }

    @Test func aSharedCodeWithAnAgreeingNameStillJoins() {
        let records = [
            Fixtures.record(
                1, "A", name: "Hôtel Bellevue", at: (48.88400, 2.33300), phone: "+33 1 46 06 00 01", references: ["giata": "55"]),
            Fixtures.record(2, "A", name: "BELLEVUE", at: nil, phone: "+33 1 46 06 99 99", references: ["giata": "55"]),
        ]
        #expect(matcher.match(records).together(Fixtures.key(1, "A"), Fixtures.key(2, "A")))
    }

    @Test func nearbyRecordsArePairedOnlyWhenNearOrWhenTheirNamesShareAToken() {
        // 100 m, then 450 m from the first record; of the far ones, one shares a name token, one has it with a typo.
        let records = [
            Fixtures.record(1, "A", name: "Hôtel Aurore", at: (48.85000, 2.35000)),
            Fixtures.record(2, "NEAR", name: "Le Petit Zinc", at: (48.85090, 2.35000)),
            Fixtures.record(2, "FAR-SAME", name: "AURORE", at: (48.85405, 2.35000)),
            Fixtures.record(2, "FAR-TYPO", name: "Hotel Auorre", at: (48.85000, 2.35615)),
            Fixtures.record(2, "FAR-OTHER", name: "Villa Quelconque", at: (48.84595, 2.35000)),
        ]
        let prepared = matcher.prepare(records)
        let pairs = Set(prepared.pairs(of: prepared.candidates()))
        func paired(_ code: String) -> Bool {
            RecordPair(Fixtures.key(1, "A"), Fixtures.key(2, code)).map(pairs.contains) ?? false
        }
        #expect(paired("NEAR"))
        #expect(paired("FAR-SAME"))
        #expect(paired("FAR-TYPO"))
        #expect(!paired("FAR-OTHER"))
    }

    @Test(arguments: [1, 2, 3, 7])
    func parallelChunksGiveTheLoopsResultInOrder(cores: Int) {
        for count in [0, 1, 5, 100, 1_001] {
            for chunkSize in [1, 3, 64, 5_000] {
                let mapped = ParallelChunks.map(count, chunkSize: chunkSize, cores: cores) { range in range.map { $0 * 2 } }
                #expect(mapped == (0..<count).map { $0 * 2 })
            }
        }
    }

    @Test func theIntersectionOfTwoSortedListsIsTheirCommonElements() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let a = Array(Set((0..<Int.random(in: 0...40, using: &random)).map { _ in Int.random(in: 0...300, using: &random) })).sorted()
            let b = Array(Set((0..<Int.random(in: 0...2_000, using: &random)).map { _ in Int.random(in: 0...3_000, using: &random) }))
                .sorted()
            let expected = a.filter(Set(b).contains)
            #expect(TokenStatistics.intersection(a, b) == expected)
            #expect(TokenStatistics.intersection(b, a) == expected)
        }
    }

    @Test func theWeightTableHoldsTheModelsWeights() {
        #expect(Signal.allCases.enumerated().allSatisfy { $0.offset == $0.element.ordinal })
        #expect(AgreementLevel.allCases.enumerated().allSatisfy { $0.offset == $0.element.ordinal })
        let model = MatchModel.rules
        let table = WeightTable(model)
        for signal in Signal.allCases {
            for level in AgreementLevel.allCases {
                #expect(table[signal, level] == model.weight(signal, level), "\(signal) \(level)")
            }
        }
    }
}
