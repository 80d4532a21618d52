import Foundation

/// Where the catalogue lives: properties with their members, the pairs to
/// review, people's decisions, and the ids no longer in use. Both stores
/// implement it (SQLite and PostgreSQL), beside the lists they match.
public protocol PropertyStorage: Sendable {
    /// The scope's properties as the last run stored them, for their ids.
    func propertyIdentities(scope: String) async throws -> [PropertyIdentity]

    /// Every id in use or retired: a new property never takes one.
    func takenPropertyIDs() async throws -> Set<String>

    /// When the scope's last run was made from `fingerprint`, and the scope's stored rows are still that run's (as
    /// many properties and pairs to review as it wrote, each with its digest, and no other writer since):
    /// marks the scope matched at `date`, as a run that writes no row does, and returns the summary the run stored
    /// (``MatchStamp``). Nil otherwise: the scope is to be matched.
    func summaryIfUnchanged(scope: String, fingerprint: String, at date: Date) async throws -> String?

    /// Every scope that has stored properties.
    func propertyScopes() async throws -> [String]

    /// Replaces the scope's properties, members and review pairs with the
    /// run's, and retires its retired ids, in one transaction. Only rows that
    /// differ are written (``ScopeMatch/changes(storedProperties:storedReviews:reviewDigests:)``),
    /// found against the rows stored when the transaction runs.
    /// - Returns: the rows deleted and inserted.
    @discardableResult
    func replaceProperties(_ match: ScopeMatch) async throws -> CatalogueChanges

    /// Stored properties, in id order.
    func properties(_ query: PropertyQuery) async throws -> [CatalogueProperty]

    /// The property with this id, or nil.
    func property(id: String) async throws -> CatalogueProperty?

    /// The property a record is a member of, or nil.
    func property(holding key: RecordKey) async throws -> CatalogueProperty?

    /// What an id that no longer names a property became.
    func retiredPropertyID(_ id: String) async throws -> RetiredPropertyID?

    /// The pairs to review, best score first; only one scope's when given.
    func reviewPairs(scope: String?) async throws -> [ReviewPair]

    /// Every decision people made, in pair order.
    func decisions() async throws -> [PairDecision]

    /// Records a decision, replacing an earlier one about the same pair.
    func recordDecision(_ decision: PairDecision, at: Date) async throws

    /// The perceptual hashes kept with the logo index's entries for the logos
    /// of these lists' hotels, by logo URL.
    func logoHashes(lists: [Int64]) async throws -> [String: UInt64]

    /// Keeps each hash with its logo's index entries (every filter chain's).
    /// A logo the index has no entry for keeps none: it is hashed again
    /// once it is fetched.
    func storeLogoHashes(_ hashes: [String: UInt64]) async throws
}
