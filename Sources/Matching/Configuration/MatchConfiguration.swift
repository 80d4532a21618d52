/// Everything matching can be told, stage by stage; ``default`` is what
/// the rules were written for.
public struct MatchConfiguration: Sendable, Hashable, Codable {
    /// What each signal's agreement levels are worth.
    public var model: MatchModel
    /// Where a pair's score becomes a match, or worth a person's look.
    public var thresholds: DecisionThresholds
    public var normalisation: NormalisationConfiguration
    public var frequencies: FrequencyConfiguration
    public var blocking: BlockingConfiguration
    public var clustering: ClusteringConfiguration

    public init(
        model: MatchModel = .rules,
        thresholds: DecisionThresholds = DecisionThresholds(),
        normalisation: NormalisationConfiguration = NormalisationConfiguration(),
        frequencies: FrequencyConfiguration = FrequencyConfiguration(),
        blocking: BlockingConfiguration = BlockingConfiguration(),
        clustering: ClusteringConfiguration = ClusteringConfiguration()
    ) {
        self.model = model
        self.thresholds = thresholds
        self.normalisation = normalisation
        self.frequencies = frequencies
        self.blocking = blocking
        self.clustering = clustering
    }

    /// The rules model, thresholds of 8 and 3 bits, and every stage's defaults.
    public static let `default` = MatchConfiguration()
}

/// The two thresholds on a pair's score (the sum of its signals' weights, in bits).
public struct DecisionThresholds: Sendable, Hashable, Codable {
    /// At or above: the pair is a match. 8 bits is a likelihood ratio of 256 to 1.
    public var matchAtLeast: Double
    /// At or above, below ``matchAtLeast``: the pair is shown for review.
    public var reviewAtLeast: Double

    public init(matchAtLeast: Double = 8, reviewAtLeast: Double = 3) {
        self.matchAtLeast = matchAtLeast
        self.reviewAtLeast = min(reviewAtLeast, matchAtLeast)
    }

    /// Match, review or no match, for a pair's score.
    public func decision(for score: Double) -> MatchDecision {
        if score >= matchAtLeast { return .match }
        if score >= reviewAtLeast { return .review }
        return .noMatch
    }
}

/// How fields are cleaned before they are compared.
public struct NormalisationConfiguration: Sendable, Hashable, Codable {
    /// Names and addresses are cut to this many characters before folding:
    /// no hotel is called by more, and a 5,000-character field costs no more than this.
    public var maxCharacters = 256
    /// Tokens kept per name or address.
    public var maxTokens = 32
    /// A position farther than this from its city's centre is wrong (after trying lat/lon swapped).
    public var maxMetresFromCentre = 50_000.0
    /// The same position (to about a metre) on more records than this is a
    /// placeholder, such as the city's centre given for every hotel: dropped.
    public var placeholderPositionRecords = 12
    /// A phone number or catalogue code on more records than this belongs
    /// to no one hotel (a chain's central reservations, a placeholder) and
    /// is dropped: one hotel has a record at each supplier and seldom more.
    public var sharedIdentifierRecords = 8

    public init() {}
}

/// How name token frequencies are learned from the records.
public struct FrequencyConfiguration: Sendable, Hashable, Codable {
    /// Records assumed seen before these, in which no token occurred: a
    /// handful of records cannot show that a word is common, so rarity is
    /// judged against at least this many.
    public var priorRecords = 1000.0
    /// Positions of a token's records closer than this to one already seen count as the same place.
    public var placeRadiusMetres = 1000.0
    /// A token at up to this many places keeps its whole agreement weight; at
    /// more it is a brand or generic word, and its weight falls in proportion.
    public var placesBeforeSpread = 2
    /// A token worth less than this many bits is not distinctive: agreeing on
    /// it alone is weak, and a name may lack it without being another hotel's.
    public var distinctiveBits = 2.0

    public init() {}
}

/// Which pairs are scored at all.
public struct BlockingConfiguration: Sendable, Hashable, Codable {
    /// Grid cells' side; a record meets the records of its cell and the 8
    /// around it whose names share a token with its own.
    public var cellMetres = 600.0
    /// Records this near are paired whatever their names: suppliers' positions
    /// of one hotel are mostly this close, and a name may be spelt past recognition.
    /// Farther neighbours are paired only when their names share a token, or
    /// two tokens one typo apart: location alone never makes a match, so a
    /// pair whose names share nothing cannot score one unless its phone or
    /// catalogue code agrees, and those rules propose it.
    public var nearMetres = 150.0
    /// In a dense neighbourhood a record meets at most this many of the nearest others.
    public var maxNeighbours = 250
    /// A name token carried by at most this many records of a city pairs them.
    public var rareTokenMaxRecords = 40
    /// A phone number or catalogue code on more records than this is a
    /// switchboard or a placeholder, and pairs none of them.
    public var maxSharedKeyRecords = 30

    public init() {}
}

/// How scored pairs become properties.
public struct ClusteringConfiguration: Sendable, Hashable, Codable {
    /// Two groups are not joined when any pair across them scores below this:
    /// a strong disagreement (A≈B, B≈C, but A and C are different hotels).
    public var cannotLinkBelow = -6.0
    /// A link at or above this, with phone or catalogue agreeing, is strict.
    public var strictLinkAtLeast = 16.0

    public init() {}
}
