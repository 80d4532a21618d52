/// The comparisons of every signal but the name, each to an agreement level.
enum FieldComparisons {
    /// Streets agree at this weighted Dice similarity or more.
    static let sameStreetSimilarity = 0.7

    /// House number and street. The street decides; the number then says
    /// whether it is the same door.
    static func address(_ a: ComparedAddress?, _ b: ComparedAddress?) -> (level: AgreementLevel, similarity: Double) {
        guard let a, let b, !a.words.isEmpty, !b.words.isEmpty else { return (.missing, 0) }
        let similarity = streetSimilarity(a, b)
        guard similarity >= sameStreetSimilarity else { return (.different, similarity) }
        guard let first = a.houseDigits, let second = b.houseDigits else { return (.sameStreet, similarity) }
        return (first == second ? .exact : .numberDiffers, similarity)
    }

    /// Weighted Dice similarity of two streets' words, a street type worth
    /// half a word; words one typo apart agree, and so do two streets that
    /// are the same letters once their words are joined ("Champs-Élysées", "Champselysees").
    /// Each word of `a` takes the first free word of `b` that equals it, else the first one typo apart.
    static func streetSimilarity(_ a: ComparedAddress, _ b: ComparedAddress) -> Double {
        if a.characters == b.characters { return 1 }
        var taken = [Bool](repeating: false, count: b.words.count)
        var agreeing = 0.0
        for index in a.words.indices {
            let found =
                b.words.indices.first { !taken[$0] && b.words[$0] == a.words[index] }
                ?? b.words.indices.first {
                    !taken[$0] && TokenSimilarity.isOneTypoApart(a.characters(ofWord: index), b.characters(ofWord: $0))
                }
            if let found {
                agreeing += a.weight(index) + b.weight(found)
                taken[found] = true
            }
        }
        let total = a.totalWeight + b.totalWeight
        return total > 0 ? agreeing / total : 0
    }

    static func postalCode(_ a: String?, _ b: String?) -> AgreementLevel {
        guard let a, let b else { return .missing }
        return a == b ? .exact : .different
    }

    /// The last 9 digits (fewer when a number is shorter); all but the last two agreeing is one switchboard.
    static func phone(_ a: NormalisedPhone?, _ b: NormalisedPhone?) -> AgreementLevel {
        guard let a, let b else { return .missing }
        let (first, second) = a.comparedDigits(with: b)
        if first == second { return .exact }
        return first / 100 == second / 100 ? .sameSwitchboard : .different
    }

    /// The haversine distance, in levels of what suppliers' positions of one hotel differ by (20 to 300 m).
    static func distance(_ a: GeoPoint?, _ b: GeoPoint?) -> (level: AgreementLevel, metres: Double?) {
        guard let a, let b else { return (.missing, nil) }
        let metres = a.distance(to: b)
        let level: AgreementLevel =
            switch metres {
            case ...150: .veryClose
            case ...400: .close
            case ...1000: .near
            case ...5000: .far
            default: .veryFar
            }
        return (level, metres)
    }

    static func chain(_ a: String?, _ b: String?) -> AgreementLevel {
        guard let a, let b else { return .missing }
        return a == b ? .exact : .different
    }

    /// Logos this many bits apart or fewer are one picture, re-encoded: a
    /// copy at another size, in PNG or JPEG, moves a hash by a few bits,
    /// while two pictures differ in about half of the 64.
    static let sameLogoBits = 12

    /// The same picture is exact, or weak when it is a brand's logo (evidence of the brand, not of the hotel).
    static func logo(_ a: NormalisedLogo?, _ b: NormalisedLogo?) -> (level: AgreementLevel, bits: Int?) {
        guard let a, let b else { return (.missing, nil) }
        let bits = (a.hash ^ b.hash).nonzeroBitCount
        guard bits <= sameLogoBits else { return (.different, bits) }
        return (a.isBrand || b.isBrand ? .weak : .exact, bits)
    }

    static func rating(_ a: Double?, _ b: Double?) -> AgreementLevel {
        guard let a, let b else { return .missing }
        let difference = abs(a - b)
        if difference < 0.01 { return .exact }
        return difference <= 1 ? .close : .different
    }

    /// Only catalogues both records have count; one agreeing code is
    /// decisive unless another catalogue disagrees.
    static func references(_ a: [String: String], _ b: [String: String]) -> AgreementLevel {
        var agreeing = 0
        var disagreeing = 0
        for (catalogue, code) in a {
            guard let other = b[catalogue] else { continue }
            if other == code { agreeing += 1 } else { disagreeing += 1 }
        }
        switch (agreeing, disagreeing) {
        case (0, 0): return .missing
        case (_, 0): return .exact
        case (0, _): return .different
        default: return .conflicting
        }
    }
}
