import Foundation

/// A phone number's digits, compared by their end: the start is where
/// suppliers differ (+33, 0033, 0, or nothing).
public struct NormalisedPhone: Sendable, Hashable {
    /// The number's digits, the country code included when the supplier gave one.
    public let digits: String
    /// The last 9 digits as a number, and how many digits there are: what pairs compare.
    private let lastNine: UInt64
    private let digitCount: Int

    /// Nil for fewer than 7 digits, or a placeholder such as 0000000.
    init?(_ phone: String?) {
        guard let phone else { return nil }
        // The first of several numbers ("… / …"), without an extension ("… ext 12").
        let first = phone.lowercased().components(separatedBy: CharacterSet(charactersIn: "/,;|")).first ?? phone
        let withoutExtension = first.components(separatedBy: "ext").first ?? first
        let digits = String(withoutExtension.unicodeScalars.filter { $0.value >= 0x30 && $0.value <= 0x39 }.map(Character.init))
        guard digits.count >= 7, Set(digits).count > 1 else { return nil }
        self.digits = digits
        digitCount = digits.utf8.count
        lastNine = digits.utf8.suffix(9).reduce(0) { $0 * 10 + UInt64($1 - 0x30) }
    }

    /// The digits compared, as numbers: the last 9, or as many as the shorter number has.
    func comparedDigits(with other: NormalisedPhone) -> (UInt64, UInt64) {
        let length = min(9, digitCount, other.digitCount)
        var modulus: UInt64 = 1
        for _ in 0..<length { modulus *= 10 }
        return (lastNine % modulus, other.lastNine % modulus)
    }
}

/// Postal codes: upper case, letters and digits only, without a country prefix ("F-75008").
enum PostalCodes {
    static func normalise(_ code: String?) -> String? {
        guard let code else { return nil }
        var text = TextFolding.trimmed(code.uppercased())
        if let dash = text.firstIndex(of: "-"), text.distance(from: text.startIndex, to: dash) <= 2,
            text[..<dash].allSatisfy(\.isLetter), text[text.index(after: dash)...].first?.isNumber == true
        {
            text = String(text[text.index(after: dash)...])
        }
        let kept = String(
            text.unicodeScalars.filter { $0.properties.isAlphabetic || ($0.value >= 0x30 && $0.value <= 0x39) }.map(Character.init))
        guard !kept.isEmpty, kept.count <= 12, kept.contains(where: \.isNumber) else { return nil }
        return kept
    }
}

/// Catalogue references: catalogue lower case, code trimmed; empty codes and "0" are no reference.
enum References {
    static func normalise(_ references: [String: String]?) -> [String: String] {
        guard let references else { return [:] }
        var result: [String: String] = [:]
        for (catalogue, code) in references {
            let name = TextFolding.trimmed(catalogue.lowercased())
            let value = TextFolding.trimmed(code).uppercased()
            guard !name.isEmpty, !value.isEmpty, value.contains(where: { $0 != "0" }) else { continue }
            result[name] = value
        }
        return result
    }
}

/// A logo's perceptual hash, and whether it is a brand's rather than one hotel's.
public struct NormalisedLogo: Sendable, Hashable, CustomStringConvertible {
    public let hash: UInt64
    /// One supplier shows this picture for two or more of its records (or too
    /// many records show it): a chain's logo, or a placeholder.
    public internal(set) var isBrand = false

    init?(_ hash: UInt64?) {
        guard let hash else { return nil }
        self.hash = hash
    }

    /// The hash in 16 hex digits, and "brand" for a brand's logo.
    public var description: String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits + (isBrand ? " (brand)" : "")
    }
}
