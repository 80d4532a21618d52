/// The word lists names are read with. Each is short on purpose: a word
/// belongs here only if it can never tell one hotel from another.
enum NameWords {
    /// Dropped from the tokens that are scored, kept for display: the word
    /// "hotel" in the languages suppliers use, and articles, prepositions and
    /// conjunctions. "Inn", "suites", "resort", "spa" and "apartments" are not
    /// here: they tell the buildings of a complex apart ("X Hotel" beside "X
    /// Suites"), and where they are common the learned frequencies weigh them down.
    static let generic: Set<String> = [
        "hotel", "hotels", "hotell", "hoteles", "otel", "hotelli",
        // Kinds of lodging that suppliers add to a name or leave out ("Pension Gaipel", "Gaipel").
        "pension", "garni",
        "the", "a", "an", "and", "by", "of", "at", "in", "on",
        "le", "la", "les", "l", "de", "des", "du", "d", "et", "au", "aux",
        "und", "der", "die", "das", "am", "im", "zum", "zur",
        "el", "los", "las", "del", "y", "e", "di", "da", "il", "lo", "dei", "della",
    ]

    /// A generic word, or "hotel" with a typo ("hotal", "htoel"): suppliers
    /// misspell the word as often as any other, and it must not become a
    /// rare token that tells two records of one hotel apart.
    static func isGeneric(_ word: String) -> Bool {
        if generic.contains(word) { return true }
        let characters = Array(word.unicodeScalars)
        return characters.count >= 4 && characters.count <= 7
            && misspeltGeneric.contains { TokenSimilarity.isOneTypoApart(characters, $0) }
    }

    private static let misspeltGeneric = ["hotel", "hotels"].map { Array($0.unicodeScalars) }

    /// "Hotel" in Chinese, Japanese and Korean, removed before the characters
    /// become tokens: as characters they would agree between any two hotels.
    static let cjkGeneric = ["大酒店", "大飯店", "大饭店", "酒店", "飯店", "饭店", "賓館", "宾馆", "旅館", "旅馆", "ホテル", "호텔"]

    /// Abbreviations in names, to the word. "St" in a hotel's name is a
    /// saint (St Regis, St Pancras), never a street.
    static let abbreviations: [String: String] = [
        "st": "saint", "ste": "sainte", "sta": "santa", "sto": "santo", "mt": "mount",
        "intl": "international", "ctr": "center", "centre": "center",
        "apt": "apartments", "apts": "apartments", "appart": "apartments",
    ]
}
