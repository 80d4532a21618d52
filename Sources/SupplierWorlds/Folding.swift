import Foundation

/// Foundation's diacritic folding and literal replacement, made fast for a
/// world of a million records: ASCII text is left alone, a letter of the
/// Latin blocks is folded through a table made once with Foundation itself
/// (so the result is Foundation's), and anything else goes to Foundation.
enum Folding {
    /// U+00C0 to U+024F, each folded by Foundation: a letter, or nil when it folds to itself.
    private static let latin: [String?] = (0xC0...0x24F).map { value in
        guard let scalar = Unicode.Scalar(UInt32(value)) else { return nil }
        let single = String(Character(scalar))
        let folded = single.folding(options: [.diacriticInsensitive], locale: nil)
        return folded == single ? nil : folded
    }

    static func withoutDiacritics(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var folded = ""
        folded.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x80: folded.unicodeScalars.append(scalar)
            case 0xC0...0x24F:
                if let letter = latin[Int(scalar.value) - 0xC0] { folded += letter } else { folded.unicodeScalars.append(scalar) }
            // Outside the table (a combining mark, another script): the whole text as Foundation folds it.
            default: return text.folding(options: [.diacriticInsensitive], locale: nil)
            }
        }
        return folded
    }
}

extension String {
    /// Every occurrence of `target` replaced, byte for byte: what `replacingOccurrences(of:with:)` gives
    /// on the world's precomposed text, without Foundation's cost.
    func replacingBytes(of target: String, with replacement: String) -> String {
        let pattern = Array(target.utf8)
        guard let first = pattern.first, utf8.contains(first) else { return self }
        let bytes = Array(utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        var index = 0
        var replaced = false
        while index < bytes.count {
            if bytes[index] == first, index + pattern.count <= bytes.count, bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                output += replacement.utf8
                index += pattern.count
                replaced = true
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return replaced ? String(decoding: output, as: UTF8.self) : self
    }
}
