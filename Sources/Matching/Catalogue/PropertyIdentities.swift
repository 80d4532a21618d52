import Foundation

/// A property as the last run stored it: what the next run's ids follow.
public struct PropertyIdentity: Sendable, Hashable {
    public var id: String
    public var members: [RecordKey]
    public var createdAt: Date

    public init(id: String, members: [RecordKey], createdAt: Date) {
        self.id = id
        self.members = members
        self.createdAt = createdAt
    }
}

extension PropertyIdentity {
    /// The last run's identities as both stores read them: a row per member, in
    /// property id order. Each supplier's profile and endpoint are kept once, not
    /// once per member: a city of 400,000 members would otherwise hold as many
    /// copies of a few endpoints.
    public struct Rows: Sendable {
        public private(set) var identities: [PropertyIdentity] = []
        private var suppliers: Set<SupplierKey> = []

        public init() {}

        public mutating func add(id: String, createdAt: Double, profile: String, endpoint: String, code: String) {
            let supplier = suppliers.insert(SupplierKey(profile: profile, endpoint: endpoint)).memberAfterInsert
            let key = RecordKey(supplier: supplier, code: code)
            if identities.last?.id == id {
                identities[identities.count - 1].members.append(key)
            } else {
                identities.append(PropertyIdentity(id: id, members: [key], createdAt: Date(timeIntervalSince1970: createdAt)))
            }
        }
    }
}

/// The stable-id stage: a run's properties take the ids of the last run's.
///
/// - Each stored id goes to the new property holding most of its members
///   (on a split, the larger part keeps it; a tie goes to the property whose
///   first member comes first).
/// - A property given several ids (a merge) keeps the oldest; the others are
///   retired with it as their successor.
/// - A property given none gets a new id, made from its scope and first
///   member, and never one in use or retired.
///
/// So an id lasts as long as any of its members does.
public struct PropertyIdentities: Sendable {
    /// Each property's id, in the order the properties were given.
    public var ids: [String]
    /// When each id was first given.
    public var createdAt: [Date]
    /// The stored ids no property keeps.
    public var retired: [RetiredPropertyID]

    /// - Parameters:
    ///   - properties: each new property's members.
    ///   - scope: the scope the properties belong to; a new id is made from it and the first member.
    ///   - previous: the scope's properties as last stored.
    ///   - taken: every id in use elsewhere or retired: never given anew.
    ///   - now: when an id given now was created.
    public init(assigning properties: [[RecordKey]], scope: String, previous: [PropertyIdentity], taken: Set<String>, now: Date) {
        var owner: [RecordKey: Int] = [:]
        for (index, identity) in previous.enumerated() {
            for member in identity.members { owner[member] = index }
        }
        // overlap[previous][new]: how many of a stored property's members each new one holds.
        var overlap = [[Int: Int]](repeating: [:], count: previous.count)
        for (index, members) in properties.enumerated() {
            for member in members { if let stored = owner[member] { overlap[stored][index, default: 0] += 1 } }
        }
        var claims = [[Int]](repeating: [], count: properties.count)
        var unclaimed: [Int] = []
        for (stored, counts) in overlap.enumerated() {
            guard let winner = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }) else {
                unclaimed.append(stored)
                continue
            }
            claims[winner.key].append(stored)
        }

        var used = taken.union(previous.map(\.id))
        var ids: [String] = []
        var createdAt: [Date] = []
        var retired = unclaimed.map { RetiredPropertyID(id: previous[$0].id, successor: nil) }
        for (index, members) in properties.enumerated() {
            let oldestFirst = claims[index].sorted { a, b in
                previous[a].createdAt != previous[b].createdAt
                    ? previous[a].createdAt < previous[b].createdAt : previous[a].id < previous[b].id
            }
            if let kept = oldestFirst.first {
                ids.append(previous[kept].id)
                createdAt.append(previous[kept].createdAt)
                retired += oldestFirst.dropFirst().map { RetiredPropertyID(id: previous[$0].id, successor: previous[kept].id) }
            } else {
                let id = Self.newID(scope: scope, first: members.min(), avoiding: used)
                used.insert(id)
                ids.append(id)
                createdAt.append(now)
            }
        }
        self.ids = ids
        self.createdAt = createdAt
        self.retired = retired.sorted { $0.id < $1.id }
    }

    /// `P` and 12 hexadecimal digits of a hash of the scope and first member:
    /// the same records give the same id on any machine, and a clash with an
    /// id in use moves to the next attempt.
    static func newID(scope: String, first: RecordKey?, avoiding used: Set<String>) -> String {
        let seed = [scope, first?.supplier.profile ?? "", first?.supplier.endpoint ?? "", first?.code ?? ""].joined(separator: "\u{1F}")
        var attempt = 0
        while true {
            let hash = StableHash.of(seed + "\u{1F}\(attempt)")
            let id = "P" + String(format: "%012llX", hash & 0xFFFF_FFFF_FFFF)
            if !used.contains(id) { return id }
            attempt += 1
        }
    }
}
