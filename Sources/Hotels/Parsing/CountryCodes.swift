import Foundation

extension CountryNames {
    /// The alpha-2 code for a code or a name as a supplier sent it: an alpha-2
    /// code in any case, an alpha-3 code, or a name that one country has (in
    /// English, German, French, Spanish, Italian, Portuguese or Dutch, or a
    /// common alias); nil for anything else.
    static func code(for bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.utf8.count == 2 || text.utf8.count == 3,
            text.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) })
        {
            let upper = text.uppercased()
            if upper.count == 2 { return alpha2.contains(upper) ? upper : nil }
            if let code = alpha3[upper] { return code }
        }
        return byName[folded(text)]
    }

    /// Lower case, no accents, anything but letters and digits as single spaces: as scripts/countries folds.
    static func folded(_ name: String) -> String {
        let plain = name.decomposedStringWithCompatibilityMapping.unicodeScalars.filter {
            !$0.properties.isDiacritic && $0.properties.generalCategory != .nonspacingMark
        }
        var folded = ""
        var pendingSpace = false
        for scalar in plain {
            let lower = scalar.properties.lowercaseMapping
            if lower.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) }) {
                if pendingSpace, !folded.isEmpty { folded.append(" ") }
                pendingSpace = false
                folded += lower
            } else {
                pendingSpace = true
            }
        }
        return folded
    }

    private static let alpha2: Set<String> = Set(codes.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
    private static let alpha3: [String: String] = Dictionary(
        codes.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
    private static let byName: [String: String] = Dictionary(
        names.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t")
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
}
