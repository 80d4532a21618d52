/// The word lists street lines are read with.
enum AddressWords {
    /// Abbreviations of street types, to one word per idea in any position.
    /// "Pl." is a place in French and a Platz in German: both become "place",
    /// as do Platz, plaza and piazza, since one city's streets never use two
    /// of them for two different things. Avenida and its "Av." become
    /// "avenue" for the same reason.
    static let abbreviations: [String: String] = [
        "av": "avenue", "ave": "avenue", "avn": "avenue", "avda": "avenue", "avenida": "avenue",
        "bd": "boulevard", "bld": "boulevard", "blvd": "boulevard", "boul": "boulevard", "bvd": "boulevard",
        "str": "strasse", "rd": "road", "ln": "lane", "sq": "square", "sqr": "square",
        "pl": "place", "plz": "place", "platz": "place", "plaza": "place", "piazza": "place", "pza": "place", "pzza": "place",
        "hwy": "highway", "pkwy": "parkway", "ct": "court", "cres": "crescent", "fbg": "faubourg",
        "chem": "chemin", "rte": "route", "imp": "impasse", "ste": "sainte", "mt": "mount", "ctr": "center",
        "gdns": "gardens", "gdn": "garden", "terr": "terrace",
    ]

    /// "St" is a street at the end of the line ("Baker St") and a saint before a name ("Rue St Honoré").
    static let streetOrSaint = "st"
    /// "R." is the French rue and "C/" the Spanish calle, but only before the street's name.
    static let leadingTypes: [String: String] = ["r": "rue", "c": "calle", "cl": "calle"]
    /// "Dr" is a drive at the end of the line; elsewhere it is a doctor's title, left as it is.
    static let trailingTypes: [String: String] = ["st": "street", "dr": "drive"]

    /// German and Dutch street types written onto the name ("Friedrichstraße",
    /// "Friedrichstr."), split off so that "Friedrich-Straße" agrees.
    static let compoundSuffixes: [(suffix: String, type: String)] = [
        ("strasse", "strasse"), ("str", "strasse"), ("platz", "place"), ("pl", "place"), ("gasse", "gasse"), ("straat", "straat"),
    ]

    /// Street types: agreeing on one says little, so they weigh half a word.
    static let streetTypes: Set<String> = [
        "street", "strasse", "avenue", "boulevard", "road", "lane", "square", "place", "highway", "parkway",
        "court", "crescent", "faubourg", "chemin", "route", "impasse", "rue", "calle", "via", "viale", "gasse",
        "straat", "drive", "allee", "quai", "way", "corso", "carrer", "rua", "gardens", "garden", "terrace",
    ]

    /// Articles, prepositions, and the words that announce a number ("No. 5").
    static let generic: Set<String> = [
        "de", "des", "du", "d", "la", "le", "les", "l", "the", "of", "von", "am", "an", "der", "die", "das",
        "del", "di", "da", "y", "el", "dos", "do", "no", "nr", "n", "num", "numero",
    ]

    /// What follows a house number and belongs to it: "12 bis", "12 b".
    static let numberSuffixes: Set<String> = ["bis", "ter", "quater", "a", "b", "c", "d"]
}
