import Foundation
import Hotels
import Matching
import Testing

/// Input no supplier should send, and some do: matching never crashes and says something sensible.
@Suite struct BadInputTests {
    let matcher = Matcher()

    @Test func noRecords() {
        let result = matcher.match([])
        #expect(result.properties.isEmpty)
        #expect(result.reviewPairs.isEmpty)
        #expect(result.blocking.candidatePairs == 0)
        #expect(result.blocking.pairsPerRecord == 0)
    }

    @Test func oneRecord() {
        let result = matcher.match([Fixtures.record(1, "A", name: "Hôtel Lutetia", at: (48.8511, 2.3272))])
        #expect(result.properties.count == 1)
        #expect(result.properties.first?.members == [Fixtures.key(1, "A")])
        #expect(result.properties.first?.tier == .strict)
    }

    @Test func recordsWithoutNamesAreMatchedByTheRest() {
        let records = [
            Fixtures.record(1, "A", name: nil, address: "45 Boulevard Raspail", at: (48.85110, 2.32720), phone: "+33 1 49 54 46 00"),
            Fixtures.record(2, "A", name: "   ", address: "45 BD RASPAIL", at: (48.85120, 2.32730), phone: "0149544600"),
            Fixtures.record(3, "A", name: "", address: nil, at: nil, phone: nil),
            Fixtures.record(4, "A", name: "---", address: nil, at: nil, phone: nil),
        ]
        let prepared = matcher.prepare(records)
        #expect(prepared.normalised(Fixtures.key(1, "A"))?.name == nil)
        #expect(prepared.normalised(Fixtures.key(4, "A"))?.name == nil)
        let result = prepared.match()
        #expect(result.together(Fixtures.key(1, "A"), Fixtures.key(2, "A")))
        #expect(result.property(of: Fixtures.key(3, "A"))?.members.count == 1)
        #expect(result.properties.flatMap(\.members).count == 4)
    }

    @Test func aFiveThousandCharacterName() throws {
        let long = String(repeating: "Grand Hôtel Magnifique ", count: 220) + "Fin"
        #expect(long.count > 5_000)
        let unbroken = String(repeating: "x", count: 5_000)
        let records = [
            Fixtures.record(
                1, "LONG", name: long, address: String(repeating: "Rue ", count: 1_300), at: (48.86, 2.34), phone: "+33 1 40 00 00 00"),
            Fixtures.record(2, "LONG", name: long.uppercased(), at: (48.8601, 2.3401), phone: "0140000000"),
            Fixtures.record(3, "X", name: unbroken, at: (48.87, 2.35)),
        ]
        let started = Date()
        let prepared = matcher.prepare(records)
        let result = prepared.match()
        #expect(Date().timeIntervalSince(started) < 5)
        let name = try #require(prepared.normalised(Fixtures.key(1, "LONG"))?.name)
        #expect(name.display.count == MatchConfiguration.default.normalisation.maxCharacters)
        #expect(name.tokens.count <= MatchConfiguration.default.normalisation.maxTokens)
        #expect(result.together(Fixtures.key(1, "LONG"), Fixtures.key(2, "LONG")))
        #expect(prepared.normalised(Fixtures.key(3, "X"))?.name?.tokens.first?.count ?? 0 <= 48)
    }

    @Test func cjkNamesCompareByCharacters() throws {
        let records = [
            Fixtures.record(1, "BJ", name: "北京饭店", address: "东长安街33号", at: (39.90870, 116.40870), phone: "+86 10 6513 7766", city: "北京"),
            Fixtures.record(2, "BJ", name: "北京饭店", address: nil, at: (39.90890, 116.40900), phone: "010 6513 7766", city: "北京"),
            Fixtures.record(1, "WF", name: "北京王府井大饭店", at: (39.91300, 116.41000), city: "北京"),
            Fixtures.record(1, "NO", name: "ホテルニューオータニ東京", at: (35.68000, 139.73400), phone: "+81 3 3265 1111", city: "東京"),
            Fixtures.record(2, "NO", name: "ホテル ニューオータニ 東京", at: (35.68010, 139.73420), phone: "03-3265-1111", city: "東京"),
            Fixtures.record(3, "NO", name: "Hotel New Otani Tokyo", at: (35.68020, 139.73390), phone: "+81332651111", city: "Tokyo"),
        ]
        let prepared = matcher.prepare(records)
        let tokens = try #require(prepared.normalised(Fixtures.key(1, "BJ"))?.name?.tokens)
        // "饭店" is "hotel": gone, and each remaining character a token.
        #expect(tokens == ["北", "京"])
        let result = prepared.match()
        #expect(result.together(Fixtures.key(1, "BJ"), Fixtures.key(2, "BJ")))
        #expect(!result.together(Fixtures.key(1, "BJ"), Fixtures.key(1, "WF")))
        #expect(result.property(of: Fixtures.key(1, "NO"))?.members.count == 3)
    }

    @Test func hostileUnicodeAndNumbers() {
        let names = [
            "🏨🏨🏨", "\u{202E}letoH\u{202C}", "e\u{301}\u{301}\u{301}\u{301}", "\u{0}\u{1}\u{7F}", "Z̸̢̛̗̈́a̶̡̛l̷̨g̴o̵", "\u{200B}\u{FEFF}",
            "हॉटल ताज", "فندق", "Ωmega & Co.", "&&&", "'''", "1 2 3", "Ｈｏｔｅｌ　Ｆｕｌｌ",
        ]
        var records = names.enumerated().map { index, name in
            Fixtures.record(
                1, "U\(index)", name: name, address: name, at: (48.86 + Double(index) * 0.0001, 2.34), phone: name, postalCode: name,
                chain: name, references: [name: name, "giata": name])
        }
        records.append(Fixtures.record(2, "NAN", name: "Not a Number", at: (Double.nan, Double.infinity), rating: .nan))
        records.append(Fixtures.record(2, "BIG", name: "Out of Range", at: (1e300, -1e300), rating: -3))
        let result = matcher.match(records)
        #expect(result.properties.flatMap(\.members).count == records.count)
    }

    @Test func theSameKeyTwiceIsOneRecord() {
        let records = [
            Fixtures.record(1, "A", name: "Hôtel Régina", list: 7),
            Fixtures.record(1, "A", name: "Hotel Regina", list: 3),
        ]
        let prepared = matcher.prepare(records)
        #expect(prepared.records.count == 1)
        #expect(prepared.records.first?.source.listID == 3)
        #expect(prepared.duplicates.map(\.source.listID) == [7])
    }
}

@Suite struct SharedIdentifierTests {
    @Test func aCentralReservationsNumberIsNoOneHotelsPhone() throws {
        // Ten Ibis hotels across Paris, every one listed with the chain's central number.
        let records = (0..<10).map { index in
            Fixtures.record(
                1 + index % 2, "IB\(index)", name: "Ibis Paris \(["Bastille", "Opéra", "Nation", "Bercy", "Italie"][index / 2])",
                at: (48.83 + Double(index / 2) * 0.01, 2.30 + Double(index / 2) * 0.02), phone: "+33 1 40 00 00 00")
        }
        let prepared = Matcher().prepare(records)
        #expect(prepared.normalised.allSatisfy { $0.phone == nil })
        let result = prepared.match()
        #expect(result.properties.count == 5)
    }
}
