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
    var logo: AgreementLevel
    var logoBits: Int?
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
        case .logo: logo
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
    private let weights: WeightTable
    private let nameFrequencies = NameFrequencyCache()

    init(records: [Normalised], nameTokens: [[TokenID]], statistics: TokenStatistics, model: MatchModel, distinctiveBits: Double) {
        self.records = records
        self.nameTokens = nameTokens
        self.statistics = statistics
        self.model = model
        self.distinctiveBits = distinctiveBits
        weights = WeightTable(model)
    }

    func compare(_ i: Int, _ j: Int) -> PairComparison {
        // Field by field: binding `records[i]` whole would copy every field of it, for each pair.
        let address = FieldComparisons.address(records[i].address?.compared, records[j].address?.compared)
        let distance = FieldComparisons.distance(records[i].position, records[j].position)
        var name = NameComparison.compare(nameTokens[i], nameTokens[j], statistics: statistics, distinctiveBits: distinctiveBits)
        if name.level == .exact { name.frequency = nameFrequencies.frequency(of: name.agreeing, in: statistics) }
        let phone = FieldComparisons.phone(records[i].phone, records[j].phone)
        var reference = FieldComparisons.references(records[i].references, records[j].references)
        // A catalogue's mapping is wrong now and then (about 1 in 100 codes): a code
        // shared by two records whose names and phones both disagree is such a mistake
        // more often than one hotel renamed and renumbered, so it counts as conflicting.
        if reference == .exact && name.level == .different && phone == .different { reference = .conflicting }
        let logo = FieldComparisons.logo(records[i].logo, records[j].logo)
        return PairComparison(
            name: name,
            address: address.level,
            streetSimilarity: address.similarity,
            postalCode: FieldComparisons.postalCode(records[i].postalCode, records[j].postalCode),
            phone: phone,
            distance: distance.level,
            metres: distance.metres,
            chain: FieldComparisons.chain(records[i].chainCode, records[j].chainCode),
            rating: FieldComparisons.rating(records[i].rating, records[j].rating),
            logo: logo.level,
            logoBits: logo.bits,
            reference: reference,
            supplier: records[i].supplier == records[j].supplier ? .exact : .different
        )
    }

    /// The m and u behind a signal's weight; the name's exact level with its u adjusted for term frequency.
    func probabilities(_ signal: Signal, _ comparison: PairComparison) -> LevelProbabilities? {
        let level = comparison.level(signal)
        if signal == .name, level == .exact {
            return model.nameExactProbabilities(
                agreeingBits: comparison.name.frequency.bits, namesakes: comparison.name.frequency.namesakes)
        }
        return model.probabilities(signal, level)
    }

    /// What ``probabilities(_:_:)`` gives, as a weight, from the table when it can.
    func weight(_ signal: Signal, _ comparison: PairComparison) -> Double {
        let level = comparison.level(signal)
        if signal == .name, level == .exact { return probabilities(signal, comparison)?.weight ?? 0 }
        return weights[signal, level]
    }

    func score(_ comparison: PairComparison) -> Double {
        Signal.allCases.reduce(0) { $0 + weight($1, comparison) }
    }

    func score(_ i: Int, _ j: Int) -> Double {
        score(compare(i, j))
    }
}
