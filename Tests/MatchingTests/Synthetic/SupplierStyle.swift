import Foundation
import Seeding

/// How one supplier writes a hotel: case, word order, abbreviations, phone
/// form, which fields it sends. Five styles, after the issue's examples.
struct SupplierStyle {
    var number: Int

    /// 0: as the hotel writes itself; 1: a GDS, upper case with the postal
    /// code in the street line; 2: "Paris Marriott Champs-Élysées Hotel"; 3:
    /// short names, no city; 4: "Hotel …" with saints abbreviated.
    private var style: Int { (number - 1) % 5 }

    func name(_ hotel: TrueHotel, random: inout SeededGenerator) -> String {
        var words = hotel.nameWords
        if let descriptor = hotel.descriptor, Double.random(in: 0..<1, using: &random) >= 0.1 { words.append(descriptor) }
        // A distinguishing word left out now and then ("Ibis Paris Gare de Lyon Diderot" as "… Gare de Lyon").
        if hotel.brand != nil, words.count > 2, Double.random(in: 0..<1, using: &random) < 0.04 { words.removeLast() }
        var name: String
        switch style {
        case 1:
            name = ([hotel.brand.map { $0 + " -" }].compactMap { $0 } + words).joined(separator: " ")
            name = Self.plain(name).uppercased()
        case 2:
            if let brand = hotel.brand {
                let rest = words.filter { $0 != "Paris" }
                name = (["Paris", brand] + rest + ["Hotel"]).joined(separator: " ")
            } else {
                name = (words.filter { $0 != "Hôtel" } + ["Hotel"]).joined(separator: " ")
            }
        case 3:
            name = ([hotel.brand].compactMap { $0 } + words.filter { $0 != "Paris" && $0 != "Hôtel" && $0 != "Le" })
                .joined(separator: " ")
            name = Self.plain(name)
        case 4:
            name = (["Hotel"] + [hotel.brand].compactMap { $0 } + words.filter { $0 != "Hôtel" }).joined(separator: " ")
                .replacingOccurrences(of: "Saint-", with: "St ").replacingOccurrences(of: "-", with: " ")
        default:
            name = ([hotel.brand].compactMap { $0 } + words).joined(separator: " ")
        }
        if Double.random(in: 0..<1, using: &random) < 0.08 { name = Self.typo(in: name, random: &random) }
        return name
    }

    func address(_ hotel: TrueHotel, random: inout SeededGenerator) -> String? {
        if Double.random(in: 0..<1, using: &random) < 0.10 { return nil }
        var street = hotel.street.name
        if Double.random(in: 0..<1, using: &random) < 0.05 { street = Self.typo(in: street, random: &random) }
        let number = String(hotel.houseNumber)
        let type = hotel.street.type
        switch style {
        case 1:
            let short = ["Avenue": "AV", "Boulevard": "BD", "Rue": "R", "Place": "PL", "Quai": "QUAI"][type] ?? type
            return Self.plain("\(number) \(short) \(street) \(hotel.postalCode) PARIS").uppercased()
        case 2: return "\(number), \(type.lowercased()) \(street.replacingOccurrences(of: "-", with: " "))"
        case 3:
            let short = ["Avenue": "av.", "Boulevard": "bd", "Rue": "r.", "Place": "pl.", "Quai": "quai"][type] ?? type
            return Self.plain("\(number) \(short) \(street)")
        case 4: return "\(number) \(type) \(street), Paris"
        default: return "\(number) \(type) \(street)"
        }
    }

    func postalCode(_ hotel: TrueHotel, random: inout SeededGenerator) -> String? {
        if style == 1 || Double.random(in: 0..<1, using: &random) < 0.15 { return nil }
        return style == 4 ? "F-\(hotel.postalCode)" : hotel.postalCode
    }

    func phone(_ hotel: TrueHotel, random: inout SeededGenerator) -> String? {
        let draw = Double.random(in: 0..<1, using: &random)
        if draw < 0.15 { return nil }
        // Now and then the supplier's own reservations line instead of the hotel's.
        let digits = draw < 0.18 ? "1" + String(Int.random(in: 10_000_000...99_999_999, using: &random)) : hotel.phone
        let pairs = stride(from: 1, to: 9, by: 2).map { digits.dropFirst($0).prefix(2) }.joined(separator: " ")
        switch style {
        case 1: return "+33\(digits)"
        case 2: return "0033 \(digits.prefix(1)) \(pairs)"
        case 3: return "0\(digits.prefix(1)).\(pairs.replacingOccurrences(of: " ", with: "."))"
        case 4: return "(+33) \(digits.prefix(1))-\(pairs.replacingOccurrences(of: " ", with: "-"))"
        default: return "+33 \(digits.prefix(1)) \(pairs)"
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

    /// Without diacritics, as older systems write.
    static func plain(_ text: String) -> String {
        text.folding(options: [.diacriticInsensitive], locale: nil)
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
