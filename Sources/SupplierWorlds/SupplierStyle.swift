import Foundation
import Seeding

/// How one supplier writes a hotel: case, word order, abbreviations, phone
/// form, which fields it sends. Five styles, after the issue's examples.
public struct SupplierStyle: Sendable {
    public var number: Int

    public init(number: Int) {
        self.number = number
    }

    /// 0: as the hotel writes itself; 1: a GDS, upper case with the postal
    /// code in the street line; 2: "Paris Marriott Champs-Élysées Hotel"; 3:
    /// short names, no city; 4: "Hotel …" with saints abbreviated.
    var style: Int { (number - 1) % 5 }

    func name(_ hotel: TrueHotel, in city: WorldCity, random: inout SeededGenerator) -> String {
        var words = hotel.nameWords
        if let descriptor = hotel.descriptor, Double.random(in: 0..<1, using: &random) >= 0.1 { words.append(descriptor) }
        // A distinguishing word left out now and then ("Ibis Paris Gare de Lyon Diderot" as "… Gare de Lyon").
        if hotel.brand != nil, words.count > 2, Double.random(in: 0..<1, using: &random) < 0.04 { words.removeLast() }
        var name: String
        switch style {
        case 1:
            name = ([hotel.brand.map { $0 + " -" }].compactMap { $0 } + words).joined(separator: " ")
            name = Self.plain(name, in: city).uppercased()
        case 2:
            if let brand = hotel.brand {
                let rest = words.filter { $0 != city.name }
                name = ([city.name, brand] + rest + ["Hotel"]).joined(separator: " ")
            } else {
                name = (words.filter { $0 != city.hotelWord } + ["Hotel"]).joined(separator: " ")
            }
        case 3:
            let left = [city.name, city.hotelWord] + city.articles
            name = ([hotel.brand].compactMap { $0 } + words.filter { !left.contains($0) }).joined(separator: " ")
            name = Self.plain(name, in: city)
        case 4:
            name = (["Hotel"] + [hotel.brand].compactMap { $0 } + words.filter { $0 != city.hotelWord }).joined(separator: " ")
            for (long, short) in city.nameAbbreviations { name = name.replacingBytes(of: long, with: short) }
        default:
            name = ([hotel.brand].compactMap { $0 } + words).joined(separator: " ")
        }
        if Double.random(in: 0..<1, using: &random) < 0.08 { name = Self.typo(in: name, random: &random) }
        return name
    }

    func address(_ hotel: TrueHotel, in city: WorldCity, random: inout SeededGenerator) -> String? {
        if Double.random(in: 0..<1, using: &random) < 0.10 { return nil }
        var street = hotel.street.name
        if Double.random(in: 0..<1, using: &random) < 0.05 { street = Self.typo(in: street, random: &random) }
        let number = String(hotel.houseNumber)
        let type = hotel.street.type
        switch style {
        case 1:
            let line = city.numbered(number, city.street(type: city.upperAbbreviations[type] ?? type, name: street))
            return Self.plain("\(line) \(hotel.postalCode) \(city.name)", in: city).uppercased()
        case 2:
            return city.numbered(
                number, city.street(type: type.lowercased(), name: street.replacingBytes(of: "-", with: " ")), separator: ", ")
        case 3:
            return Self.plain(city.numbered(number, city.street(type: city.shortAbbreviations[type] ?? type, name: street)), in: city)
        case 4: return city.numbered(number, city.street(type: type, name: street)) + ", \(city.name)"
        default: return city.numbered(number, city.street(type: type, name: street))
        }
    }

    func postalCode(_ hotel: TrueHotel, in city: WorldCity, random: inout SeededGenerator) -> String? {
        if style == 1 || Double.random(in: 0..<1, using: &random) < 0.15 { return nil }
        return style == 4 ? (city.postalCountryLetter.map { "\($0)-" } ?? "") + hotel.postalCode : hotel.postalCode
    }

    func phone(_ hotel: TrueHotel, in city: WorldCity, random: inout SeededGenerator) -> String? {
        let draw = Double.random(in: 0..<1, using: &random)
        if draw < 0.15 { return nil }
        // Now and then the supplier's own reservations line instead of the hotel's.
        let digits =
            draw < 0.18
            ? city.areaCode + String(Int.random(in: 10_000_000...99_999_999, using: &random)).prefix(city.subscriberDigits)
            : hotel.phone
        let groups = city.groups(of: digits)
        let first = groups.first ?? ""
        let rest = groups.dropFirst()
        let code = city.diallingCode
        switch style {
        case 1: return "+\(code)\(digits)"
        case 2: return "00\(code) \(groups.joined(separator: " "))"
        case 3: return city.trunkPrefix + groups.joined(separator: ".")
        case 4: return "(+\(code)) \(first)-\(rest.joined(separator: "-"))"
        default: return "+\(code) \(groups.joined(separator: " "))"
        }
    }

    /// Up to 300 m off, and sometimes swapped, 0,0 or absent.
    func position(_ hotel: TrueHotel, random: inout SeededGenerator) -> (Double, Double)? {
        let draw = Double.random(in: 0..<1, using: &random)
        if draw < 0.04 { return nil }
        if draw < 0.06 { return (0, 0) }
        let metres = Double.random(in: 0...300, using: &random)
        let angle = Double.random(in: 0..<(2 * .pi), using: &random)
        let latitude = hotel.latitude + metres * cos(angle) / 111_195
        let longitude = hotel.longitude + metres * sin(angle) / (111_195 * cos(hotel.latitude * .pi / 180))
        return draw < 0.08 ? (longitude, latitude) : (latitude, longitude)
    }

    func chainCode(_ hotel: TrueHotel) -> String? { style == 1 || style == 3 ? hotel.chainCode : nil }

    func rating(_ hotel: TrueHotel, random: inout SeededGenerator) -> Double? {
        guard style == 0 || style == 2 || style == 4 else { return nil }
        let off = Double.random(in: 0..<1, using: &random) < 0.1 ? 1 : 0
        return Double(max(1, hotel.rating - off))
    }

    func references(_ hotel: TrueHotel, allGiata: [String], random: inout SeededGenerator) -> [String: String]? {
        guard style == 1 || style == 3, Double.random(in: 0..<1, using: &random) < 0.7 else { return nil }
        // Catalogues are wrong now and then too.
        if Double.random(in: 0..<1, using: &random) < 0.005 { return ["giata": allGiata.randomElement(using: &random) ?? hotel.giata] }
        return ["giata": hotel.giata]
    }

    /// Decimal places of the positions it sends: a GDS rounds to about 10 m.
    public var coordinateDecimals: Int { [6, 4, 5, 6, 5][style] }

    /// How it re-encodes a hotel's logo: the size in pixels, PNG or JPEG, and the JPEG quality.
    public var logoEncoding: (size: Int, isPNG: Bool, quality: Int) {
        [(400, true, 90), (120, false, 70), (256, true, 90), (64, false, 80), (600, false, 88)][style]
    }

    /// Without diacritics, as older systems write: the city's transliterations first (ü as ue), then accents dropped.
    static func plain(_ text: String, in city: WorldCity) -> String {
        var text = text
        for (letter, spelling) in city.transliterations { text = text.replacingBytes(of: letter, with: spelling) }
        return Folding.withoutDiacritics(text)
    }

    /// One character of one long word substituted, dropped or exchanged with the next.
    static func typo(in text: String, random: inout SeededGenerator) -> String {
        var words = text.split(separator: " ").map(String.init)
        let long = words.indices.filter { words[$0].count >= 5 }
        guard let index = long.randomElement(using: &random) else { return text }
        var characters = Array(words[index])
        let position = Int.random(in: 1..<(characters.count - 1), using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: characters[position] = characters[position] == "e" ? "a" : "e"
        case 1: characters.remove(at: position)
        default: characters.swapAt(position, position + 1)
        }
        words[index] = String(characters)
        return words.joined(separator: " ")
    }
}
