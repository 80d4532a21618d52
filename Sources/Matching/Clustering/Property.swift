/// How sure the grouping of a property is.
public enum ConfidenceTier: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every link well above the match threshold with the phone or a
    /// catalogue code agreeing (or decided by a person), every pair of
    /// members at least worth a review, and no pair in the review band
    /// leading out of the property. A lone record is strict when nothing
    /// in the review band points at it.
    case strict
    /// Every link a match; not all of them strict.
    case medium
    /// A pair of members scores below the review threshold, or a pair in
    /// the review band leads out: a person should look.
    case low
}

/// Why two records of a property were joined.
public enum LinkReason: String, Sendable, Hashable, Codable {
    /// Their score is a match.
    case score
    /// A person decided they are the same.
    case decision
}

/// One join that made a property: the pair whose two groups it joined.
public struct PropertyLink: Sendable, Hashable, Codable {
    public var pair: RecordPair
    /// The pair's score; nil when the join was a decision about a pair that was not scored.
    public var score: Double?
    public var reason: LinkReason
    public var identifierAgrees: Bool
}

/// One physical hotel: the records of every supplier that list it.
public struct Property: Sendable, Hashable, Codable {
    /// In key order.
    public var members: [RecordKey]
    public var tier: ConfidenceTier
    /// The joins that made the property, in the order they were made (a spanning tree of its members).
    public var links: [PropertyLink]
}

/// A match-level pair that was not joined, and why.
public struct RefusedLink: Sendable, Hashable, Codable {
    /// What forbade the join.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// A person decided a pair across the two groups is different.
        case decision
        /// A pair across the two groups scores below ``ClusteringConfiguration/cannotLinkBelow``.
        case disagreement
        /// A catalogue gives a pair across the two groups two codes.
        case catalogue
    }

    public var pair: ScoredPair
    /// The pair across the two groups that forbade the join.
    public var across: RecordPair
    /// Its score; nil for a decision about a pair that was not scored.
    public var acrossScore: Double?
    public var reason: Reason
}

/// What clustering made of the records.
public struct Clustering: Sendable, Hashable, Codable {
    /// Every record in exactly one property; properties in the order of their first member.
    public var properties: [Property]
    public var refusedLinks: [RefusedLink]
    /// A `different` decision about two records that `same` decisions put
    /// in one property: the `same` decisions win, and this is reported.
    public var conflictingDecisions: [PairDecision]

    /// The property holding a record, if the record was clustered. A
    /// linear search: for many look-ups, use ``propertyIndex()``.
    public func property(of key: RecordKey) -> Property? {
        properties.first { $0.members.contains(key) }
    }

    /// Each record's property, as an index into ``properties``.
    public func propertyIndex() -> [RecordKey: Int] {
        var index: [RecordKey: Int] = [:]
        for (position, property) in properties.enumerated() {
            for member in property.members { index[member] = position }
        }
        return index
    }
}
