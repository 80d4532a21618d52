/// Every signal's level for one pair of records: what the score is summed from.
struct PairComparison: Sendable {
    var name: NameComparison
    var address: AgreementLevel
    var streetSimilarity: Double
    var postalCode: AgreementLevel
    var phone: AgreementLevel
    var distance: AgreementLevel
    var metres: Double?
    var chain: AgreementLevel
    var rating: AgreementLevel
    var reference: AgreementLevel
    var supplier: AgreementLevel

    func level(_ signal: Signal) -> AgreementLevel {
        switch signal {
        case .reference: reference
        case .name: name.level
        case .address: address
        case .postalCode: postalCode
        case .phone: phone
        case .distance: distance
        case .chain: chain
        case .rating: rating
        case .supplier: supplier
        }
    }
}

/// The scoring stage: a pair's levels, each level's weight from the
/// ``MatchModel``, and their sum. Missing values weigh nothing.
struct PairScorer: Sendable {
    let records: [Normalised]
    let nameTokens: [[TokenID]]
    let statistics: TokenStatistics
    let model: MatchModel
    let distinctiveBits: Double

    func compare(_ i: Int, _ j: Int) -> PairComparison {
        let (a, b) = (records[i], records[j])
        let address = FieldComparisons.address(a.address, b.address)
        let distance = FieldComparisons.distance(a.position, b.position)
        var name = NameComparison.compare(nameTokens[i], nameTokens[j], statistics: statistics, distinctiveBits: distinctiveBits)
        if name.level == .exact { name.frequency = statistics.nameFrequency(name.agreeing) }
        return PairComparison(
            name: name,
            address: address.level,
            streetSimilarity: address.similarity,
            postalCode: FieldComparisons.postalCode(a.postalCode, b.postalCode),
            phone: FieldComparisons.phone(a.phone, b.phone),
            distance: distance.level,
            metres: distance.metres,
            chain: FieldComparisons.chain(a.chainCode, b.chainCode),
            rating: FieldComparisons.rating(a.rating, b.rating),
            reference: FieldComparisons.references(a.references, b.references),
            supplier: a.supplier == b.supplier ? .exact : .different
        )
    }

    /// The m and u behind a signal's weight; the name's exact level with its u adjusted for term frequency.
    func probabilities(_ signal: Signal, _ comparison: PairComparison) -> LevelProbabilities? {
        let level = comparison.level(signal)
        if signal == .name, level == .exact {
            return model.nameExactProbabilities(agreeingBits: comparison.name.frequency.bits, namesakes: comparison.name.frequency.namesakes)
        }
        return model.probabilities(signal, level)
    }

    func weight(_ signal: Signal, _ comparison: PairComparison) -> Double {
        probabilities(signal, comparison)?.weight ?? 0
    }

    func score(_ comparison: PairComparison) -> Double {
        Signal.allCases.reduce(0) { $0 + weight($1, comparison) }
    }

    func score(_ i: Int, _ j: Int) -> Double {
        score(compare(i, j))
    }
}
