import Matching
import Testing

@Suite struct BlockingTests {
    /// Cities of 150 to 1,200 hotels at one density: the work per record must not grow with the city.
    @Test func candidatePairsPerRecordStayBoundedAsTheCityGrows() {
        let configuration = MatchConfiguration.default.blocking
        var perRecord: [Double] = []
        for hotels in [150, 300, 600, 1_200] {
            let radius = 4_500 * (Double(hotels) / 700).squareRoot()
            let world = SyntheticWorld(hotels: hotels, suppliers: 4, seed: UInt64(hotels), radiusMetres: radius)
            let prepared = Matcher().prepare(world.records)
            let candidates = prepared.candidates()
            perRecord.append(candidates.perRecord)
            // Every rule has its own bound.
            let bound = Double(configuration.maxNeighbours + 2 * configuration.rareTokenMaxRecords + 2 * configuration.maxSharedKeyRecords)
            #expect(candidates.perRecord <= bound)
        }
        print("candidate pairs per record at 150, 300, 600, 1,200 hotels:", perRecord.map { ($0 * 10).rounded() / 10 })
        #expect((perRecord.last ?? 0) <= 1.5 * (perRecord.first ?? 0) + 10)
    }

    @Test func recordsWithoutPositionsStillGetCandidates() throws {
        let records = [
            Fixtures.record(1, "A", name: "Hôtel Lutetia", at: (48.85110, 2.32720), phone: "+33 1 49 54 46 00"),
            Fixtures.record(2, "A", name: "LUTETIA", at: nil),
            Fixtures.record(3, "A", name: "Palais Royal", at: nil, phone: "01 49 54 46 00"),
            Fixtures.record(4, "A", name: "Hôtel Xenon", at: nil, references: ["giata": "42"]),
            Fixtures.record(5, "A", name: "Hôtel Ypsilon", at: nil, references: ["giata": "42"]),
        ]
        let prepared = Matcher().prepare(records)
        let candidates = prepared.candidates()
        let pairs = Set(prepared.pairs(of: candidates))
        #expect(pairs.contains(try #require(RecordPair(records[0].key, records[1].key))))
        #expect(pairs.contains(try #require(RecordPair(records[0].key, records[2].key))))
        #expect(pairs.contains(try #require(RecordPair(records[3].key, records[4].key))))
        #expect(candidates.proposedBy[.rareNameToken] == 1)
        #expect(candidates.proposedBy[.phone] == 1)
        #expect(candidates.proposedBy[.reference] == 1)
    }

    @Test("a token with a doubled letter counts once towards its typo key's cap: thirty tokens of one key still meet their typos")
    func doubledLetterCountsOnceTowardsTheTypoCap() throws {
        // Thirty tokens that are "kwzrtq" and a letter more; "kwzrtqq" gives the key "kwzrtq" whichever q it drops.
        let names = "abcdefghijklmnoprstuvwxy".map { "Kwzrtq\($0)" } + "abcde".map { "Kwzrt\($0)q" } + ["Kwzrtqq"]
        #expect(names.count == MatchConfiguration.default.blocking.maxSharedKeyRecords)
        // 300 m apart in a row: too far to meet as near records, near enough to meet through a token one typo away.
        let records = names.indices.map { index in
            Fixtures.record(index % 4 + 1, "T\(index)", name: names[index], at: (48.9, 2.3 + 0.004 * Double(index)))
        }
        let prepared = Matcher().prepare(records)
        let pairs = Set(prepared.pairs(of: prepared.candidates()))
        #expect(pairs.contains(try #require(RecordPair(records[0].key, records[1].key))))
    }
}
