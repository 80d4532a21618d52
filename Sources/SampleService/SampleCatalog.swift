import Hotels
import SOAP
import Seeding
import SupplierWorlds

/// One hotel of the sample service.
struct SampleHotel: Sendable {
    var code: String
    var name: String
    /// Always there in the seeded catalogue; a supplier's record may lack them (``SampleCatalog/init(supplier:seed:)``).
    var address: String?
    var latitude: Double?
    var longitude: Double?
    /// The logo at `/logos/CODE.png|jpg`; nil: the record has no logoURL.
    var logo: SampleLogo?
    /// Unix seconds; unique across the catalogue.
    var addtime: Int64
    /// What real suppliers send besides, each missing for some hotels (``SampleCatalog/details``).
    var phone: String?
    var chainCode: String?
    var rating: Double?
    var postalCode: String?
    var city: String
    var countryCode: String
    /// Catalogue name to code: none, one, or two.
    var references: [(catalog: String, code: String)]
}

/// Which picture a logo is, and how it is encoded.
struct SampleLogo: Sendable {
    var isPNG: Bool
    /// Seeds the picture's colours: one picture, one value.
    var picture: UInt64
    /// The side in pixels; nil: drawn from the picture's seed (64 to 1024).
    var size: Int?
    var jpegQuality = 85
}

/// The sample service's hotels, newest first per city, made from a seed.
struct SampleCatalog: Sendable {
    struct City: Sendable {
        var name: String
        var latitude: Double
        var longitude: Double
        var isChinese: Bool
        var countryCode: String
        /// The international dialling prefix and the number's national part before the line, as in `+33 1 `.
        var dialling: String
    }

    static let cities = [
        City(name: "Shanghai", latitude: 31.23, longitude: 121.47, isChinese: true, countryCode: "CN", dialling: "+86 21 "),
        City(name: "Beijing", latitude: 39.90, longitude: 116.40, isChinese: true, countryCode: "CN", dialling: "+86 10 "),
        City(name: "Paris", latitude: 48.86, longitude: 2.35, isChinese: false, countryCode: "FR", dialling: "+33 1 "),
        City(name: "New York", latitude: 40.71, longitude: -74.01, isChinese: false, countryCode: "US", dialling: "+1 212 "),
        City(name: "Tokyo", latitude: 35.68, longitude: 139.69, isChinese: false, countryCode: "JP", dialling: "+81 3 "),
        City(name: "London", latitude: 51.51, longitude: -0.13, isChinese: false, countryCode: "GB", dialling: "+44 20 "),
    ]
    private static let chains = ["HI", "MC", "AC", "IB", "SH", "WI", "RT", "HY"]
    private static let postalCodes = [
        "Shanghai": "2000", "Beijing": "1000", "Paris": "750", "New York": "100", "Tokyo": "100-", "London": "WC2N ",
    ]
    private static let chineseParts = ["锦江", "和平", "国际", "花园", "东方", "丽晶", "外滩", "金陵", "华亭", "长城"]
    private static let chineseKinds = ["大酒店", "饭店", "宾馆", "酒店"]
    private static let latinParts = ["Grand", "Royal", "Garden", "Harbour", "Plaza", "Imperial", "Riverside", "Park", "Central", "Palace"]
    private static let streets = ["Nanjing Road", "Rue de Rivoli", "Fifth Avenue", "Ginza", "Strand", "Chang'an Avenue", "Huaihai Road"]

    /// Each city's hotels, newest first.
    let byCity: [String: [SampleHotel]]
    private let byCode: [String: SampleHotel]

    init(seed: UInt64, count: Int) {
        var random = SeededGenerator(seed: seed)
        // The fields added later come from a generator of their own, so every hotel's earlier fields stay as they were.
        var details = SeededGenerator(seed: seed &+ 0x5EED)
        var lists: [String: [SampleHotel]] = [:]
        // The newest hotel was added on 2025-10-09, and each older one up to 90 s before the next: dates in the past,
        // as a real service's are (1_800_000_000, the start until session 15, is in 2027).
        var addtime: Int64 = 1_760_000_000
        for index in 0..<count {
            // Most hotels are in the first four cities.
            let city = Self.cities[index % 10 < 8 ? index % 4 : 4 + index % 2]
            addtime -= Int64.random(in: 1...90, using: &random)
            let name =
                city.isChinese
                ? Self.chineseParts.randomElement(using: &random)! + Self.chineseParts.randomElement(using: &random)! + Self.chineseKinds
                    .randomElement(using: &random)!
                : "\(Self.latinParts.randomElement(using: &random)!) \(Self.latinParts.randomElement(using: &random)!) Hotel \(city.name)"
            let code = String(format: "H%06d", index)
            var hotel = SampleHotel(
                code: code,
                name: name,
                address: "\(Int.random(in: 1...999, using: &random)) \(Self.streets.randomElement(using: &random)!), \(city.name)",
                latitude: ((city.latitude + Double.random(in: -0.2...0.2, using: &random)) * 1e6).rounded() / 1e6,
                longitude: ((city.longitude + Double.random(in: -0.2...0.2, using: &random)) * 1e6).rounded() / 1e6,
                logo: SampleLogo(isPNG: index % 2 == 0, picture: seed ^ code.hashValueStable),
                addtime: addtime,
                city: city.name,
                countryCode: city.countryCode,
                references: []
            )
            Self.addDetails(to: &hotel, index: index, city: city, using: &details)
            lists[city.name, default: []].append(hotel)
        }
        byCity = lists
        byCode = Dictionary(lists.values.joined().map { ($0.code, $0) }) { first, _ in first }
    }

    /// A phone for six hotels of seven, a chain for four of five, a rating for
    /// most, a postal code for nine of ten, and catalogue references: a GIATA
    /// id for most, a second catalogue's for one in six, none for one in ten.
    private static func addDetails(to hotel: inout SampleHotel, index: Int, city: City, using random: inout SeededGenerator) {
        let line = Int.random(in: 1000_0000...9999_9999, using: &random)
        if index % 7 != 3 { hotel.phone = city.dialling + String(line / 10000) + " " + String(line % 10000) }
        if index % 5 != 1 { hotel.chainCode = chains[Int.random(in: 0..<chains.count, using: &random)] }
        if index % 9 != 4 { hotel.rating = Double(Int.random(in: 2...10, using: &random)) / 2 }
        if index % 10 != 7, let prefix = postalCodes[city.name] {
            hotel.postalCode = prefix + String(format: city.name == "London" ? "%dAB" : "%02d", Int.random(in: 1...20, using: &random))
        }
        if index % 10 != 9 { hotel.references.append(("giata", String(100_000 + index * 7))) }
        if index % 6 == 2 { hotel.references.append(("hotelbeds", String(format: "HB%05d", index))) }
    }

    /// One supplier's view of a ``SupplierWorld`` (`hotels serve --supplier N`): its records of every city, in an
    /// order of their own (newest first by addtimes from the seed), positions rounded as the supplier rounds them,
    /// and each logo the true hotel's picture at the supplier's size and format.
    init(supplier records: [SupplierRecord], seed: UInt64) {
        var random = SeededGenerator(seed: seed ^ 0x5EED_0F5D_1E55)
        let order = records.indices.shuffled(using: &random)
        var lists: [String: [SampleHotel]] = [:]
        var addtime: Int64 = 1_760_000_000
        for position in order {
            let record = records[position]
            let hotel = record.hotel
            addtime -= Int64.random(in: 1...90, using: &random)
            let decimals = SupplierStyle(number: record.supplier).coordinateDecimals
            let scale = (0..<decimals).reduce(1.0) { value, _ in value * 10 }
            lists[record.listCity, default: []].append(
                SampleHotel(
                    code: hotel.code, name: hotel.name ?? "", address: hotel.address,
                    latitude: hotel.latitude.map { ($0 * scale).rounded() / scale },
                    longitude: hotel.longitude.map { ($0 * scale).rounded() / scale },
                    logo: record.logo.map {
                        SampleLogo(isPNG: $0.isPNG, picture: seed ^ $0.picture, size: $0.size, jpegQuality: $0.jpegQuality)
                    },
                    addtime: addtime, phone: hotel.phone, chainCode: hotel.chainCode, rating: hotel.rating, postalCode: hotel.postalCode,
                    city: hotel.city ?? record.listCity, countryCode: hotel.countryCode ?? "",
                    references: (hotel.references ?? [:]).sorted { $0.key < $1.key }.map { (catalog: $0.key, code: $0.value) }
                ))
        }
        byCity = lists
        byCode = Dictionary(lists.values.joined().map { ($0.code, $0) }) { first, _ in first }
    }

    /// Up to `pageSize` hotels of `city` older than `before`, newest first,
    /// and the oldest addtime of the whole list (nil for an unknown city).
    /// A page of `city`'s list. "Shanghai #7" answers as Shanghai: a load
    /// test can have as many lists of a city as it likes.
    func page(city: String, pageSize: Int, before: Int64?) -> (hotels: ArraySlice<SampleHotel>, lastAddTime: Int64?) {
        guard let list = byCity[Self.baseCity(of: city)] else { return ([], nil) }
        var start = 0
        if let before {
            // The list is sorted newest first: binary search for the first older row.
            var low = 0
            var high = list.count
            while low < high {
                let middle = (low + high) / 2
                if list[middle].addtime >= before { low = middle + 1 } else { high = middle }
            }
            start = low
        }
        return (list[start..<min(list.count, start + pageSize)], list.last?.addtime)
    }

    /// "Shanghai #7" → "Shanghai"; any other name as it is.
    static func baseCity(of city: String) -> String {
        guard let mark = city.range(of: " #", options: .backwards) else { return city }
        let number = city[mark.upperBound...]
        return !number.isEmpty && number.allSatisfy({ $0.isASCII && $0.isNumber }) ? String(city[..<mark.lowerBound]) : city
    }

    func hotel(code: String) -> SampleHotel? {
        byCode[code]
    }
}

extension String {
    /// FNV-1a: stable across runs, unlike `hashValue`.
    var hashValueStable: UInt64 {
        utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
