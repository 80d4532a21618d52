/// Groups suppliers' records of hotels into properties, one per physical hotel.
///
/// The stages, each its own type: normalisation (``Normalised``), term
/// frequencies (``TokenStatistics``), blocking (``CandidatePairs``), pair
/// scoring (``PairExplanation``), clustering (``Clustering``). The result
/// depends only on the records, the configuration and the decisions: the
/// same input in any order gives the same properties.
///
/// ```swift
/// let result = Matcher().match(records, decisions: decisions)
/// for property in result.properties where property.members.count > 1 { … }
/// ```
public struct Matcher: Sendable {
    public var configuration: MatchConfiguration

    public init(configuration: MatchConfiguration = .default) {
        self.configuration = configuration
    }

    /// Normalises the records and learns their term frequencies, for blocking, scoring and explaining.
    /// - Parameters:
    ///   - records: the records of one scope, in any order.
    ///   - previous: an earlier run prepared with `keepingInputs`: a record it held with the same fields and position
    ///     keeps its normalised fields, when the identifiers too many records share are the same (else each record is
    ///     normalised again). The result is the same either way.
    ///   - keepingInputs: keeps the records as given, so that a later run may reuse this one (about 0.3 KB a record).
    public func prepare(_ records: consuming [MatchRecord], reusing previous: PreparedRecords? = nil, keepingInputs: Bool = false)
        -> PreparedRecords
    {
        PreparedRecords(records, configuration: configuration, reusing: previous, keepingInputs: keepingInputs)
    }

    /// Every stage: properties, the pairs in the review band, and what blocking did.
    public func match(_ records: consuming [MatchRecord], decisions: [PairDecision] = []) -> MatchResult {
        prepare(records).match(decisions: decisions)
    }
}

/// What matching made of a set of records.
public struct MatchResult: Sendable {
    public var clustering: Clustering
    /// The candidate pairs at review level or above, in pair order.
    public var scoredPairs: [ScoredPair]
    /// The pairs in the review band whose records are in two properties,
    /// explained, in pair order: the joins a person may want to make. (Pairs
    /// in the band inside a property, joined through others, are in ``scoredPairs``.)
    public var reviewPairs: [PairExplanation]
    public var blocking: BlockingReport
    /// Keys given more than once; the record of the lowest list id was used.
    public var duplicateKeys: [RecordKey]
    /// Matched again from a previous run (``PreparedRecords/rematch(since:decisions:)``): the records whose pairs
    /// were found and scored again, the others' kept. Nil for a full match.
    public var recordsMatchedAgain: Int? = nil

    /// Every record in exactly one property, in order of their first member.
    public var properties: [Property] { clustering.properties }

    /// The property holding a record.
    public func property(of key: RecordKey) -> Property? { clustering.property(of: key) }
}

/// How much work blocking left for scoring.
public struct BlockingReport: Sendable, Hashable, Codable {
    public var records: Int
    public var candidatePairs: Int
    /// Candidate pairs per record (each pair counted for both records).
    public var pairsPerRecord: Double
    public var proposedBy: [BlockingRule: Int]

    /// The counts of the blocking stage's pairs.
    public init(_ candidates: CandidatePairs) {
        records = candidates.recordCount
        candidatePairs = candidates.count
        pairsPerRecord = candidates.perRecord
        proposedBy = candidates.proposedBy
    }
}
