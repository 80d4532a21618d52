import Hotels
import Matching
import Seeding
import Testing

/// Matching again only what a refresh changed gives what matching every record gives.
@Suite struct RematchTests {
    /// A refresh of `records`: some gone, some new, names, positions and phones edited; as many records come as go.
    static func refreshed(_ records: [MatchRecord], seed: UInt64, changes: Int) -> [MatchRecord] {
        var random = SeededGenerator(seed: seed)
        var records = records.shuffled(using: &random)
        let gone = records.suffix(changes)
        records.removeLast(changes)
        for (number, record) in gone.enumerated() {
            var added = record
            added.hotel.code = "NEW\(seed)-\(number)"
            if number.isMultiple(of: 2) { added.hotel.name = (record.hotel.name ?? "") + " Annex" }
            records.append(added)
        }
        for index in records.indices.prefix(changes * 3) {
            switch index % 6 {
            case 0: records[index].hotel.name = (records[index].hotel.name ?? "") + " Plaza"
            case 1: records[index].hotel.name = String((records[index].hotel.name ?? "").dropLast())
            case 2: records[index].hotel.latitude = records[index].hotel.latitude.map { $0 + 0.002 }
            case 3: records[index].hotel.phone = nil
            case 4: (records[index].hotel.latitude, records[index].hotel.longitude) = (0, 0)
            default: records[index].hotel.name = (records[index].hotel.name ?? "").split(separator: " ").dropFirst().joined(separator: " ")
            }
        }
        return records
    }

    static func expectSame(_ incremental: MatchResult, _ full: MatchResult) {
        #expect(incremental.properties == full.properties)
        #expect(incremental.clustering.refusedLinks == full.clustering.refusedLinks)
        #expect(incremental.clustering.conflictingDecisions == full.clustering.conflictingDecisions)
        #expect(incremental.scoredPairs == full.scoredPairs)
        #expect(incremental.reviewPairs == full.reviewPairs)
        #expect(incremental.blocking == full.blocking)
        #expect(incremental.duplicateKeys == full.duplicateKeys)
    }

    @Test(
        "a refresh that adds, removes and edits records: matching again what it reached gives what matching every record gives",
        arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func sameAsFull(_ seed: UInt64) throws {
        let world = SyntheticWorld(hotels: 400, suppliers: 4, seed: 100 + seed)
        let matcher = Matcher()
        let before = matcher.prepare(world.records, keepingInputs: true)
        let previous = PreviousMatch(prepared: before, result: before.match(), decisions: [])
        let refreshed = Self.refreshed(world.records, seed: seed, changes: 5 + Int(seed) * 3)
        let after = matcher.prepare(refreshed, reusing: before)
        Self.expectReused(after, from: refreshed, matcher: matcher)
        let incremental = try #require(after.rematch(since: previous, decisions: []))
        Self.expectSame(incremental, after.match())
    }

    /// `after` took most records' normalised fields over, and holds what preparing its records afresh makes.
    static func expectReused(_ after: PreparedRecords, from records: [MatchRecord], matcher: Matcher) {
        let fresh = matcher.prepare(records)
        #expect(after.reusedRecords > after.records.count / 2 && after.reusedRecords < after.records.count)
        #expect(fresh.reusedRecords == 0)
        // Compared apart: a failure would print every record.
        let same = after.normalised == fresh.normalised
        #expect(same)
    }

    @Test("normalised fields are taken over only while the phones, codes and logos too many records share stay the same")
    func reuseNeedsTheSameSharedIdentifiers() throws {
        let world = SyntheticWorld(hotels: 100, suppliers: 4, seed: 303)
        // Eight records with one switchboard: at the cap, so each keeps it; a ninth makes it a shared one, dropped from all.
        let switchboard = (0..<9).map { Fixtures.record($0 % 4 + 1, "S\($0)", name: "Sorrel \($0)", phone: "+33 1 44 55 66 77") }
        let matcher = Matcher()
        let before = matcher.prepare(world.records + switchboard.prefix(8), keepingInputs: true)
        #expect(before.normalised.filter { $0.phone?.digits.hasSuffix("144556677") == true }.count == 8)
        let shared = matcher.prepare(world.records + switchboard, reusing: before)
        #expect(shared.reusedRecords == 0)
        let same = shared.normalised == matcher.prepare(world.records + switchboard).normalised
        #expect(same)
        #expect(!shared.normalised.contains { $0.phone?.digits.hasSuffix("144556677") == true })
        let renamed = world.records + switchboard.prefix(7) + [Fixtures.record(4, "S7", name: "Sorrel Annex", phone: "+33 1 44 55 66 77")]
        Self.expectReused(matcher.prepare(renamed, reusing: before), from: renamed, matcher: matcher)
    }

    @Test(
        "the same in a dense centre, where a record meets more neighbours than blocking keeps: a newcomer pushes others out",
        arguments: [11, 12] as [UInt64])
    func sameAsFullWhenCrowded(_ seed: UInt64) throws {
        let world = SyntheticWorld(hotels: 700, suppliers: 4, seed: 200 + seed, radiusMetres: 600)
        let matcher = Matcher()
        let before = matcher.prepare(world.records, keepingInputs: true)
        let previous = PreviousMatch(prepared: before, result: before.match(), decisions: [])
        let refreshed = Self.refreshed(world.records, seed: seed, changes: 12)
        let after = matcher.prepare(refreshed, reusing: before)
        Self.expectReused(after, from: refreshed, matcher: matcher)
        let incremental = try #require(after.rematch(since: previous, decisions: []))
        Self.expectSame(incremental, after.match())
    }

    @Test("the same when a new token takes the typo neighbours of thirty others away: tokens sharing a typo key with too many pair none")
    func sameAsFullWhenTypoNeighboursGo() throws {
        let world = SyntheticWorld(hotels: 100, suppliers: 4, seed: 300)
        // Thirty names that are "kwzrtq" and a letter more ("kwzrtqa", "kwzrtbq", …), 300 m apart in a row: near
        // enough to meet through their tokens, each one typo from another.
        let names = "abcdefghijklmnoprstuvwxyz".map { "Kwzrtq\($0)" } + "abcde".map { "Kwzrt\($0)q" }
        let row = names.indices.map { index in
            Fixtures.record(index % 4 + 1, "T\(index)", name: names[index], at: (48.9, 2.3 + 0.004 * Double(index)))
        }
        let matcher = Matcher()
        let before = matcher.prepare(world.records + row)
        let result = before.match()
        #expect(result.scoredPairs.contains { $0.pair.first.code.hasPrefix("T") && $0.pair.second.code.hasPrefix("T") })
        let previous = PreviousMatch(prepared: before, result: result, decisions: [])
        let after = matcher.prepare(world.records + row + [Fixtures.record(1, "T30", name: "Kwzrtfq", at: (48.95, 2.2))])
        let incremental = try #require(after.rematch(since: previous, decisions: []))
        Self.expectSame(incremental, after.match())
    }

    @Test("the same when one more record takes a pair of tokens over the cap: a group over it pairs none of its thirty others")
    func sameAsFullWhenAGroupGoesOverTheCap() throws {
        let world = SyntheticWorld(hotels: 100, suppliers: 4, seed: 301)
        // Thirty "Quillon Emberly" with no position and no phone: only the rule of a name's rarest pair of tokens pairs them.
        // The two tokens are on 60 records each and together on 46, counts whose weights one more record leaves as they are.
        let group = (0..<30).map { Fixtures.record($0 % 4 + 1, "G\($0)", name: "Quillon Emberly") }
        let both = (0..<16).map { Fixtures.record($0 % 4 + 1, "E\($0)", name: "Quillon Emberly Ea\($0)x Eb\($0)x Ec\($0)x") }
        let either = (0..<14).flatMap { number in
            [
                Fixtures.record(number % 4 + 1, "A\(number)", name: "Quillon Fa\(number)x"),
                Fixtures.record(number % 4 + 1, "B\(number)", name: "Emberly Fb\(number)x"),
            ]
        }
        let matcher = Matcher()
        let before = matcher.prepare(world.records + group + both + either)
        let result = before.match()
        #expect(result.scoredPairs.contains { $0.pair.first.code.hasPrefix("G") && $0.pair.second.code.hasPrefix("G") })
        let previous = PreviousMatch(prepared: before, result: result, decisions: [])
        let after = matcher.prepare(world.records + group + both + either + [Fixtures.record(1, "G30", name: "Quillon Emberly")])
        let incremental = try #require(after.rematch(since: previous, decisions: []))
        Self.expectSame(incremental, after.match())
        #expect(!incremental.scoredPairs.contains { $0.pair.first.code.hasPrefix("G") && $0.pair.second.code.hasPrefix("G") })
    }

    @Test("the same when one more record makes a token too common to pair its records, with weights that did not move")
    func sameAsFullWhenATokenStopsBeingRare() throws {
        // 45 records' token pairs them all while "rare" means at most 45; 46 weigh as 45 did (an eighth of a bit).
        var configuration = MatchConfiguration.default
        configuration.blocking.rareTokenMaxRecords = 45
        let matcher = Matcher(configuration: configuration)
        let records = (0..<45).map { Fixtures.record($0 % 4 + 1, "Z\($0)", name: "Zephyrine") }
        let before = matcher.prepare(records)
        let result = before.match()
        #expect(!result.scoredPairs.isEmpty)
        let previous = PreviousMatch(prepared: before, result: result, decisions: [])
        let after = matcher.prepare(records + [Fixtures.record(1, "Z45", name: "Zephyrine")])
        let incremental = try #require(after.rematch(since: previous, decisions: []))
        Self.expectSame(incremental, after.match())
        #expect(incremental.scoredPairs.isEmpty)
    }

    @Test("the same when one more record makes a token no longer distinctive: other hotels of a name then count namesakes it kept out")
    func sameAsFullWhenATokenStopsBeingDistinctive() throws {
        // "Vesper" on 361 of 366 records is worth 2 bits, as distinctive as a token must be; on 362 of 367, an eighth less.
        let vespers = (0..<360).map { Fixtures.record($0 % 4 + 1, "V\($0)", name: "Vesper Kx\($0)y") }
        // Supplier 1 has two hotels called Lumen, and a Lumen Vesper, which counts as one more Lumen once "vesper" is not distinctive.
        let lumens = [
            Fixtures.record(1, "L1", name: "Lumen", phone: "+33 1 40 00 00 01"),
            Fixtures.record(1, "L2", name: "Lumen", phone: "+33 1 40 00 00 02"),
            Fixtures.record(2, "L1", name: "Lumen", phone: "+33 1 40 00 00 01"),
            Fixtures.record(2, "L2", name: "Lumen", phone: "+33 1 40 00 00 02"),
            Fixtures.record(1, "L3", name: "Lumen Vesper", phone: "+33 1 40 00 00 03"),
        ]
        let matcher = Matcher()
        let before = matcher.prepare(vespers + lumens)
        let previous = PreviousMatch(prepared: before, result: before.match(), decisions: [])
        let after = matcher.prepare(vespers + lumens + [Fixtures.record(1, "V360", name: "Vesper Kx360y")])
        let incremental = try #require(after.rematch(since: previous, decisions: []))
        Self.expectSame(incremental, after.match())
        let lumen = try #require(RecordPair(Fixtures.key(1, "L1"), Fixtures.key(2, "L1")))
        #expect(
            previous.result.scoredPairs.first { $0.pair == lumen }?.score != incremental.scoredPairs.first { $0.pair == lumen }?.score)
    }

    @Test("matching again needs every pair when the decisions changed, or the scope grew past a step of its weights")
    func everyPairWhenTheWeightsOrDecisionsMove() throws {
        let world = SyntheticWorld(hotels: 100, suppliers: 3, seed: 302)
        let matcher = Matcher()
        let before = matcher.prepare(world.records)
        let previous = PreviousMatch(prepared: before, result: before.match(), decisions: [])
        let decision = PairDecision(pair: try #require(RecordPair(before.keys[0], before.keys[1])), verdict: .different)
        #expect(before.rematch(since: previous, decisions: [decision]) == nil)
        // A tenth more records: log₂ of the records seen (with the prior of 1,000) moves past an eighth of a bit.
        let more = (0..<150).map { Fixtures.record(1, "M\($0)", name: "Morehotel \($0)") }
        #expect(matcher.prepare(world.records + more).rematch(since: previous, decisions: []) == nil)
        #expect(before.rematch(since: previous, decisions: []) != nil)
    }
}
