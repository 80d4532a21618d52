/// A supplier: one service profile at one endpoint.
///
/// Two lists of the same supplier (two cities, or a list fetched again) use
/// the same hotel codes, so the supplier, not the list, scopes a code.
public struct SupplierKey: Sendable, Hashable, Comparable, Codable {
    public var profile: String
    public var endpoint: String

    public init(profile: String, endpoint: String) {
        self.profile = profile
        self.endpoint = endpoint
    }

    public static func < (lhs: SupplierKey, rhs: SupplierKey) -> Bool {
        (lhs.profile, lhs.endpoint) < (rhs.profile, rhs.endpoint)
    }
}

/// A record's identity: its supplier and the supplier's hotel code.
///
/// Keys, not list ids, name records in decisions and results, because a key
/// survives the list being fetched again, and a later store keeps decisions
/// across fetches.
public struct RecordKey: Sendable, Hashable, Comparable, Codable {
    public var supplier: SupplierKey
    public var code: String

    public init(supplier: SupplierKey, code: String) {
        self.supplier = supplier
        self.code = code
    }

    public init(profile: String, endpoint: String, code: String) {
        self.init(supplier: SupplierKey(profile: profile, endpoint: endpoint), code: code)
    }

    public static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
        if lhs.supplier != rhs.supplier { return lhs.supplier < rhs.supplier }
        return lhs.code < rhs.code
    }
}

extension RecordKey: CustomStringConvertible {
    /// `profile/code`; the endpoint is left out because one profile rarely has two.
    public var description: String { "\(supplier.profile)/\(code)" }
}

/// Two different records, in key order, so that (a, b) and (b, a) are one pair.
public struct RecordPair: Sendable, Hashable, Comparable, Codable {
    /// The smaller key.
    public let first: RecordKey
    /// The larger key.
    public let second: RecordKey

    /// Nil when both keys are the same record: a record is not a pair with itself.
    public init?(_ a: RecordKey, _ b: RecordKey) {
        if a == b { return nil }
        (first, second) = a < b ? (a, b) : (b, a)
    }

    /// For two keys known to differ, as the indices of a sorted, deduplicated list of keys.
    init(distinct a: RecordKey, _ b: RecordKey) {
        (first, second) = a < b ? (a, b) : (b, a)
    }

    public static func < (lhs: RecordPair, rhs: RecordPair) -> Bool {
        if lhs.first != rhs.first { return lhs.first < rhs.first }
        return lhs.second < rhs.second
    }
}

extension RecordPair: CustomStringConvertible {
    public var description: String { "\(first) ~ \(second)" }
}

extension RecordPair {
    /// The same pair with each key's endpoint transformed (an endpoint as
    /// pages show it, say), in the same order: for output, never for look-ups.
    public func mappingEndpoints(_ transform: (String) -> String) -> RecordPair {
        func mapped(_ key: RecordKey) -> RecordKey {
            RecordKey(profile: key.supplier.profile, endpoint: transform(key.supplier.endpoint), code: key.code)
        }
        return RecordPair(ordered: mapped(first), mapped(second))
    }

    private init(ordered first: RecordKey, _ second: RecordKey) {
        (self.first, self.second) = (first, second)
    }
}

extension PairExplanation {
    /// The explanation with its pair's endpoints transformed, for output.
    public func mappingEndpoints(_ transform: (String) -> String) -> PairExplanation {
        var explanation = self
        explanation.pair = pair.mappingEndpoints(transform)
        return explanation
    }
}
