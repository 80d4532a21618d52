import Foundation
import Seeding

/// One real hotel of the synthetic world, before any supplier lists it.
public struct TrueHotel: Sendable, Hashable {
    /// Unique in the world: the truth's hotel id.
    public var id: Int
    /// The city's name, as the world's cities are named ("Paris").
    public var city: String
    /// The name's parts, each written as the hotel writes it ("Novotel", "Paris", "Gare de Lyon").
    public var brand: String?
    public var nameWords: [String]
    /// "& Spa", "Suites": a part some suppliers leave out.
    public var descriptor: String?
    public var houseNumber: Int
    public var street: Street
    public var latitude: Double
    public var longitude: Double
    /// The national number without its trunk prefix: "142360000" in Paris.
    public var phone: String
    public var postalCode: String
    public var chainCode: String?
    public var rating: Int
    public var giata: String

    /// The name as the hotel writes it: "Ibis Paris Gare du Nord".
    public var name: String {
        ([brand].compactMap { $0 } + nameWords + [descriptor].compactMap { $0 }).joined(separator: " ")
    }
}

public struct Street: Sendable, Hashable {
    /// "Rue", "Avenue", "Street", "straße".
    public var type: String
    /// "de Rivoli", "des Champs-Élysées", "Baker", "Friedrich".
    public var name: String
    public var latitude: Double
    public var longitude: Double
}

/// A city of hotels: brands beside landmarks, independents with made-up
/// names, a few generic names at several places, and sibling brands sharing
/// a building.
public struct SyntheticCity: Sendable {
    public let city: WorldCity
    public internal(set) var hotels: [TrueHotel] = []
    /// The landmarks chain hotels are named after: the city's own, and made-up districts in a large city.
    let landmarks: [(name: String, latitude: Double, longitude: Double)]
    private let landmarkIndex: NearestIndex

    /// `count` hotels within `radiusMetres` of the centre, with ids from `firstID`; a larger city at the same density
    /// has a larger radius. `planted` hotels (``HardCases``) end the list and count in `count`; their names are not reused.
    init(
        _ city: WorldCity, hotels count: Int, firstID: Int = 0, radiusMetres: Double = 4_500, planted: [TrueHotel] = [],
        random: inout SeededGenerator
    ) {
        self.city = city
        let streets = Self.streets(of: city, radiusMetres: radiusMetres * 1.05, random: &random)
        let streetIndex = NearestIndex(streets.map { ($0.latitude, $0.longitude) }, metresPerDegreeLongitude: city.metresPerDegreeLongitude)
        // A city larger than the matching tests' (whose hotels are all within 6 km) gets districts to name its chain hotels after.
        landmarks = city.landmarks + (radiusMetres > 6_000 ? Self.districts(of: city, radiusMetres: radiusMetres, random: &random) : [])
        landmarkIndex = NearestIndex(landmarks.map { ($0.latitude, $0.longitude) }, metresPerDegreeLongitude: city.metresPerDegreeLongitude)
        // The planted hotels' names are taken: their made-up words, and their brands at their landmarks.
        var usedNames = Set<String>()
        for hotel in planted {
            usedNames.insert(hotel.nameWords.last ?? "")
            guard let brand = hotel.brand else { continue }
            let locality = hotel.nameWords.dropFirst()
            usedNames.insert(brand + " " + locality.joined(separator: " "))
            usedNames.insert(brand + " " + (locality.first ?? ""))
        }
        let randomCount = max(0, count - planted.count)
        var id = firstID
        while hotels.count < randomCount {
            // Closer to the centre more often, as hotels are.
            let radius = radiusMetres * pow(Double.random(in: 0...1, using: &random), 0.7)
            let angle = Double.random(in: 0..<(2 * .pi), using: &random)
            let latitude = city.latitude + radius * cos(angle) / 111_195
            let longitude = city.longitude + radius * sin(angle) / (111_195 * cos(city.latitude * .pi / 180))
            let street = streetIndex.nearest(3, to: (latitude, longitude)).map { streets[$0] }.randomElement(using: &random) ?? streets[0]
            var hotel = TrueHotel(
                id: id, city: city.name, brand: nil, nameWords: [], descriptor: nil, houseNumber: Int.random(in: 1...160, using: &random),
                street: street, latitude: latitude, longitude: longitude, phone: Self.phone(in: city, random: &random),
                postalCode: Self.postalCode(in: city, latitude: latitude, longitude: longitude), chainCode: nil,
                rating: Int.random(in: 1...5, using: &random), giata: String(100_000 + id * 7 + Int.random(in: 0...6, using: &random))
            )
            let kind = Double.random(in: 0..<1, using: &random)
            if kind < 0.35 {
                let brand = city.brands.randomElement(using: &random) ?? city.brands[0]
                hotel.brand = brand.name
                hotel.chainCode = brand.chain
                hotel.nameWords = chainLocality(brand.name, near: (latitude, longitude), street: street, used: &usedNames, random: &random)
                hotels.append(hotel)
                id += 1
                if let sibling = brand.sibling, Double.random(in: 0..<1, using: &random) < 0.12, hotels.count < randomCount {
                    hotels.append(Self.sibling(of: hotel, brand: sibling, id: id, in: city, used: &usedNames))
                    id += 1
                }
                continue
            } else if kind < 0.42 {
                hotel.nameWords = [city.genericNames.randomElement(using: &random) ?? city.genericNames[0]]
            } else {
                hotel.nameWords = Self.independentName(in: city, used: &usedNames, random: &random)
                if Double.random(in: 0..<1, using: &random) < 0.12 {
                    hotel.descriptor = city.descriptors.randomElement(using: &random)
                }
            }
            hotels.append(hotel)
            id += 1
        }
        for var hotel in planted {
            hotel.id = id
            hotels.append(hotel)
            id += 1
        }
    }

    /// "Paris Gare de Lyon", or with a street's word when the brand already has that landmark.
    private func chainLocality(
        _ brand: String, near point: (Double, Double), street: Street, used: inout Set<String>,
        random: inout SeededGenerator
    ) -> [String] {
        let nearest = landmarkIndex.nearest(1, to: point).first.map { landmarks[$0].name } ?? "Centre"
        var words = [city.name, nearest]
        if !used.insert("\(brand) \(nearest)").inserted {
            let extra = street.name.split(separator: " ").last.map(String.init) ?? "Centre"
            words.append(extra)
            if !used.insert("\(brand) \(nearest) \(extra)").inserted { words.append(String(Int.random(in: 2...99, using: &random))) }
        }
        return words
    }

    static func sibling(of hotel: TrueHotel, brand: String, id: Int, in city: WorldCity, used: inout Set<String>) -> TrueHotel {
        var sibling = hotel
        sibling.id = id
        sibling.brand = brand
        sibling.chainCode = city.brands.first { $0.name == brand }?.chain
        used.insert("\(brand) \(hotel.nameWords.dropFirst().joined(separator: " "))")
        // One switchboard: the same number but for the last two digits.
        let last = Int(hotel.phone.suffix(2)) ?? 0
        sibling.phone = String(hotel.phone.dropLast(2)) + twoDigits((last + 37) % 100)
        sibling.rating = max(1, hotel.rating - 1)
        sibling.giata = String(Int(hotel.giata).map { $0 + 3 } ?? id)
        return sibling
    }

    private static func independentName(in city: WorldCity, used: inout Set<String>, random: inout SeededGenerator) -> [String] {
        while true {
            let word = madeUpWord(random: &random)
            let pattern = city.independentPatterns[Int.random(in: 0..<city.independentPatterns.count, using: &random)]
            if used.insert(word).inserted { return pattern.map { $0 == "*" ? word : $0 } }
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

    private static func streets(of city: WorldCity, radiusMetres: Double, random: inout SeededGenerator) -> [Street] {
        var streets: [Street] = []
        // As many streets of a name as the city is large: two in the matching tests' Paris.
        let copies = max(2, Int((radiusMetres / 2_400).rounded()))
        for name in city.streetNames {
            for _ in 0..<copies {
                let radius = radiusMetres * Double.random(in: 0...1, using: &random).squareRoot()
                let angle = Double.random(in: 0..<(2 * .pi), using: &random)
                streets.append(
                    Street(
                        type: city.streetTypes.randomElement(using: &random) ?? city.streetTypes[0], name: name,
                        latitude: city.latitude + radius * cos(angle) / 111_195,
                        longitude: city.longitude + radius * sin(angle) / city.metresPerDegreeLongitude))
            }
        }
        return streets
    }

    /// Made-up districts over a large city, as densely as the city's own landmarks lie around its centre.
    private static func districts(of city: WorldCity, radiusMetres: Double, random: inout SeededGenerator) -> [(
        name: String, latitude: Double, longitude: Double
    )] {
        let count = min(4_000, Int(Double(city.landmarks.count) * (radiusMetres / 4_500) * (radiusMetres / 4_500)) - city.landmarks.count)
        var used = Set(city.landmarks.map(\.name))
        var districts: [(name: String, latitude: Double, longitude: Double)] = []
        while districts.count < count {
            let name = madeUpWord(random: &random)
            let radius = radiusMetres * Double.random(in: 0...1, using: &random).squareRoot()
            let angle = Double.random(in: 0..<(2 * .pi), using: &random)
            guard used.insert(name).inserted else { continue }
            districts.append(
                (name, city.latitude + radius * cos(angle) / 111_195, city.longitude + radius * sin(angle) / city.metresPerDegreeLongitude))
        }
        return districts
    }

    static func distance(_ latitude: Double, _ longitude: Double, _ point: (Double, Double), in city: WorldCity) -> Double {
        let dy = (latitude - point.0) * 111_195
        let dx = (longitude - point.1) * city.metresPerDegreeLongitude
        return (dx * dx + dy * dy).squareRoot()
    }

    private static func phone(in city: WorldCity, random: inout SeededGenerator) -> String {
        city.areaCode + (0..<city.subscriberDigits).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
    }

    /// Postal districts as rings and sectors around the centre.
    static func postalCode(in city: WorldCity, latitude: Double, longitude: Double) -> String {
        city.postalCode((longitude - city.longitude) * city.metresPerDegreeLongitude, (latitude - city.latitude) * 111_195)
    }
}

/// "07": a number below 100 with two digits (`String(format:)` is slow on Linux, and a large world calls this per hotel).
func twoDigits(_ number: Int) -> String {
    number < 10 ? "0\(number)" : String(number)
}

/// Points sorted by latitude, for the nearest ones to a point: a scan outwards
/// in latitude that stops once the band is wider than the `count`th best
/// distance. Exact, as a sort of all distances would be, and fast in a city
/// of thousands of streets.
struct NearestIndex: Sendable {
    private let points: [(latitude: Double, longitude: Double, index: Int)]
    private let metresPerDegreeLongitude: Double

    init(_ points: [(Double, Double)], metresPerDegreeLongitude: Double) {
        self.points = points.enumerated().map { ($0.element.0, $0.element.1, $0.offset) }.sorted {
            ($0.latitude, $0.index) < ($1.latitude, $1.index)
        }
        self.metresPerDegreeLongitude = metresPerDegreeLongitude
    }

    /// The indices (in the order given to `init`) of the `count` nearest points, nearest first; equal distances by index.
    func nearest(_ count: Int, to point: (Double, Double)) -> [Int] {
        var distances: [Double] = []
        var indices: [Int] = []
        distances.reserveCapacity(count + 1)
        indices.reserveCapacity(count + 1)
        // The first point at or above the latitude.
        var low = 0
        var high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].latitude < point.0 { low = middle + 1 } else { high = middle }
        }
        var up = low
        var down = low - 1
        while up < points.count || down >= 0 {
            let upGap = up < points.count ? (points[up].latitude - point.0) * 111_195 : .infinity
            let downGap = down >= 0 ? (point.0 - points[down].latitude) * 111_195 : .infinity
            let full = distances.count == count
            if full, min(upGap, downGap) > distances[count - 1] { break }
            let candidate: (latitude: Double, longitude: Double, index: Int)
            let dy: Double
            if upGap <= downGap {
                (candidate, dy) = (points[up], upGap)
                up += 1
            } else {
                (candidate, dy) = (points[down], downGap)
                down -= 1
            }
            let dx = (candidate.longitude - point.1) * metresPerDegreeLongitude
            if full, abs(dx) > distances[count - 1] { continue }
            let distance = (dx * dx + dy * dy).squareRoot()
            if full, distance > distances[count - 1] || (distance == distances[count - 1] && candidate.index > indices[count - 1]) {
                continue
            }
            var position = distances.count
            while position > 0,
                distance < distances[position - 1] || (distance == distances[position - 1] && candidate.index < indices[position - 1])
            {
                position -= 1
            }
            distances.insert(distance, at: position)
            indices.insert(candidate.index, at: position)
            if distances.count > count {
                distances.removeLast()
                indices.removeLast()
            }
        }
        return indices
    }
}
