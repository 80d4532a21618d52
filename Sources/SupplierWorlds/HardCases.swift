/// The hard cases, planted in Paris so that every served world has
/// each of them whatever its size and seed. Every supplier lists every
/// planted hotel (with its usual noise), and some of them as below.
public enum HardCase: String, Sendable, CaseIterable {
    /// "Ibis Paris Gare du Nord" and "Ibis Styles Paris Gare du Nord", one address: two hotels.
    case siblingBrands
    /// Two hotels of one complex: one address, one switchboard (numbers apart in the last two digits).
    case complex
    /// One brand twice, a few hundred metres apart, the names one landmark word apart.
    case brandTwiceNearby
    /// "Grand Hôtel" and "Hôtel Central" at two places each.
    case genericNames
    /// One supplier listing the same hotel twice under two codes: every supplier does, for this hotel.
    case supplierDuplicate
    /// Records with no position (all suppliers but 5), no address (all but 1), no logo (all but 3).
    case noPosition, noAddress, noLogo
}

/// The planted hotels, each with the case it stands for.
enum HardCases {
    struct Planted {
        var hotel: TrueHotel
        var hardCase: HardCase
    }

    /// Suppliers that list a hard case's hotel without the field; the others send it.
    static func lacks(_ hardCase: HardCase, supplier: Int) -> Bool {
        switch hardCase {
        case .noPosition: supplier != 5
        case .noAddress: supplier != 1
        case .noLogo: supplier != 3
        default: false
        }
    }

    static func hotels(in city: WorldCity) -> [Planted] {
        func street(_ type: String, _ name: String, _ latitude: Double, _ longitude: Double) -> Street {
            Street(type: type, name: name, latitude: latitude, longitude: longitude)
        }
        func hotel(
            _ brand: String?, _ words: [String], chain: String? = nil, _ number: Int, _ street: Street, _ latitude: Double,
            _ longitude: Double, phone: String, rating: Int, giata: String
        ) -> TrueHotel {
            TrueHotel(
                id: 0, city: city.name, brand: brand, nameWords: words, descriptor: nil, houseNumber: number, street: street,
                latitude: latitude, longitude: longitude, phone: phone,
                postalCode: SyntheticCity.postalCode(in: city, latitude: latitude, longitude: longitude), chainCode: chain,
                rating: rating, giata: giata)
        }
        let maubeuge = street("Rue", "de Maubeuge", 48.8800, 2.3540)
        let mouchotte = street("Rue", "du Commandant René Mouchotte", 48.8395, 2.3200)
        let lyon = street("Rue", "de Lyon", 48.8450, 2.3730)
        let diderot = street("Boulevard", "Diderot", 48.8468, 2.3782)
        let name = city.name
        return [
            Planted(
                hotel: hotel(
                    "Ibis", [name, "Gare du Nord"], chain: "RT", 31, maubeuge, 48.88062, 2.35418, phone: "140051200", rating: 3,
                    giata: "900001"),
                hardCase: .siblingBrands),
            Planted(
                hotel: hotel(
                    "Ibis Styles", [name, "Gare du Nord"], chain: "RT", 31, maubeuge, 48.88065, 2.35422, phone: "140051290",
                    rating: 3, giata: "900002"), hardCase: .siblingBrands),
            Planted(
                hotel: hotel(
                    "Pullman", [name, "Montparnasse"], chain: "RT", 19, mouchotte, 48.83905, 2.31896, phone: "144364400",
                    rating: 4, giata: "900003"), hardCase: .complex),
            Planted(
                hotel: hotel(
                    "Mercure", [name, "Montparnasse"], chain: "RT", 19, mouchotte, 48.83911, 2.31905, phone: "144364437",
                    rating: 4, giata: "900004"), hardCase: .complex),
            Planted(
                hotel: hotel(
                    "Novotel", [name, "Gare de Lyon"], chain: "RT", 2, lyon, 48.84452, 2.37345, phone: "143420101",
                    rating: 4, giata: "900005"), hardCase: .brandTwiceNearby),
            Planted(
                hotel: hotel(
                    "Novotel", [name, "Gare de Lyon", "Diderot"], chain: "RT", 30, diderot, 48.84660, 2.37790,
                    phone: "146288899", rating: 4, giata: "900006"), hardCase: .brandTwiceNearby),
            Planted(
                hotel: hotel(
                    nil, ["Grand Hôtel"], 12, street("Rue", "Saint-Jacques", 48.8510, 2.3440), 48.85112, 2.34418,
                    phone: "143549501", rating: 3, giata: "900007"), hardCase: .genericNames),
            Planted(
                hotel: hotel(
                    nil, ["Grand Hôtel"], 140, street("Rue", "de Vaugirard", 48.8430, 2.3080), 48.84290, 2.30815,
                    phone: "145327702", rating: 2, giata: "900008"), hardCase: .genericNames),
            Planted(
                hotel: hotel(
                    nil, ["Hôtel Central"], 40, street("Rue", "de Rennes", 48.8495, 2.3300), 48.84948, 2.32994,
                    phone: "145486003", rating: 2, giata: "900009"), hardCase: .genericNames),
            Planted(
                hotel: hotel(
                    nil, ["Hôtel Central"], 88, street("Avenue", "Daumesnil", 48.8400, 2.3890), 48.84003, 2.38911,
                    phone: "143438404", rating: 2, giata: "900010"), hardCase: .genericNames),
            Planted(
                hotel: hotel(
                    nil, ["Hôtel", "Lumentine"], 54, street("Rue", "de Charonne", 48.8535, 2.3800), 48.85351, 2.38012,
                    phone: "147007505", rating: 3, giata: "900011"), hardCase: .supplierDuplicate),
            Planted(
                hotel: hotel(
                    nil, ["Le", "Brémaudière"], 7, street("Rue", "Mouffetard", 48.8430, 2.3495), 48.84297, 2.34961,
                    phone: "143316606", rating: 2, giata: "900012"), hardCase: .noPosition),
            Planted(
                hotel: hotel(
                    nil, ["Hôtel", "du", "Clairvoult"], 21, street("Rue", "Oberkampf", 48.8650, 2.3740), 48.86498, 2.37404,
                    phone: "148067707", rating: 3, giata: "900013"), hardCase: .noAddress),
            Planted(
                hotel: hotel(
                    nil, ["Trémonsel", "Hôtel"], 65, street("Boulevard", "Raspail", 48.8450, 2.3290), 48.84503, 2.32906,
                    phone: "145489808", rating: 4, giata: "900014"), hardCase: .noLogo),
        ]
    }
}
