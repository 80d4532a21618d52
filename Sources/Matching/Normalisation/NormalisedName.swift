import Foundation

/// A hotel's name, read once for comparing.
public struct NormalisedName: Sendable, Hashable {
    /// The name as the supplier gave it (trimmed and cut to the configured length): what is shown.
    public var display: String
    /// The tokens compared: folded, abbreviations written out, without the
    /// generic words and the city's name, each once, in the name's order.
    public var tokens: [String]

    /// Nil when the name has nothing to compare.
    init?(_ name: String?, cityWords: Set<String>, configuration: NormalisationConfiguration) {
        guard let name else { return nil }
        let trimmed = TextFolding.trimmed(name)
        guard !trimmed.isEmpty else { return nil }
        display = TextFolding.cut(trimmed, to: configuration.maxCharacters)

        var folded = TextFolding.fold(display, maxCharacters: configuration.maxCharacters)
        if folded.unicodeScalars.contains(where: TextFolding.isHanOrKana) || folded.contains("호텔") {
            for word in NameWords.cjkGeneric { folded = folded.replacingOccurrences(of: word, with: " ") }
        }
        let words = TextFolding.words(folded, maxWords: configuration.maxTokens)
            .map { NameWords.abbreviations[$0] ?? $0 }
        tokens = Self.scoringTokens(words, cityWords: cityWords)
        if tokens.isEmpty { return nil }
    }

    /// The words that can tell hotels apart. A city's name in a hotel's name
    /// ("Novotel Paris Gare de Lyon") says nothing within that city, and
    /// suppliers add or drop it freely, so it goes, unless nothing else is
    /// left ("Hotel de Paris"); a name of generic words only keeps them.
    private static func scoringTokens(_ words: [String], cityWords: Set<String>) -> [String] {
        let meaningful = words.filter { word in
            !NameWords.isGeneric(word) && !isSingleLatinLetter(word)
        }
        let cityCharacters = cityWords.map { Array($0.unicodeScalars) }
        // "Pris" and "Parsi" too: a misspelt city is still the city.
        let withoutCity = meaningful.filter { word in
            !cityWords.contains(word) && !cityCharacters.contains { TokenSimilarity.isOneTypoApart(Array(word.unicodeScalars), $0) }
        }
        let chosen = !withoutCity.isEmpty ? withoutCity : !meaningful.isEmpty ? meaningful : words
        var seen = Set<String>()
        return chosen.filter { seen.insert($0).inserted }
    }

    /// "l" of "l'hôtel", an initial: a single letter outside Han and kana, which are words each.
    private static func isSingleLatinLetter(_ word: String) -> Bool {
        guard word.unicodeScalars.count == 1, let scalar = word.unicodeScalars.first else { return false }
        return !TextFolding.isHanOrKana(scalar) && !TextFolding.isNumber(word)
    }
}
