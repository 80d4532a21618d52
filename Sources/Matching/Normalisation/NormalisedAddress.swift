import Foundation

/// A street line, read once for comparing: house number and street apart.
public struct NormalisedAddress: Sendable, Hashable {
    /// The line as the supplier gave it, trimmed and cut.
    public var display: String
    /// The house number with its suffix ("12", "12b", "12bis"), when the line has one.
    public private(set) var houseNumber: String?
    /// The street's words: folded, abbreviations written out, no articles,
    /// no postal code or city.
    public private(set) var streetTokens: [String]
    /// The number and street as they are compared, read once rather than once per pair.
    let compared: ComparedAddress
    /// A postal code the line carried ("… 75008 PARIS"), for a record whose postal code field is empty.
    public var postalCode: String?

    /// Nil when the line has neither a number nor a street.
    init?(_ line: String?, postalCode knownPostalCode: String?, cityWords: Set<String>, configuration: NormalisationConfiguration) {
        guard let line else { return nil }
        let trimmed = TextFolding.trimmed(line)
        guard !trimmed.isEmpty else { return nil }
        display = TextFolding.cut(trimmed, to: configuration.maxCharacters)

        let folded = TextFolding.fold(display, maxCharacters: configuration.maxCharacters)
        var words = TextFolding.words(folded, maxWords: configuration.maxTokens)
        postalCode = Self.removePostalCode(from: &words, known: knownPostalCode)
        Self.removeTrailingCity(from: &words, cityWords: cityWords)
        houseNumber = Self.takeHouseNumber(from: &words)
        let streetTokens = Self.expand(words).filter { !AddressWords.generic.contains($0) }
        self.streetTokens = streetTokens
        compared = ComparedAddress(houseNumber: houseNumber, street: streetTokens)
        if houseNumber == nil && streetTokens.isEmpty { return nil }
    }

    /// Takes out the postal code: the record's own when the line repeats
    /// it, else a number of 4 or 5 digits after the street's words, which
    /// is where lines that carry one put it; whatever follows it (the city,
    /// the country) goes too.
    private static func removePostalCode(from words: inout [String], known: String?) -> String? {
        if let known, !known.isEmpty {
            let lower = known.lowercased()
            for index in words.indices where words[index] == lower {
                words.removeSubrange(index...)
                return known
            }
            // A code of two words, such as "SW1A 1AA".
            for index in words.indices.dropLast() where words[index] + words[index + 1] == lower {
                words.removeSubrange(index...)
                return known
            }
        }
        guard let firstWord = words.firstIndex(where: { !TextFolding.startsWithDigit($0) }) else { return nil }
        // A British or Canadian code of two words ("W2 7YA", "K1A 0B1") after the street, perhaps before the city.
        let twoWords = words.indices.dropLast().last { index in
            index > firstWord && isOutwardCode(words[index]) && isInwardCode(words[index + 1])
                && words[(index + 2)...].allSatisfy { !TextFolding.startsWithDigit($0) }
        }
        if let twoWords {
            let code = (words[twoWords] + words[twoWords + 1]).uppercased()
            words.removeSubrange(twoWords...)
            return code
        }
        let found = words.indices.last { index in
            index > firstWord && TextFolding.isNumber(words[index]) && (4...5).contains(words[index].utf8.count)
                && words[(index + 1)...].allSatisfy { !TextFolding.startsWithDigit($0) }
        }
        guard let found else { return nil }
        let code = words[found].uppercased()
        words.removeSubrange(found...)
        return code
    }

    /// "W2", "SW1A", "K1A": a letter first, 2 to 4 letters and digits, a digit among them.
    private static func isOutwardCode(_ word: String) -> Bool {
        let bytes = Array(word.utf8)
        guard (2...4).contains(bytes.count), let first = bytes.first, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) } && bytes.contains(where: isDigit)
    }

    /// "7YA", "0B1": a digit, then letters and digits, a letter among them.
    private static func isInwardCode(_ word: String) -> Bool {
        let bytes = Array(word.utf8)
        guard bytes.count == 3, isDigit(bytes[0]) else { return false }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) } && bytes.contains(where: isLetter)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// The city's name at the end of a line, as in "12 Rue X Paris".
    private static func removeTrailingCity(from words: inout [String], cityWords: Set<String>) {
        while words.count > 1, let last = words.last, cityWords.contains(last) {
            words.removeLast()
        }
    }

    /// The first word starting with a digit, with "bis" or a letter after it.
    private static func takeHouseNumber(from words: inout [String]) -> String? {
        guard let index = words.firstIndex(where: TextFolding.startsWithDigit) else { return nil }
        var number = words[index]
        var end = index + 1
        if end < words.count, TextFolding.isNumber(number), AddressWords.numberSuffixes.contains(words[end]) {
            number += words[end]
            end += 1
        }
        words.removeSubrange(index..<end)
        return number
    }

    /// Street types written out, by where they stand in the line.
    private static func expand(_ words: [String]) -> [String] {
        var expanded: [String] = []
        for (index, word) in words.enumerated() {
            if index == words.count - 1, words.count > 1, let type = AddressWords.trailingTypes[word] {
                expanded.append(type)
            } else if index == 0, words.count > 1, let type = AddressWords.leadingTypes[word] {
                expanded.append(type)
            } else if word == AddressWords.streetOrSaint {
                expanded.append("saint")
            } else if let type = AddressWords.abbreviations[word] {
                expanded.append(type)
            } else {
                expanded.append(contentsOf: splitCompound(word))
            }
        }
        return expanded
    }

    /// "friedrichstrasse" to "friedrich", "strasse".
    private static func splitCompound(_ word: String) -> [String] {
        for (suffix, type) in AddressWords.compoundSuffixes
        where word.count >= suffix.count + 3 && word.hasSuffix(suffix) {
            return [String(word.dropLast(suffix.count)), type]
        }
        return [word]
    }
}

/// A street line in the forms a pair's comparison reads: the house number's
/// digits, and the street's words with their characters for typos, and which
/// words are street types. A class, so that comparing a pair takes it without
/// copying its arrays. Its characters are one array, not one per word: a
/// city's streets are hundreds of thousands of these.
final class ComparedAddress: Sendable, Hashable {
    /// "12" of "12", "12b" and "12bis": "12" and "12 bis" share a door often enough that only the digits are compared.
    let houseDigits: String?
    let words: [String]
    /// Every word's characters, end to end: the street as its words written together ("champselysees").
    let characters: [Unicode.Scalar]
    /// Where each word's characters end in ``characters``.
    private let ends: [Int]
    /// One bit per word (of the first 64) that is a street type ("street", "rue").
    private let streetTypes: UInt64
    let totalWeight: Double

    init(houseNumber: String?, street words: [String]) {
        houseDigits = houseNumber.map { String($0.prefix { $0.isASCII && $0.isNumber }) }
        self.words = words
        var characters: [Unicode.Scalar] = []
        var ends: [Int] = []
        var streetTypes: UInt64 = 0
        for (index, word) in words.enumerated() {
            characters += word.unicodeScalars
            ends.append(characters.count)
            if index < 64 && AddressWords.streetTypes.contains(word) { streetTypes |= 1 << UInt64(index) }
        }
        (self.characters, self.ends, self.streetTypes) = (characters, ends, streetTypes)
        totalWeight = words.indices.reduce(0) { total, index in total + Self.weight(index, streetTypes) }
    }

    /// One word's characters.
    func characters(ofWord index: Int) -> ArraySlice<Unicode.Scalar> {
        characters[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }

    /// A street type is worth half a word: most streets have one.
    func weight(_ index: Int) -> Double { Self.weight(index, streetTypes) }

    private static func weight(_ index: Int, _ streetTypes: UInt64) -> Double {
        index < 64 && streetTypes & (1 << UInt64(index)) != 0 ? 0.5 : 1
    }

    static func == (lhs: ComparedAddress, rhs: ComparedAddress) -> Bool {
        lhs.houseDigits == rhs.houseDigits && lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(houseDigits)
        hasher.combine(words)
    }
}
