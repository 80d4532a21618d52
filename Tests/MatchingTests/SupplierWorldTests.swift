import Foundation
import Hotels
import SupplierWorlds
import Testing

/// The world `hotels serve --supplier N` serves, and the matching tests' city it grew from.
@Suite struct SupplierWorldTests {
    static let served = SupplierWorld(.served(hotels: 1_500, seed: 11), suppliers: 1...5)

    @Test func theSameSeedGivesTheSameWorld() {
        let again = SupplierWorld(.served(hotels: 1_500, seed: 11), suppliers: 1...5)
        #expect(again.records == Self.served.records)
        #expect(again.cities.map(\.hotels) == Self.served.cities.map(\.hotels))
        let other = SupplierWorld(.served(hotels: 1_500, seed: 12), suppliers: 1...5)
        #expect(other.records != Self.served.records)
        // A stream per supplier: one supplier's view alone is the same as beside the others'.
        for supplier in [1, 3, 5] {
            let alone = SupplierWorld(.served(hotels: 1_500, seed: 11), suppliers: [supplier])
            #expect(alone.records == Self.served.records.filter { $0.supplier == supplier })
        }
    }

    /// Each supplier has noise of its own: two suppliers seldom place one hotel at the very same point.
    @Test func suppliersDoNotShareTheirNoise() {
        let positions = Dictionary(grouping: Self.served.records, by: \.supplier).mapValues { records in
            Dictionary(
                records.compactMap { record in
                    record.hotel.latitude.map { (record.hotelID, "\($0) \(record.hotel.longitude ?? 0)") }
                }
            ) { first, _ in first }
        }
        for (first, second) in [(1, 3), (3, 5), (2, 4), (1, 2)] {
            let (a, b) = (positions[first] ?? [:], positions[second] ?? [:])
            let shared = Set(a.keys).intersection(b.keys)
            let same = shared.count { a[$0] == b[$0] }
            #expect(shared.count > 500)
            #expect(Double(same) < 0.05 * Double(shared.count), "suppliers \(first) and \(second): \(same) of \(shared.count) at one point")
        }
    }

    /// The matching tests' worlds are the records they were made of before the generator moved here: pinned by a
    /// fingerprint of every field, taken from the generator as it was in the test target.
    @Test(arguments: [
        (hotels: 700, seed: UInt64(47), records: 1_971, fingerprint: UInt64(0x223B_569E_D13C_6EAF)),
        (hotels: 250, seed: 2024, records: 694, fingerprint: UInt64(0xF61A_8837_9DE5_EE4C)),
    ])
    func theMatchingTestsWorldsAreAsTheyWere(_ pinned: (hotels: Int, seed: UInt64, records: Int, fingerprint: UInt64)) {
        let world = SupplierWorld(.matchingTests(hotels: pinned.hotels, seed: pinned.seed), suppliers: 1...4)
        #expect(world.records.count == pinned.records)
        let text = world.records.map { Self.line($0) }.joined()
        #expect(text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 } == pinned.fingerprint)
    }

    @Test func everyHardCaseIsInTheWorld() throws {
        let world = Self.served
        #expect(Set(world.hardCases.keys) == Set(HardCase.allCases))
        let hotels = Dictionary(uniqueKeysWithValues: world.cities.flatMap(\.hotels).map { ($0.id, $0) })
        let bySupplier = Dictionary(grouping: world.records, by: \.supplier)
        // Every planted hotel is listed by every supplier.
        for (_, ids) in world.hardCases {
            for id in ids { #expect((1...5).allSatisfy { supplier in bySupplier[supplier]?.contains { $0.hotelID == id } == true }) }
        }
        func address(_ hotel: TrueHotel) -> String { "\(hotel.houseNumber) \(hotel.street.type) \(hotel.street.name), \(hotel.city)" }

        // Sibling brands in one building: one brand's name inside the other's, one address.
        let siblings = try #require(world.hardCases[.siblingBrands]).compactMap { hotels[$0] }
        try #require(siblings.count == 2)
        #expect(address(siblings[0]) == address(siblings[1]))
        let brands = siblings.compactMap(\.brand)
        try #require(brands.count == 2)
        #expect(brands[0] != brands[1] && brands[1].hasPrefix(brands[0]))
        #expect(siblings[0].name == "Ibis Paris Gare du Nord" && siblings[1].name == "Ibis Styles Paris Gare du Nord")

        // Two hotels of one complex: one address, one switchboard.
        let complex = try #require(world.hardCases[.complex]).compactMap { hotels[$0] }
        try #require(complex.count == 2)
        #expect(address(complex[0]) == address(complex[1]) && complex[0].brand != complex[1].brand)
        #expect(complex[0].phone.dropLast(2) == complex[1].phone.dropLast(2) && complex[0].phone != complex[1].phone)

        // One brand twice a few hundred metres apart, the names one landmark word apart.
        let twice = try #require(world.hardCases[.brandTwiceNearby]).compactMap { hotels[$0] }
        try #require(twice.count == 2)
        #expect(twice[0].brand == twice[1].brand)
        #expect((100...1_000).contains(Self.metres(twice[0], twice[1])))
        #expect(twice[1].nameWords.dropLast() == twice[0].nameWords[...] && twice[1].nameWords.count == twice[0].nameWords.count + 1)

        // Generic names at several places of a city, far apart; the random part of the world has them too.
        for name in ["Grand Hôtel", "Hôtel Central"] {
            let carriers = hotels.values.filter { $0.city == "Paris" && $0.name == name }
            #expect(carriers.count >= 2)
            #expect(carriers.contains { a in carriers.contains { b in Self.metres(a, b) > 1_000 } })
        }
        // (A generic name is a name of one part, as no brand's or made-up name is.)
        let londonGeneric = hotels.values.filter { $0.city == "London" && $0.brand == nil && $0.nameWords.count == 1 }
        #expect(Dictionary(grouping: londonGeneric, by: \.name).values.contains { $0.count >= 2 })

        // Each supplier lists a hotel twice under two codes: the planted one, and about 1.5 % of the others.
        let duplicated = try #require(world.hardCases[.supplierDuplicate]?.first)
        for supplier in 1...5 {
            let records = bySupplier[supplier] ?? []
            #expect(records.filter { $0.hotelID == duplicated }.count == 2)
            let twiceListed = Dictionary(grouping: records, by: \.hotelID).values.filter { $0.count == 2 }
            #expect(twiceListed.count > 3)
            #expect(Set(records.map(\.hotel.code)).count == records.count, "codes are unique per supplier")
        }

        // Records with no position, no address, no logo: the planted ones in the suppliers that leave each out, and others at random.
        let lacking: [(HardCase, @Sendable (SupplierRecord) -> Bool)] = [
            (.noPosition, { $0.hotel.latitude == nil }), (.noAddress, { $0.hotel.address == nil }),
            (.noLogo, { $0.hotel.logoURL == nil && $0.logo == nil }),
        ]
        for (hardCase, lacks) in lacking {
            let id = try #require(world.hardCases[hardCase]?.first)
            let records = world.records.filter { $0.hotelID == id }
            #expect(records.filter(lacks).count == 4, "\(hardCase)")
            #expect(world.records.filter { $0.hotelID != id }.contains(where: lacks), "\(hardCase)")
        }
    }

    @Test func eachSupplierHasItsHabits() throws {
        let bySupplier = Dictionary(grouping: Self.served.records, by: \.supplier)
        let cities = Set(Self.served.records.map(\.listCity))
        #expect(cities == ["Paris", "London", "Berlin", "New York"])
        for (supplier, records) in bySupplier {
            // GIATA ids from suppliers 2 and 4 only, chain codes too; ratings from the others.
            #expect(records.contains { $0.hotel.references?["giata"] != nil } == [2, 4].contains(supplier))
            #expect(records.contains { $0.hotel.chainCode != nil } == [2, 4].contains(supplier))
            #expect(records.contains { $0.hotel.rating != nil } == [1, 3, 5].contains(supplier))
            #expect(records.allSatisfy { $0.hotel.city == $0.listCity && $0.hotel.countryCode?.count == 2 })
            let sizes = Set(records.compactMap { $0.logo?.size })
            #expect(sizes.count == 1, "one size per supplier")
        }
        let paris2 = try #require(bySupplier[2]).filter { $0.listCity == "Paris" }
        // Upper case but for the typos (which may bring a lower-case letter).
        #expect(paris2.filter { $0.hotel.name == $0.hotel.name?.uppercased() }.count * 100 >= paris2.count * 85)
        #expect(paris2.compactMap(\.hotel.phone).allSatisfy { $0.hasPrefix("+33") && !$0.contains(" ") })
        let berlin2 = try #require(bySupplier[2]).filter { $0.listCity == "Berlin" }
        #expect(berlin2.compactMap(\.hotel.address).contains { $0.contains(" STR ") || $0.contains("STR ") })
        #expect(!berlin2.compactMap(\.hotel.address).contains { $0.contains("ß") || $0.contains("Ü") })
        let paris3 = try #require(bySupplier[3]).filter { $0.listCity == "Paris" }
        #expect(paris3.compactMap(\.hotel.phone).allSatisfy { $0.hasPrefix("0033 ") })
        // A chain's hotels share their brand's picture; each supplier encodes it its own way.
        let logos = Dictionary(grouping: Self.served.records.compactMap { record in record.logo.map { (record.hotelID, $0) } }, by: \.0)
        #expect(logos.values.contains { Set($0.map(\.1.picture)).count == 1 && Set($0.map(\.1.size)).count > 1 })
    }

    @Test func theTruthHasALinePerRecord() throws {
        let records = Self.served.records.filter { $0.supplier == 4 }
        let lines = SupplierWorld.truthLines(records).split(separator: "\n")
        #expect(lines.count == records.count)
        var codes = Set<String>()
        for (line, record) in zip(lines, records) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(
                object["supplier"] as? Int == 4 && object["hotel"] as? Int == record.hotelID && object["city"] as? String == record.listCity
            )
            let code = try #require(object["code"] as? String)
            #expect(code == record.hotel.code && codes.insert(code).inserted)
        }
        // The planted hotels' lines name their case; the others have no such key.
        let planted = SupplierWorld.truthLines(records, hardCases: Self.served.hardCases).split(separator: "\n")
        let named = try planted.compactMap { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["hardCase"] as? String
        }
        #expect(Set(named) == Set(HardCase.allCases.map(\.rawValue)))
        #expect(named.count < records.count / 10)
    }

    static func metres(_ a: TrueHotel, _ b: TrueHotel) -> Double {
        let dy = (a.latitude - b.latitude) * 111_195
        let dx = (a.longitude - b.longitude) * 111_195 * cos(a.latitude * .pi / 180)
        return (dx * dx + dy * dy).squareRoot()
    }

    static func line(_ record: SupplierRecord) -> String {
        let h = record.hotel
        let references = (h.references ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return "\(record.supplier)|\(record.hotelID)|\(h.code)|\(h.name ?? "-")|\(h.address ?? "-")|\(h.latitude.map { "\($0)" } ?? "-")|"
            + "\(h.longitude.map { "\($0)" } ?? "-")|\(h.logoURL ?? "-")|\(h.phone ?? "-")|\(h.chainCode ?? "-")|\(h.rating.map { "\($0)" } ?? "-")|"
            + "\(h.postalCode ?? "-")|\(h.city ?? "-")|\(h.countryCode ?? "-")|\(references)\n"
    }
}
