import Foundation
import Seeding

/// One real hotel of the synthetic city, before any supplier lists it.
struct TrueHotel {
    var id: Int
    /// The name's parts, each written as the hotel writes it ("Novotel", "Paris", "Gare de Lyon").
    var brand: String?
    var nameWords: [String]
    /// "& Spa", "Suites": a part some suppliers leave out.
    var descriptor: String?
    var houseNumber: Int
    var street: Street
    var latitude: Double
    var longitude: Double
    /// The national number without its leading 0: 9 digits, "142360000".
    var phone: String
    var postalCode: String
    var chainCode: String?
    var rating: Int
    var giata: String
}

struct Street {
    /// "Rue", "Avenue", "Boulevard", "Place", "Quai".
    var type: String
    /// "de Rivoli", "des Champs-Élysées".
    var name: String
    var latitude: Double
    var longitude: Double
}

/// A city of hotels like Paris: brands beside landmarks, independents with
/// made-up names, a few generic names at several places, and sibling
/// brands sharing a building.
struct SyntheticCity {
    static let centre = (latitude: 48.8566, longitude: 2.3522)
    var hotels: [TrueHotel] = []

    static let landmarks: [(name: String, latitude: Double, longitude: Double)] = [
        ("Gare du Nord", 48.8809, 2.3553), ("Gare de Lyon", 48.8443, 2.3744), ("Bastille", 48.8532, 2.3691),
        ("Opéra", 48.8719, 2.3316), ("Montmartre", 48.8867, 2.3431), ("Tour Eiffel", 48.8584, 2.2945),
        ("Montparnasse", 48.8421, 2.3219), ("Bercy", 48.8386, 2.3822), ("République", 48.8673, 2.3636),
        ("Louvre", 48.8606, 2.3376), ("Champs-Élysées", 48.8698, 2.3078), ("Saint-Germain", 48.8540, 2.3339),
        ("Le Marais", 48.8590, 2.3620), ("Porte Maillot", 48.8781, 2.2828), ("Place d'Italie", 48.8310, 2.3556),
        ("Nation", 48.8483, 2.3958), ("Gare de l'Est", 48.8768, 2.3592), ("Invalides", 48.8566, 2.3125),
        ("Trocadéro", 48.8629, 2.2873), ("Pigalle", 48.8821, 2.3376), ("Batignolles", 48.8850, 2.3200),
        ("Belleville", 48.8721, 2.3769), ("Porte de Versailles", 48.8323, 2.2876), ("Quartier Latin", 48.8494, 2.3470),
    ]

    /// Brand, chain code, and the sibling brand that may share its building.
    static let brands: [(name: String, chain: String, sibling: String?)] = [
        ("Ibis", "RT", "Ibis Styles"), ("Ibis Styles", "RT", nil), ("Ibis Budget", "RT", nil), ("Novotel", "RT", "Novotel Suites"),
        ("Novotel Suites", "RT", nil), ("Mercure", "RT", "Ibis"), ("Pullman", "RT", "Mercure"), ("Holiday Inn", "HI", "Holiday Inn Express"),
        ("Holiday Inn Express", "EX", nil), ("Best Western", "BW", nil), ("Marriott", "MC", "Courtyard by Marriott"),
        ("Courtyard by Marriott", "CY", nil), ("Hilton", "HH", "Hampton by Hilton"), ("Hampton by Hilton", "HX", nil),
        ("Kyriad", "KY", "Campanile"), ("Campanile", "CA", nil), ("Radisson Blu", "RD", nil), ("Citadines", "CI", nil),
        ("Renaissance", "BR", nil), ("Crowne Plaza", "CP", nil),
    ]

    /// Names that many unrelated hotels carry.
    static let genericNames = ["Grand Hôtel", "Hôtel Central", "Hôtel de la Paix", "Hôtel du Parc", "Hôtel de France",
                               "Hôtel Moderne", "Hôtel du Commerce", "Hôtel de la Gare", "Hôtel des Arts", "Hôtel Royal"]

    static let streetTypes = ["Rue", "Rue", "Rue", "Avenue", "Boulevard", "Place", "Quai"]
    static let streetNames = ["de Rivoli", "Saint-Honoré", "des Champs-Élysées", "Victor Hugo", "de la Paix", "du Faubourg Montmartre",
                              "Lafayette", "de Turenne", "Voltaire", "de la République", "Haussmann", "du Temple", "de Vaugirard",
                              "Saint-Antoine", "de Rennes", "Montmartre", "des Martyrs", "de Clichy", "Diderot", "Daumesnil",
                              "de Grenelle", "Raspail", "du Bac", "de Sèvres", "Jean Jaurès", "de Charonne", "Oberkampf",
                              "de Belleville", "Ledru-Rollin", "de Lyon", "Marcadet", "Caulaincourt", "de Maubeuge", "d'Alésia",
                              "de la Convention", "Mouffetard", "Monge", "des Écoles", "Saint-Jacques", "de Tolbiac", "Cambronne",
                              "de Suffren", "Kléber", "Marceau", "de Wagram", "de Courcelles", "de Provence", "du Louvre",
                              "Étienne Marcel", "Réaumur", "de Bretagne", "des Archives", "de Bercy", "de Picpus", "Mozart"]

    /// Hotels within `radiusMetres` of the centre; a larger city at the same density has a larger radius.
    init(hotels count: Int, radiusMetres: Double = 4_500, random: inout SeededGenerator) {
        let streets = Self.streets(radiusMetres: radiusMetres * 1.05, random: &random)
        var usedNames = Set<String>()
        var id = 0
        while hotels.count < count {
            // Closer to the centre more often, as hotels are.
            let radius = radiusMetres * pow(Double.random(in: 0...1, using: &random), 0.7)
            let angle = Double.random(in: 0..<(2 * .pi), using: &random)
            let latitude = Self.centre.latitude + radius * cos(angle) / 111_195
            let longitude = Self.centre.longitude + radius * sin(angle) / (111_195 * cos(Self.centre.latitude * .pi / 180))
            let street = Self.nearest(3, of: streets, to: (latitude, longitude)).randomElement(using: &random) ?? streets[0]
            var hotel = TrueHotel(
                id: id, brand: nil, nameWords: [], descriptor: nil, houseNumber: Int.random(in: 1...160, using: &random),
                street: street, latitude: latitude, longitude: longitude, phone: Self.phone(random: &random),
                postalCode: Self.postalCode(latitude: latitude, longitude: longitude), chainCode: nil,
                rating: Int.random(in: 1...5, using: &random), giata: String(100_000 + id * 7 + Int.random(in: 0...6, using: &random))
            )
            let kind = Double.random(in: 0..<1, using: &random)
            if kind < 0.35 {
                let brand = Self.brands.randomElement(using: &random) ?? Self.brands[0]
                hotel.brand = brand.name
                hotel.chainCode = brand.chain
                hotel.nameWords = Self.chainLocality(brand.name, near: (latitude, longitude), street: street, used: &usedNames, random: &random)
                hotels.append(hotel)
                id += 1
                if let sibling = brand.sibling, Double.random(in: 0..<1, using: &random) < 0.12, hotels.count < count {
                    hotels.append(Self.sibling(of: hotel, brand: sibling, id: id, used: &usedNames, random: &random))
                    id += 1
                }
                continue
            } else if kind < 0.42 {
                hotel.nameWords = [Self.genericNames.randomElement(using: &random) ?? "Grand Hôtel"]
            } else {
                hotel.nameWords = Self.independentName(used: &usedNames, random: &random)
                if Double.random(in: 0..<1, using: &random) < 0.12 {
                    hotel.descriptor = ["& Spa", "Suites", "Résidence", "Boutique"].randomElement(using: &random)
                }
            }
            hotels.append(hotel)
            id += 1
        }
    }

    /// "Paris Gare de Lyon", or with a street's word when the brand already has that landmark.
    private static func chainLocality(_ brand: String, near point: (Double, Double), street: Street, used: inout Set<String>,
                                      random: inout SeededGenerator) -> [String] {
        let landmark = landmarks.min { distance($0.latitude, $0.longitude, point) < distance($1.latitude, $1.longitude, point) }?.name ?? "Centre"
        var words = ["Paris", landmark]
        if !used.insert("\(brand) \(landmark)").inserted {
            let extra = street.name.split(separator: " ").last.map(String.init) ?? "Centre"
            words.append(extra)
            if !used.insert("\(brand) \(landmark) \(extra)").inserted { words.append(String(Int.random(in: 2...99, using: &random))) }
        }
        return words
    }

    private static func sibling(of hotel: TrueHotel, brand: String, id: Int, used: inout Set<String>, random: inout SeededGenerator) -> TrueHotel {
        var sibling = hotel
        sibling.id = id
        sibling.brand = brand
        sibling.chainCode = brands.first { $0.name == brand }?.chain
        used.insert("\(brand) \(hotel.nameWords.dropFirst().joined(separator: " "))")
        // One switchboard: the same number but for the last two digits.
        let last = Int(hotel.phone.suffix(2)) ?? 0
        sibling.phone = String(hotel.phone.dropLast(2)) + String(format: "%02d", (last + 37) % 100)
        sibling.rating = max(1, hotel.rating - 1)
        sibling.giata = String(Int(hotel.giata).map { $0 + 3 } ?? id)
        return sibling
    }

    private static func independentName(used: inout Set<String>, random: inout SeededGenerator) -> [String] {
        while true {
            let word = madeUpWord(random: &random)
            let pattern = Int.random(in: 0..<4, using: &random)
            let name = switch pattern {
            case 0: ["Hôtel", word]
            case 1: [word, "Hôtel"]
            case 2: ["Hôtel", "du", word]
            default: ["Le", word]
            }
            if used.insert(word).inserted { return name }
        }
    }

    /// Two or three syllables: "Valorin", "Mestrade".
    static func madeUpWord(random: inout SeededGenerator) -> String {
        let onsets = ["b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "br", "cl", "gr", "pr", "st", "tr", "ch"]
        let vowels = ["a", "e", "i", "o", "u", "ai", "ou", "é", "au"]
        let codas = ["", "", "n", "r", "l", "s", "t", "x", "lle", "tte"]
        var word = ""
        for _ in 0..<Int.random(in: 2...3, using: &random) {
            word += (onsets.randomElement(using: &random) ?? "b") + (vowels.randomElement(using: &random) ?? "a")
        }
        word += codas.randomElement(using: &random) ?? ""
        return word.prefix(1).uppercased() + word.dropFirst()
    }

    private static func streets(radiusMetres: Double, random: inout SeededGenerator) -> [Street] {
        var streets: [Street] = []
        // As many streets of a name as the city is large: two in Paris.
        let copies = max(2, Int((radiusMetres / 2_400).rounded()))
        for name in streetNames {
            for _ in 0..<copies {
                let radius = radiusMetres * Double.random(in: 0...1, using: &random).squareRoot()
                let angle = Double.random(in: 0..<(2 * .pi), using: &random)
                streets.append(Street(type: streetTypes.randomElement(using: &random) ?? "Rue", name: name,
                                      latitude: centre.latitude + radius * cos(angle) / 111_195,
                                      longitude: centre.longitude + radius * sin(angle) / 73_000))
            }
        }
        return streets
    }

    private static func nearest(_ count: Int, of streets: [Street], to point: (Double, Double)) -> [Street] {
        Array(streets.sorted { distance($0.latitude, $0.longitude, point) < distance($1.latitude, $1.longitude, point) }.prefix(count))
    }

    static func distance(_ latitude: Double, _ longitude: Double, _ point: (Double, Double)) -> Double {
        let dy = (latitude - point.0) * 111_195
        let dx = (longitude - point.1) * 73_000
        return (dx * dx + dy * dy).squareRoot()
    }

    private static func phone(random: inout SeededGenerator) -> String {
        "1" + (0..<8).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
    }

    /// Arrondissements as rings and sectors around the centre.
    private static func postalCode(latitude: Double, longitude: Double) -> String {
        let dy = (latitude - centre.latitude) * 111_195
        let dx = (longitude - centre.longitude) * 73_000
        let ring = min(3, Int((dx * dx + dy * dy).squareRoot() / 1_300))
        let sector = Int(((atan2(dy, dx) + .pi) / (2 * .pi) * 6).rounded(.down)) % 6
        let arrondissement = ring == 0 ? 1 + sector % 4 : min(20, 4 + (ring - 1) * 6 + sector + 1)
        return String(format: "750%02d", arrondissement)
    }
}
