import Foundation
import Hotels
import Seeding

/// One supplier's record of a true hotel: what the supplier sends, and the truth.
public struct SupplierRecord: Sendable, Hashable {
    /// 1 to 5: the supplier whose habits wrote it.
    public var supplier: Int
    /// The true hotel's id (``TrueHotel/id``): records with the same id are one hotel.
    public var hotelID: Int
    /// The record as the supplier sends it. `logoURL` is a placeholder (`https://img.example/CODE.jpg`)
    /// when the supplier has a logo; ``logo`` says which picture it is and how the supplier encodes it.
    public var hotel: Hotel
    public var logo: Logo?

    /// A logo as one supplier serves it: the picture (a chain's hotels share their brand's), re-encoded at the supplier's size.
    public struct Logo: Sendable, Hashable {
        /// Stable for a picture: one per brand, one per independent hotel.
        public var picture: UInt64
        public var size: Int
        public var isPNG: Bool
        public var jpegQuality: Int
    }

    /// The list's city the record belongs to: the world city's name, whatever the record's `city` field says.
    public var listCity: String
}

/// A world of true hotels across cities, and each supplier's records of them, with the truth.
///
/// Each supplier lists a hotel with probability `coverage` and about 1.5 % of
/// its hotels twice under two codes; its ``SupplierStyle`` writes every field.
/// The same configuration gives the same records.
public struct SupplierWorld: Sendable {
    /// Where the suppliers' random draws come from.
    public enum Streams: Sendable {
        /// One stream, suppliers in order: the matching tests' worlds, whose records must stay as they were.
        case shared
        /// A stream per supplier: any one supplier's view is made without the others'.
        case perSupplier
    }

    public struct Configuration: Sendable {
        /// True hotels in the whole world, spread over the cities by their shares.
        public var hotels: Int
        public var seed: UInt64
        public var coverage = 0.7
        public var duplicateRate = 0.015
        /// The cities and each one's share of the hotels.
        public var cities: [(city: WorldCity, share: Double)]
        /// One radius for every city; nil: each as large as its hotels need at the matching tests' density.
        public var radiusMetres: Double?
        public var streams: Streams
        /// Plants ``HardCase``'s hotels in Paris (when the world has Paris).
        public var plantsHardCases: Bool

        /// The matching tests' world: Paris alone, one stream.
        public static func matchingTests(hotels: Int, seed: UInt64, coverage: Double = 0.7, radiusMetres: Double = 4_500) -> Configuration {
            Configuration(
                hotels: hotels, seed: seed, coverage: coverage, cities: [(.paris, 1)], radiusMetres: radiusMetres, streams: .shared,
                plantsHardCases: false)
        }

        /// The sample service's world (`hotels serve --supplier N`): four cities, a stream per supplier, the hard cases planted.
        public static func served(hotels: Int, seed: UInt64) -> Configuration {
            Configuration(
                hotels: hotels, seed: seed, cities: WorldCity.all, radiusMetres: nil, streams: .perSupplier, plantsHardCases: true)
        }

        public init(
            hotels: Int, seed: UInt64, coverage: Double = 0.7, duplicateRate: Double = 0.015,
            cities: [(city: WorldCity, share: Double)], radiusMetres: Double?, streams: Streams, plantsHardCases: Bool
        ) {
            self.hotels = hotels
            self.seed = seed
            self.coverage = coverage
            self.duplicateRate = duplicateRate
            self.cities = cities
            self.radiusMetres = radiusMetres
            self.streams = streams
            self.plantsHardCases = plantsHardCases
        }
    }

    public let configuration: Configuration
    public let cities: [SyntheticCity]
    /// The records of the suppliers asked for, supplier by supplier, each in the order of the world's hotels.
    public let records: [SupplierRecord]
    /// The planted hotels' ids by hard case (empty unless ``Configuration/plantsHardCases``).
    public let hardCases: [HardCase: [Int]]

    /// The world, and the records of `suppliers` (from 1; styles repeat after 5).
    public init(_ configuration: Configuration, suppliers: some Sequence<Int>) {
        self.configuration = configuration
        var random = SeededGenerator(seed: configuration.seed)
        let totalShare = configuration.cities.reduce(0) { $0 + $1.share }
        var cities: [SyntheticCity] = []
        var hardCases: [HardCase: [Int]] = [:]
        var nextID = 0
        for (index, entry) in configuration.cities.enumerated() {
            let others = configuration.cities.indices.dropFirst(index + 1)
            // The last city takes what the shares' rounding left.
            let count =
                others.isEmpty
                ? max(0, configuration.hotels - nextID)
                : Int((Double(configuration.hotels) * entry.share / max(totalShare, 1e-9)).rounded(.down))
            let plants = configuration.plantsHardCases && entry.city.name == WorldCity.paris.name ? HardCases.hotels(in: entry.city) : []
            let total = max(count, plants.count)
            let city = SyntheticCity(
                entry.city, hotels: total, firstID: nextID,
                radiusMetres: configuration.radiusMetres ?? WorldCity.radius(forHotels: total),
                planted: plants.map(\.hotel), random: &random)
            for (offset, plant) in plants.enumerated() {
                let id = city.hotels[city.hotels.count - plants.count + offset].id
                hardCases[plant.hardCase, default: []].append(id)
            }
            nextID += city.hotels.count
            cities.append(city)
        }
        self.cities = cities
        self.hardCases = hardCases
        let caseOf = Self.caseOfHotel(hardCases)

        let allGiata = cities.flatMap { $0.hotels.map(\.giata) }
        let wanted = Set(suppliers.filter { $0 >= 1 })
        var records: [SupplierRecord] = []
        for supplier in stride(from: 1, through: wanted.max() ?? 0, by: 1) {
            switch configuration.streams {
            case .shared:
                // Made even when not wanted: the next supplier's draws follow this one's.
                let view = Self.view(
                    of: supplier, cities: cities, caseOf: caseOf, allGiata: allGiata, configuration: configuration, random: &random)
                if wanted.contains(supplier) { records += view }
            case .perSupplier:
                guard wanted.contains(supplier) else { continue }
                var own = SeededGenerator(seed: Self.supplierSeed(configuration.seed, supplier: supplier))
                records += Self.view(
                    of: supplier, cities: cities, caseOf: caseOf, allGiata: allGiata, configuration: configuration, random: &own)
            }
        }
        self.records = records
    }

    /// Each planted hotel's case, by hotel id (the inverse of ``hardCases``).
    static func caseOfHotel(_ hardCases: [HardCase: [Int]]) -> [Int: HardCase] {
        Dictionary(hardCases.flatMap { entry in entry.value.map { ($0, entry.key) } }) { first, _ in first }
    }

    /// A supplier's own stream's seed: one draw of a generator seeded by the world's seed and the
    /// supplier. (Seeds a multiple of SplitMix64's step apart would give shifted copies of one stream,
    /// and suppliers 1, 3 and 5 the same noise.)
    static func supplierSeed(_ seed: UInt64, supplier: Int) -> UInt64 {
        var mixer = SeededGenerator(seed: seed ^ (0x5EED_0000_0000_0000 &+ UInt64(supplier)))
        return mixer.next()
    }

    /// One supplier's records of the world's hotels, with its codes: `S2-28`, unique within the supplier.
    private static func view(
        of supplier: Int, cities: [SyntheticCity], caseOf: [Int: HardCase], allGiata: [String],
        configuration: Configuration, random: inout SeededGenerator
    ) -> [SupplierRecord] {
        let style = SupplierStyle(number: supplier)
        var records: [SupplierRecord] = []
        records.reserveCapacity(Int(Double(cities.reduce(0) { $0 + $1.hotels.count }) * (configuration.coverage + 0.05)))
        var serial = 0
        for city in cities {
            for hotel in city.hotels {
                let hardCase = caseOf[hotel.id]
                guard Double.random(in: 0..<1, using: &random) < configuration.coverage || hardCase != nil else { continue }
                let copies =
                    Double.random(in: 0..<1, using: &random) < configuration.duplicateRate || hardCase == .supplierDuplicate ? 2 : 1
                for _ in 0..<copies {
                    serial += 1
                    let code = "S\(supplier)-\(String(serial * 13 + supplier))"
                    let position = style.position(hotel, random: &random)
                    var record = Hotel(
                        code: code, name: style.name(hotel, in: city.city, random: &random),
                        address: style.address(hotel, in: city.city, random: &random),
                        latitude: position?.0, longitude: position?.1,
                        logoURL: Double.random(in: 0..<1, using: &random) < 0.5 ? "https://img.example/\(code).jpg" : nil,
                        phone: style.phone(hotel, in: city.city, random: &random), chainCode: style.chainCode(hotel),
                        rating: style.rating(hotel, random: &random), postalCode: style.postalCode(hotel, in: city.city, random: &random),
                        city: city.city.name, countryCode: city.city.countryCode,
                        references: style.references(hotel, allGiata: allGiata, random: &random)
                    )
                    if let hardCase {
                        // Noise aside, a planted hotel's records have a position and a logo (and the no-address case an address),
                        // but for the field its case leaves out.
                        if record.latitude == nil || record.latitude == 0 {
                            (record.latitude, record.longitude) = (hotel.latitude, hotel.longitude)
                        }
                        if record.logoURL == nil { record.logoURL = "https://img.example/\(code).jpg" }
                        if hardCase == .noAddress, record.address == nil {
                            record.address = city.city.numbered(
                                String(hotel.houseNumber), city.city.street(type: hotel.street.type, name: hotel.street.name))
                        }
                        switch hardCase {
                        case .noPosition where HardCases.lacks(hardCase, supplier: supplier):
                            (record.latitude, record.longitude) = (nil, nil)
                        case .noAddress where HardCases.lacks(hardCase, supplier: supplier): record.address = nil
                        case .noLogo where HardCases.lacks(hardCase, supplier: supplier): record.logoURL = nil
                        default: break
                        }
                    }
                    let encoding = style.logoEncoding
                    let logo = record.logoURL.map { _ in
                        SupplierRecord.Logo(
                            picture: Self.picture(of: hotel, seed: configuration.seed), size: encoding.size,
                            isPNG: encoding.isPNG, jpegQuality: encoding.quality)
                    }
                    records.append(
                        SupplierRecord(supplier: supplier, hotelID: hotel.id, hotel: record, logo: logo, listCity: city.city.name))
                }
            }
        }
        return records
    }

    /// A chain's hotels share their brand's logo; an independent hotel has its own.
    static func picture(of hotel: TrueHotel, seed: UInt64) -> UInt64 {
        let key = hotel.brand.map { "brand:" + $0 } ?? "hotel:\(hotel.id)"
        return key.utf8.reduce(0xCBF2_9CE4_8422_2325 ^ seed) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}

extension SupplierWorld {
    /// The truth as JSON Lines, one line per record: `{"supplier": 2, "code": "S2-28", "hotel": 17, "city": "Paris"}`.
    /// Records with the same `hotel` are one hotel; codes are unique per supplier.
    /// - Parameter hardCases: the world's planted hotels (``hardCases``): their records' lines name their case,
    ///   as `"hardCase": "siblingBrands"`, so that a benchmark can score those pairs on their own.
    public static func truthLines(_ records: some Sequence<SupplierRecord>, hardCases: [HardCase: [Int]] = [:]) -> String {
        let caseOf = Self.caseOfHotel(hardCases)
        var text = ""
        for record in records {
            let hardCase = caseOf[record.hotelID].map { #", "hardCase": "\#($0.rawValue)""# } ?? ""
            text +=
                #"{"supplier": \#(record.supplier), "code": \#(jsonString(record.hotel.code)), "hotel": \#(record.hotelID), "#
                + #""city": \#(jsonString(record.listCity))\#(hardCase)}"# + "\n"
        }
        return text
    }

    static func jsonString(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case _ where scalar.value < 0x20: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
