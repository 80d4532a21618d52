import Foundation

/// Text to comparable tokens: case and diacritics folded, punctuation to spaces.
enum TextFolding {
    /// Lower case, no diacritics, full-width forms narrowed, at most `maxCharacters` long.
    static func fold(_ text: String, maxCharacters: Int) -> String {
        // Cut first: folding a 5,000-character name would cost time for nothing.
        let cut = cut(text, to: maxCharacters)
        // Most suppliers write ASCII, whose folding is lower case alone: no need for Foundation's.
        if cut.utf8.allSatisfy({ $0 < 0x80 }) { return cut.lowercased() }
        let folded = cut.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        // Letters that are not a base letter plus a mark, so folding keeps them.
        guard folded.unicodeScalars.contains(where: { lettersFoldingKeeps[$0] != nil }) else { return folded }
        var result = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if let replacement = lettersFoldingKeeps[scalar] {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static let lettersFoldingKeeps: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i",
    ]

    /// The words of folded text, in order; each Han or kana character is a word of its own.
    ///
    /// Chinese and Japanese names have no spaces, so a name compares by its
    /// characters. Apostrophes split ("d'orsay" is "d orsay"), and `&`
    /// between two letters stays inside the word ("b&b").
    static func words(_ folded: String, maxWords: Int, maxWordLength: Int = 48) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        let scalars = Array(folded.unicodeScalars)

        func finishWord() {
            if !current.isEmpty, words.count < maxWords {
                words.append(String(current))
            }
            current = String.UnicodeScalarView()
        }

        for (index, scalar) in scalars.enumerated() {
            if words.count >= maxWords { break }
            if isHanOrKana(scalar) {
                finishWord()
                current.append(scalar)
                finishWord()
            } else if isWordPart(scalar) {
                if current.count < maxWordLength { current.append(scalar) }
            } else if scalar == "&", !current.isEmpty, index + 1 < scalars.count, isWordPart(scalars[index + 1]) {
                current.append(scalar)
            } else {
                finishWord()
            }
        }
        finishWord()
        return words
    }

    /// Letters, digits, and the marks that belong to a letter (Devanagari vowel signs, say).
    static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark: return true
        default: return false
        }
    }

    /// Han ideographs, hiragana and katakana (half-width too): written without spaces.
    static func isHanOrKana(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9F,
            0x20000...0x3134F:
            return true
        default:
            return false
        }
    }

    /// The text's first `maxCharacters` characters (counting only when its bytes could be more).
    static func cut(_ text: String, to maxCharacters: Int) -> String {
        text.utf8.count > maxCharacters && text.count > maxCharacters ? String(text.prefix(maxCharacters)) : text
    }

    /// The text without white space or line breaks at either end: what
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives (the same
    /// characters, Unicode's White_Space), without a trip through NSString.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return text }
        return String(scalars[first...last])
    }

    /// Whether the word is digits only.
    static func isNumber(_ word: String) -> Bool {
        !word.isEmpty && word.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Whether the word starts with a digit: a house number such as "12" or "12b".
    static func startsWithDigit(_ word: String) -> Bool {
        guard let first = word.utf8.first else { return false }
        return first >= 0x30 && first <= 0x39
    }
}
