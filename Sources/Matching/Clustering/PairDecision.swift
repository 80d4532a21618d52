/// A person's decision about a pair, which the scores never override.
public struct PairDecision: Sendable, Hashable, Codable {
    /// What the person decided.
    public enum Verdict: String, Sendable, Hashable, Codable {
        /// Always one property.
        case same
        /// Never one property.
        case different
    }

    public var pair: RecordPair
    public var verdict: Verdict

    public init(pair: RecordPair, verdict: Verdict) {
        self.pair = pair
        self.verdict = verdict
    }

    /// Nil when both keys are the same record.
    public init?(_ a: RecordKey, _ b: RecordKey, _ verdict: Verdict) {
        guard let pair = RecordPair(a, b) else { return nil }
        self.init(pair: pair, verdict: verdict)
    }
}

/// A scored pair, as clustering and reports use it.
public struct ScoredPair: Sendable, Hashable, Codable {
    public var pair: RecordPair
    /// The sum of the signals' weights, in bits.
    public var score: Double
    public var decision: MatchDecision
    /// The phone or a catalogue code agrees: an identifier, not only a likeness.
    public var identifierAgrees: Bool
    /// A catalogue gives the two records different codes, and their phones
    /// do not agree: it holds them for two hotels. (When the phone agrees,
    /// two identifiers disagree, and the score decides.)
    public var catalogueDisagrees: Bool

    public init(pair: RecordPair, score: Double, decision: MatchDecision, identifierAgrees: Bool, catalogueDisagrees: Bool = false) {
        self.pair = pair
        self.score = score
        self.decision = decision
        self.identifierAgrees = identifierAgrees
        self.catalogueDisagrees = catalogueDisagrees
    }
}
