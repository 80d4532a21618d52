import Foundation

/// What one run made of one scope: stored in place of the scope's last run, in one transaction.
///
/// A run over a city matched before mostly makes what is stored already. So
/// a store writes only the rows that differ (``changes(storedProperties:storedReviews:reviewDigests:)``):
/// each property and each pair to review is known by a digest of what the
/// store keeps of it, and a stored row whose digest the run made again stays
/// as it is. What the store holds afterwards is what a write of every row would leave.
public struct ScopeMatch: Sendable {
    public let scope: String
    public let properties: [CatalogueProperty]
    /// Each property's members as record keys, in the same order as ``properties``: what identities follow.
    public let memberKeys: [[RecordKey]]
    public let retired: [RetiredPropertyID]
    public let reviews: [ReviewPair]
    public let matchedAt: Date
    /// Each property's digest, in the order of ``properties``: its fields, when its id was first given, and its
    /// members as the store keeps them (key, list and name). Not when it was matched, which changes every run.
    public let propertyDigests: [UInt64]
    /// What the run was made from and what it said, stored with the rows; nil: the next run matches the scope whatever its input.
    public let stamp: MatchStamp?

    public init(
        scope: String, properties: [CatalogueProperty], memberKeys: [[RecordKey]], retired: [RetiredPropertyID],
        reviews: [ReviewPair], matchedAt: Date, stamp: MatchStamp? = nil
    ) {
        self.scope = scope
        self.properties = properties
        self.memberKeys = memberKeys
        self.retired = retired
        self.reviews = reviews
        self.matchedAt = matchedAt
        self.stamp = stamp
        propertyDigests = Self.digests(properties, memberKeys: memberKeys, scope: scope)
    }

    private static func digests(_ properties: [CatalogueProperty], memberKeys: [[RecordKey]], scope: String) -> [UInt64] {
        ParallelChunks.map(properties.count, chunkSize: 4_096) { range in
            range.map { index in
                let property = properties[index]
                var hash = StableHash()
                hash.add(property.id)
                hash.add(scope)
                hash.add(property.name)
                hash.add(property.city)
                hash.add(property.latitude)
                hash.add(property.longitude)
                hash.add(property.confidence.rawValue)
                hash.add(property.createdAt.timeIntervalSince1970)
                hash.add(Int64(property.members.count))
                for (member, key) in zip(property.members, memberKeys[index]) {
                    hash.add(key)
                    hash.add(member.list)
                    hash.add(member.name)
                }
                return hash.value
            }
        }
    }

    /// Each pair to review's digest: of its JSON as stored (``ReviewPair/json(_:)``).
    public static func reviewDigests(_ json: [String]) -> [UInt64] {
        json.map(StableHash.of)
    }

    /// The rows to delete and to insert so that the store holds this run's scope.
    /// - Parameters:
    ///   - storedProperties: the scope's stored properties' ids and digests (nil for a row stored without one).
    ///   - storedReviews: the digests of the scope's stored pairs to review (a store deletes rows stored without one, whatever the run).
    ///   - reviewDigests: ``reviewDigests(_:)`` of this run's pairs, each pair once (a run explains each pair once).
    public func changes(storedProperties: [(id: String, digest: UInt64?)], storedReviews: [UInt64], reviewDigests: [UInt64])
        -> CatalogueChanges
    {
        let digests = propertyDigests
        let made = Dictionary(zip(properties.map(\.id), digests), uniquingKeysWith: { first, _ in first })
        let stored = Dictionary(storedProperties.map { ($0.id, $0.digest) }, uniquingKeysWith: { first, _ in first })
        let storedReviewSet = Set(storedReviews)
        let madeReviewSet = Set(reviewDigests)
        return CatalogueChanges(
            deletedProperties: storedProperties.filter { made[$0.id] == nil || made[$0.id] != $0.digest }.map(\.id),
            insertedProperties: properties.indices.filter { (stored[properties[$0].id] ?? nil) != digests[$0] },
            deletedReviews: storedReviews.filter { !madeReviewSet.contains($0) },
            insertedReviews: reviewDigests.indices.filter { !storedReviewSet.contains(reviewDigests[$0]) })
    }
}

/// What a run changed of a scope's stored catalogue: the rows a store deletes, then inserts.
public struct CatalogueChanges: Sendable, Hashable {
    /// Stored properties deleted with their members: gone, or made otherwise by this run.
    public var deletedProperties: [String]
    /// This run's properties inserted with their members, as indices into ``ScopeMatch/properties``.
    public var insertedProperties: [Int]
    /// The digests of stored pairs to review that this run did not make again.
    public var deletedReviews: [UInt64]
    /// This run's pairs to review that were not stored, as indices into ``ScopeMatch/reviews``.
    public var insertedReviews: [Int]

    public init(deletedProperties: [String], insertedProperties: [Int], deletedReviews: [UInt64], insertedReviews: [Int]) {
        self.deletedProperties = deletedProperties
        self.insertedProperties = insertedProperties
        self.deletedReviews = deletedReviews
        self.insertedReviews = insertedReviews
    }
}

extension ReviewPair {
    /// The pair's keys as one text whose byte order is the pair's order (``RecordPair``'s `<`), as shown: how both
    /// stores list pairs of one score, whichever run wrote each. A field ends with U+001F, below any character of a key.
    public var orderKey: String {
        let (first, second) = (explanation.pair.first, explanation.pair.second)
        return [
            first.supplier.profile, first.supplier.endpoint, first.code, second.supplier.profile, second.supplier.endpoint, second.code,
        ]
        .map { $0 + "\u{1F}" }.joined()
    }
}
