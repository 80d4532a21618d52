import Foundation

/// What a city of the synthetic world is made of: its centre, landmarks,
/// streets and how they are written, hotel words, phones and postal codes.
/// Paris is the matching tests' city, and gives exactly the hotels it gave
/// when it was the only one.
public struct WorldCity: Sendable {
    /// How a street and its house number are written.
    public enum StreetGrammar: Sendable {
        /// "12 Rue de Rivoli"
        case french
        /// "12 Baker Street"
        case english
        /// "Friedrichstraße 12": the type is a suffix, the number comes last.
        case german
    }

    public var name: String
    /// ISO 3166-1 alpha-2.
    public var countryCode: String
    public var latitude: Double
    public var longitude: Double
    /// Metres per degree of longitude at the centre.
    var metresPerDegreeLongitude: Double
    var landmarks: [(name: String, latitude: Double, longitude: Double)]
    /// Brand, chain code, and the sibling brand that may share its building.
    var brands: [(name: String, chain: String, sibling: String?)]
    /// Names that many unrelated hotels carry.
    var genericNames: [String]
    /// The word for hotel as the city's hotels write it ("Hôtel").
    var hotelWord: String
    /// Independent hotels' name patterns; "*" is the made-up word.
    var independentPatterns: [[String]]
    /// Words a short-name supplier leaves out besides the city and the hotel word ("Le").
    var articles: [String]
    var descriptors: [String]
    var streetGrammar: StreetGrammar
    var streetTypes: [String]
    var streetNames: [String]
    /// A GDS's street-type abbreviations, and a short-name supplier's.
    var upperAbbreviations: [String: String]
    var shortAbbreviations: [String: String]
    /// Replacements a "Hotel …" supplier makes in names ("Saint-" to "St ").
    var nameAbbreviations: [(String, String)]
    /// Spellings older systems use for letters they lack (ü as ue), before accents are dropped.
    var transliterations: [(String, String)]
    /// The international dialling code ("33"), the trunk prefix ("0"), the area code of
    /// the national number ("1"), the subscriber digits after it, and how the national
    /// number is grouped when written ("1 42 36 00 00": 1, 2, 2, 2, 2).
    var diallingCode: String
    var trunkPrefix: String
    var areaCode: String
    var subscriberDigits: Int
    var phoneGroups: [Int]
    /// "F" as in "F-75001", for a supplier that writes it.
    var postalCountryLetter: String?
    var postalCode: @Sendable (_ dx: Double, _ dy: Double) -> String

    /// The number of hotels per square kilometre of the matching tests' Paris: 700 within 4.5 km.
    public static func radius(forHotels count: Int) -> Double {
        max(1_500, 4_500 * (Double(max(count, 1)) / 700).squareRoot())
    }

    /// Paris, London, Berlin and New York, with the share of the world's hotels each has.
    public static let all: [(city: WorldCity, share: Double)] = [(.paris, 0.4), (.london, 0.25), (.berlin, 0.15), (.newYork, 0.2)]

    public static func named(_ name: String) -> WorldCity? {
        all.first { $0.city.name.lowercased() == name.lowercased() }?.city
    }

    /// "Rue de Rivoli", "Baker Street", "Friedrichstraße".
    func street(type: String, name: String) -> String {
        switch streetGrammar {
        case .french: "\(type) \(name)"
        case .english: "\(name) \(type)"
        // "Frankfurter Allee", "Karl-Marx-Allee": after a separate word, the type is a word of its own.
        case .german: name.last == " " || name.last == "-" ? name + type.prefix(1).uppercased() + type.dropFirst() : name + type
        }
    }

    /// A street with its house number, `separator` between number and street when the number comes first.
    func numbered(_ number: String, _ street: String, separator: String = " ") -> String {
        streetGrammar == .german ? "\(street) \(number)" : "\(number)\(separator)\(street)"
    }

    /// The national number's digits grouped for writing.
    func groups(of digits: String) -> [Substring] {
        var groups: [Substring] = []
        var rest = Substring(digits)
        for size in phoneGroups where !rest.isEmpty {
            groups.append(rest.prefix(size))
            rest = rest.dropFirst(size)
        }
        if !rest.isEmpty { groups.append(rest) }
        return groups
    }
}

extension WorldCity {
    /// The matching tests' city: every value here is as it was when Paris was the only one.
    public static let paris = WorldCity(
        name: "Paris", countryCode: "FR", latitude: 48.8566, longitude: 2.3522, metresPerDegreeLongitude: 73_000,
        landmarks: [
            ("Gare du Nord", 48.8809, 2.3553), ("Gare de Lyon", 48.8443, 2.3744), ("Bastille", 48.8532, 2.3691),
            ("Opéra", 48.8719, 2.3316), ("Montmartre", 48.8867, 2.3431), ("Tour Eiffel", 48.8584, 2.2945),
            ("Montparnasse", 48.8421, 2.3219), ("Bercy", 48.8386, 2.3822), ("République", 48.8673, 2.3636),
            ("Louvre", 48.8606, 2.3376), ("Champs-Élysées", 48.8698, 2.3078), ("Saint-Germain", 48.8540, 2.3339),
            ("Le Marais", 48.8590, 2.3620), ("Porte Maillot", 48.8781, 2.2828), ("Place d'Italie", 48.8310, 2.3556),
            ("Nation", 48.8483, 2.3958), ("Gare de l'Est", 48.8768, 2.3592), ("Invalides", 48.8566, 2.3125),
            ("Trocadéro", 48.8629, 2.2873), ("Pigalle", 48.8821, 2.3376), ("Batignolles", 48.8850, 2.3200),
            ("Belleville", 48.8721, 2.3769), ("Porte de Versailles", 48.8323, 2.2876), ("Quartier Latin", 48.8494, 2.3470),
        ],
        brands: commonBrands,
        genericNames: [
            "Grand Hôtel", "Hôtel Central", "Hôtel de la Paix", "Hôtel du Parc", "Hôtel de France",
            "Hôtel Moderne", "Hôtel du Commerce", "Hôtel de la Gare", "Hôtel des Arts", "Hôtel Royal",
        ],
        hotelWord: "Hôtel",
        independentPatterns: [["Hôtel", "*"], ["*", "Hôtel"], ["Hôtel", "du", "*"], ["Le", "*"]],
        articles: ["Le"],
        descriptors: ["& Spa", "Suites", "Résidence", "Boutique"],
        streetGrammar: .french,
        streetTypes: ["Rue", "Rue", "Rue", "Avenue", "Boulevard", "Place", "Quai"],
        streetNames: [
            "de Rivoli", "Saint-Honoré", "des Champs-Élysées", "Victor Hugo", "de la Paix", "du Faubourg Montmartre",
            "Lafayette", "de Turenne", "Voltaire", "de la République", "Haussmann", "du Temple", "de Vaugirard",
            "Saint-Antoine", "de Rennes", "Montmartre", "des Martyrs", "de Clichy", "Diderot", "Daumesnil",
            "de Grenelle", "Raspail", "du Bac", "de Sèvres", "Jean Jaurès", "de Charonne", "Oberkampf",
            "de Belleville", "Ledru-Rollin", "de Lyon", "Marcadet", "Caulaincourt", "de Maubeuge", "d'Alésia",
            "de la Convention", "Mouffetard", "Monge", "des Écoles", "Saint-Jacques", "de Tolbiac", "Cambronne",
            "de Suffren", "Kléber", "Marceau", "de Wagram", "de Courcelles", "de Provence", "du Louvre",
            "Étienne Marcel", "Réaumur", "de Bretagne", "des Archives", "de Bercy", "de Picpus", "Mozart",
        ],
        upperAbbreviations: ["Avenue": "AV", "Boulevard": "BD", "Rue": "R", "Place": "PL", "Quai": "QUAI"],
        shortAbbreviations: ["Avenue": "av.", "Boulevard": "bd", "Rue": "r.", "Place": "pl.", "Quai": "quai"],
        nameAbbreviations: [("Saint-", "St "), ("-", " ")],
        transliterations: [],
        diallingCode: "33", trunkPrefix: "0", areaCode: "1", subscriberDigits: 8, phoneGroups: [1, 2, 2, 2, 2],
        postalCountryLetter: "F",
        postalCode: { dx, dy in
            let distance = (dx * dx + dy * dy).squareRoot()
            let sector = Int(((atan2(dy, dx) + .pi) / (2 * .pi) * 6).rounded(.down)) % 6
            // Beyond the périphérique (farther than any of the matching tests' hotels): the suburbs' départements.
            if distance > 6_500 {
                return ["92", "93", "94", "95", "91", "78"][sector] + String(100 + Int(distance / 900) % 900)
            }
            let ring = min(3, Int(distance / 1_300))
            let arrondissement = ring == 0 ? 1 + sector % 4 : min(20, 4 + (ring - 1) * 6 + sector + 1)
            return "750" + twoDigits(arrondissement)
        }
    )

    public static let london = WorldCity(
        name: "London", countryCode: "GB", latitude: 51.5072, longitude: -0.1276,
        metresPerDegreeLongitude: 111_195 * cos(51.5072 * .pi / 180),
        landmarks: [
            ("King's Cross", 51.5308, -0.1238), ("Paddington", 51.5154, -0.1755), ("Covent Garden", 51.5117, -0.1240),
            ("Westminster", 51.4995, -0.1248), ("Tower Bridge", 51.5055, -0.0754), ("Kensington", 51.4991, -0.1938),
            ("Victoria", 51.4952, -0.1441), ("Canary Wharf", 51.5054, -0.0235), ("Shoreditch", 51.5265, -0.0780),
            ("Soho", 51.5136, -0.1365), ("Euston", 51.5282, -0.1337), ("Waterloo", 51.5031, -0.1132),
            ("Earl's Court", 51.4914, -0.1934), ("Marble Arch", 51.5131, -0.1589), ("Bloomsbury", 51.5226, -0.1253),
            ("London Bridge", 51.5079, -0.0877),
        ],
        brands: commonBrands + [("Premier Inn", "PI", "Hub by Premier Inn"), ("Hub by Premier Inn", "PI", nil), ("Travelodge", "TL", nil)],
        genericNames: [
            "Grand Hotel", "Central Hotel", "Park Hotel", "Royal Hotel", "Station Hotel", "Kings Arms Hotel",
            "The Crown Hotel", "Victoria Hotel", "City Hotel", "The George Hotel",
        ],
        hotelWord: "Hotel",
        independentPatterns: [["The", "*", "Hotel"], ["*", "House"], ["Hotel", "*"], ["The", "*"]],
        articles: ["The"],
        descriptors: ["& Spa", "Suites", "Apartments", "Boutique"],
        streetGrammar: .english,
        streetTypes: ["Street", "Street", "Road", "Road", "Square", "Lane", "Place", "Gardens"],
        streetNames: [
            "Baker", "Oxford", "Regent", "Gower", "Euston", "Marylebone", "Southampton", "Sussex", "Cromwell",
            "Bayswater", "Gloucester", "Craven", "Argyle", "Old Brompton", "Belgrave", "Warwick", "Cartwright",
            "Great Portland", "Tottenham Court", "King's Cross", "Pentonville", "Tooley", "Borough High",
            "Commercial", "Whitechapel", "Leinster", "Queensway", "Earls Court", "Ebury", "Buckingham Palace",
            "Shaftesbury", "Charing Cross", "Russell", "Bedford", "Tavistock", "Judd", "Seymour", "Harrington",
        ],
        upperAbbreviations: ["Street": "ST", "Road": "RD", "Square": "SQ", "Lane": "LN", "Place": "PL", "Gardens": "GDNS"],
        shortAbbreviations: ["Street": "St", "Road": "Rd", "Square": "Sq", "Lane": "Ln", "Place": "Pl", "Gardens": "Gdns"],
        nameAbbreviations: [("Saint ", "St "), (" & ", " and ")],
        transliterations: [],
        diallingCode: "44", trunkPrefix: "0", areaCode: "20", subscriberDigits: 8, phoneGroups: [2, 4, 4],
        postalCountryLetter: nil,
        postalCode: { dx, dy in
            let distance = (dx * dx + dy * dy).squareRoot()
            let sector = Int(((atan2(dy, dx) + .pi) / (2 * .pi) * 6).rounded(.down)) % 6
            let ring = min(3, Int(distance / 1_500))
            let districts = [
                ["WC2N", "WC1B", "EC4M", "WC2E", "SW1A", "SE1"], ["W1J", "NW1", "N1", "EC1V", "SE11", "SW1V"],
                ["W2", "NW8", "N7", "E1", "SE16", "SW7"], ["W8", "NW3", "N4", "E14", "SE10", "SW5"],
            ]
            let letters = Array("ABDEFGHJLNPQRSTUWXYZ")
            let inward = Int(abs(dx).rounded()) + 7 * Int(abs(dy).rounded())
            return "\(districts[ring][sector]) \(1 + inward % 9)\(letters[inward / 9 % 20])\(letters[inward / 180 % 20])"
        }
    )

    public static let berlin = WorldCity(
        name: "Berlin", countryCode: "DE", latitude: 52.5200, longitude: 13.4050,
        metresPerDegreeLongitude: 111_195 * cos(52.52 * .pi / 180),
        landmarks: [
            ("Alexanderplatz", 52.5219, 13.4132), ("Hauptbahnhof", 52.5251, 13.3694), ("Potsdamer Platz", 52.5096, 13.3759),
            ("Kurfürstendamm", 52.5034, 13.3321), ("Mitte", 52.5208, 13.4095), ("Friedrichshain", 52.5156, 13.4541),
            ("Kreuzberg", 52.4986, 13.4030), ("Charlottenburg", 52.5167, 13.3041), ("Tiergarten", 52.5145, 13.3501),
            ("Prenzlauer Berg", 52.5389, 13.4244), ("Ostbahnhof", 52.5108, 13.4348), ("Zoo", 52.5079, 13.3377),
            ("Gendarmenmarkt", 52.5137, 13.3927), ("Schöneberg", 52.4833, 13.3500),
        ],
        brands: commonBrands + [("Motel One", "MO", nil), ("Steigenberger", "SB", "Intercity Hotel"), ("Intercity Hotel", "SB", nil)],
        genericNames: [
            "Hotel Central", "Grand Hotel", "Hotel am Park", "Hotel zur Post", "Hotel Stadtmitte", "Hotel Europa",
            "Hotel Kaiserhof", "Hotel Berliner Hof", "Hotel Alpha", "Hotel am Bahnhof",
        ],
        hotelWord: "Hotel",
        independentPatterns: [["Hotel", "*"], ["*", "Hof"], ["Hotel", "am", "*"], ["Pension", "*"]],
        articles: ["am", "Pension"],
        descriptors: ["& Spa", "Suites", "Apartments", "Garni"],
        streetGrammar: .german,
        streetTypes: ["straße", "straße", "straße", "allee", "platz", "damm", "weg"],
        streetNames: [
            "Friedrich", "Linden", "Karl-Marx-", "Frankfurter ", "Schönhauser ", "Invaliden", "Tor", "Chaussee",
            "Oranienburger ", "Müller", "Kant", "Leipziger ", "Potsdamer ", "Wilhelm", "Rosenthaler ", "Bernauer ",
            "Warschauer ", "Köpenicker ", "Skalitzer ", "Hermann", "Tauentzien", "Uhland", "Joachimsthaler ",
            "Budapester ", "Lützow", "Mehring", "Gneisenau", "Yorck", "Kastanien", "Greifswalder ",
        ],
        upperAbbreviations: ["straße": "STR", "allee": "ALLEE", "platz": "PL", "damm": "DAMM", "weg": "WEG"],
        shortAbbreviations: ["straße": "str.", "allee": "allee", "platz": "pl.", "damm": "damm", "weg": "weg"],
        nameAbbreviations: [("Sankt ", "St. "), ("straße", "str.")],
        transliterations: [("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("Ä", "Ae"), ("Ö", "Oe"), ("Ü", "Ue"), ("ß", "ss")],
        diallingCode: "49", trunkPrefix: "0", areaCode: "30", subscriberDigits: 8, phoneGroups: [2, 4, 4],
        postalCountryLetter: "D",
        postalCode: { dx, dy in
            let distance = (dx * dx + dy * dy).squareRoot()
            let sector = Int(((atan2(dy, dx) + .pi) / (2 * .pi) * 6).rounded(.down)) % 6
            let ring = min(4, Int(distance / 1_500))
            return String(10_115 + ring * 900 + sector * 140 + Int(distance / 97) % 90)
        }
    )

    public static let newYork = WorldCity(
        name: "New York", countryCode: "US", latitude: 40.7549, longitude: -73.9840,
        metresPerDegreeLongitude: 111_195 * cos(40.7549 * .pi / 180),
        landmarks: [
            ("Times Square", 40.7580, -73.9855), ("Central Park", 40.7681, -73.9819), ("Grand Central", 40.7527, -73.9772),
            ("Wall Street", 40.7060, -74.0088), ("Chelsea", 40.7465, -74.0014), ("SoHo", 40.7233, -74.0030),
            ("Midtown East", 40.7540, -73.9700), ("Upper West Side", 40.7870, -73.9754), ("Brooklyn Bridge", 40.7061, -73.9969),
            ("Penn Station", 40.7506, -73.9935), ("Herald Square", 40.7497, -73.9877), ("Tribeca", 40.7163, -74.0086),
            ("Long Island City", 40.7447, -73.9485), ("Downtown Brooklyn", 40.6928, -73.9903),
        ],
        brands: commonBrands + [
            ("Hyatt", "HY", "Hyatt Place"), ("Hyatt Place", "HY", nil), ("Sheraton", "SI", "Four Points by Sheraton"),
            ("Four Points by Sheraton", "FP", nil),
        ],
        genericNames: [
            "Grand Hotel", "Hotel Central", "Park Hotel", "The Plaza Inn", "Hotel Metro", "City Inn", "Empire Hotel",
            "Broadway Hotel", "Hotel Liberty", "Midtown Inn",
        ],
        hotelWord: "Hotel",
        independentPatterns: [["The", "*"], ["*", "Hotel"], ["Hotel", "*"], ["The", "*", "Inn"]],
        articles: ["The"],
        descriptors: ["& Spa", "Suites", "Residences", "Boutique"],
        streetGrammar: .english,
        streetTypes: ["Street", "Street", "Street", "Avenue", "Avenue", "Place", "Boulevard"],
        streetNames: [
            "West 44th", "West 45th", "East 39th", "East 52nd", "West 57th", "Madison", "Lexington", "Park", "Broadway",
            "West 34th", "West 28th", "East 23rd", "Bowery", "Canal", "Houston", "Water", "Pearl", "Greenwich",
            "Amsterdam", "Columbus", "Lafayette", "Mercer", "Spring", "Bleecker", "West 36th", "East 48th",
            "Fulton", "Jay", "Court", "Vernon",
        ],
        upperAbbreviations: ["Street": "ST", "Avenue": "AVE", "Place": "PL", "Boulevard": "BLVD"],
        shortAbbreviations: ["Street": "St", "Avenue": "Ave", "Place": "Pl", "Boulevard": "Blvd"],
        nameAbbreviations: [("Saint ", "St. "), (" & ", " and ")],
        transliterations: [],
        diallingCode: "1", trunkPrefix: "1", areaCode: "212", subscriberDigits: 7, phoneGroups: [3, 3, 4],
        postalCountryLetter: nil,
        postalCode: { dx, dy in
            let distance = (dx * dx + dy * dy).squareRoot()
            let sector = Int(((atan2(dy, dx) + .pi) / (2 * .pi) * 6).rounded(.down)) % 6
            let ring = min(3, Int(distance / 1_600))
            return distance > 6_000 ? String(11_201 + sector * 7 + Int(distance / 800) % 7) : "100" + twoDigits(1 + ring * 6 + sector * 2)
        }
    )

    /// Brand, chain code, and the sibling brand that may share its building: the world's chains.
    static let commonBrands: [(name: String, chain: String, sibling: String?)] = [
        ("Ibis", "RT", "Ibis Styles"), ("Ibis Styles", "RT", nil), ("Ibis Budget", "RT", nil), ("Novotel", "RT", "Novotel Suites"),
        ("Novotel Suites", "RT", nil), ("Mercure", "RT", "Ibis"), ("Pullman", "RT", "Mercure"),
        ("Holiday Inn", "HI", "Holiday Inn Express"),
        ("Holiday Inn Express", "EX", nil), ("Best Western", "BW", nil), ("Marriott", "MC", "Courtyard by Marriott"),
        ("Courtyard by Marriott", "CY", nil), ("Hilton", "HH", "Hampton by Hilton"), ("Hampton by Hilton", "HX", nil),
        ("Kyriad", "KY", "Campanile"), ("Campanile", "CA", nil), ("Radisson Blu", "RD", nil), ("Citadines", "CI", nil),
        ("Renaissance", "BR", nil), ("Crowne Plaza", "CP", nil),
    ]
}
