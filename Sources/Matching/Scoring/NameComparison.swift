/// Two names compared token by token, each token weighed by what the records taught.
struct NameComparison: Sendable {
    var level: AgreementLevel
    /// The summed agreement weights of the tokens both names have: whether they share anything distinctive.
    var agreeingBits: Double
    /// For an exact level, how common a name of all those tokens is
    /// (``TokenStatistics/nameFrequency(_:)``): the term frequency adjustment.
    var frequency = TokenStatistics.NameFrequency(bits: 0, namesakes: 0)
    /// Weighted Dice similarity by rarity, 0…1, for display.
    var similarity: Double
    var agreeing: [TokenID]
    var onlyFirst: [TokenID]
    var onlySecond: [TokenID]

    static let missing = NameComparison(level: .missing, agreeingBits: 0, similarity: 0, agreeing: [], onlyFirst: [], onlySecond: [])

    init(level: AgreementLevel, agreeingBits: Double, similarity: Double, agreeing: [TokenID], onlyFirst: [TokenID], onlySecond: [TokenID])
    {
        self.level = level
        self.agreeingBits = agreeingBits
        self.similarity = similarity
        self.agreeing = agreeing
        self.onlyFirst = onlyFirst
        self.onlySecond = onlySecond
    }

    /// Tokens agree when equal, when one typo apart, or when one is two of the
    /// other's written together. A token absent from the other name counts
    /// against only when it is distinctive (``FrequencyConfiguration/distinctiveBits``).
    static func compare(_ first: [TokenID], _ second: [TokenID], statistics: TokenStatistics, distinctiveBits: Double) -> NameComparison {
        guard !first.isEmpty, !second.isEmpty else { return .missing }
        var matchedFirst = [Bool](repeating: false, count: first.count)
        var matchedSecond = [Bool](repeating: false, count: second.count)
        var agreeingBits = 0.0
        var matchedRarity = 0.0
        var agreeing: [TokenID] = []

        /// A nil token adds weight without a token to the agreeing list (the second half of a remainder).
        func agree(_ token: TokenID?, bits: Double, rarity: Double) {
            if let token { agreeing.append(token) }
            agreeingBits += bits
            matchedRarity += rarity
        }

        for (i, token) in first.enumerated() {
            if let j = second.firstIndex(of: token) {
                matchedFirst[i] = true
                matchedSecond[j] = true
                agree(token, bits: statistics.agreement[Int(token)], rarity: 2 * statistics.rarity[Int(token)])
            }
        }
        for (i, token) in first.enumerated() where !matchedFirst[i] && !statistics.containsDigit[Int(token)] {
            let j = second.indices.first { j in
                !matchedSecond[j] && !statistics.containsDigit[Int(second[j])]
                    && TokenSimilarity.isOneTypoApart(statistics.characters[Int(token)], statistics.characters[Int(second[j])])
            }
            guard let j else { continue }
            matchedFirst[i] = true
            matchedSecond[j] = true
            let (a, b) = (Int(token), Int(second[j]))
            // The misspelt form is rarer than the right one; the right one's weight is the honest one.
            agree(
                statistics.rarity[a] <= statistics.rarity[b] ? token : second[j],
                bits: min(statistics.agreement[a], statistics.agreement[b]), rarity: statistics.rarity[a] + statistics.rarity[b])
        }
        joinWords(first, &matchedFirst, second, &matchedSecond, statistics: statistics, agree: agree)
        joinWords(second, &matchedSecond, first, &matchedFirst, statistics: statistics, agree: agree)
        joinRemainders(first, &matchedFirst, second, &matchedSecond, statistics: statistics, agree: agree)

        let onlyFirst = first.indices.filter { !matchedFirst[$0] }.map { first[$0] }
        let onlySecond = second.indices.filter { !matchedSecond[$0] }.map { second[$0] }
        let totalRarity = first.reduce(0) { $0 + statistics.rarity[Int($1)] } + second.reduce(0) { $0 + statistics.rarity[Int($1)] }
        let similarity = totalRarity > 0 ? min(1, matchedRarity / totalRarity) : 0

        let extraFirst = onlyFirst.contains { statistics.rarity[Int($0)] >= distinctiveBits }
        let extraSecond = onlySecond.contains { statistics.rarity[Int($0)] >= distinctiveBits }
        let level: AgreementLevel
        if agreeing.isEmpty {
            level = .different
        } else if !extraFirst && !extraSecond {
            level = .exact
        } else if agreeingBits < distinctiveBits {
            level = .weak
        } else if extraFirst && extraSecond {
            level = .partial
        } else {
            level = .contained
        }
        return NameComparison(
            level: level, agreeingBits: agreeingBits, similarity: similarity,
            agreeing: agreeing, onlyFirst: onlyFirst, onlySecond: onlySecond)
    }

    /// One token of `words` written as two neighbouring tokens of `other`.
    private static func joinWords(
        _ words: [TokenID], _ matchedWords: inout [Bool], _ other: [TokenID], _ matchedOther: inout [Bool],
        statistics: TokenStatistics, agree: (TokenID?, Double, Double) -> Void
    ) {
        guard other.count > 1 else { return }
        for (i, token) in words.enumerated() where !matchedWords[i] {
            let word = statistics.strings[Int(token)]
            for j in 0..<(other.count - 1) where !matchedOther[j] && !matchedOther[j + 1] {
                let (a, b) = (Int(other[j]), Int(other[j + 1]))
                guard TokenSimilarity.isJoined(word, statistics.strings[a], statistics.strings[b]) else { continue }
                matchedWords[i] = true
                matchedOther[j] = true
                matchedOther[j + 1] = true
                // The two words, not the joined form: their records say how common the name is.
                agree(other[j], statistics.agreement[a], statistics.rarity[Int(token)] / 2 + statistics.rarity[a])
                agree(other[j + 1], statistics.agreement[b], statistics.rarity[Int(token)] / 2 + statistics.rarity[b])
                break
            }
        }
    }

    /// What is left of both names, joined, is the same letters, split
    /// elsewhere ("champ selysees", "champs elysees"), or one typo apart.
    private static func joinRemainders(
        _ first: [TokenID], _ matchedFirst: inout [Bool], _ second: [TokenID], _ matchedSecond: inout [Bool],
        statistics: TokenStatistics, agree: (TokenID?, Double, Double) -> Void
    ) {
        let restFirst = first.indices.filter { !matchedFirst[$0] }
        let restSecond = second.indices.filter { !matchedSecond[$0] }
        guard restFirst.count + restSecond.count > 2, !restFirst.isEmpty, !restSecond.isEmpty else { return }
        // Most names that reach here are two hotels' names: their lengths tell without joining.
        let lengthFirst = restFirst.reduce(0) { $0 + statistics.characters[Int(first[$1])].count }
        let lengthSecond = restSecond.reduce(0) { $0 + statistics.characters[Int(second[$1])].count }
        guard abs(lengthFirst - lengthSecond) <= 1 else { return }
        let joinedFirst = restFirst.map { statistics.strings[Int(first[$0])] }.joined()
        let joinedSecond = restSecond.map { statistics.strings[Int(second[$0])] }.joined()
        guard
            joinedFirst == joinedSecond
                || TokenSimilarity.isOneTypoApart(Array(joinedFirst.unicodeScalars), Array(joinedSecond.unicodeScalars))
        else { return }
        for index in restFirst {
            matchedFirst[index] = true
            let token = Int(first[index])
            agree(first[index], statistics.agreement[token], statistics.rarity[token])
        }
        for index in restSecond {
            matchedSecond[index] = true
            agree(nil, 0, statistics.rarity[Int(second[index])])
        }
    }
}
