import Foundation
import Hotels

/// One supplier's record in a stored property, as `hotels properties` prints it.
public struct CatalogueMember: Sendable, Hashable, Codable {
    /// The list the record was read from (the lowest list id when several lists hold it).
    public var list: Int64
    public var profile: String
    /// As pages and reports show it: no credential in its user part or query.
    public var endpoint: String
    public var code: String
    public var name: String?

    public init(list: Int64, profile: String, endpoint: String, code: String, name: String?) {
        self.list = list
        self.profile = profile
        self.endpoint = endpoint
        self.code = code
        self.name = name
    }

    /// `LIST:CODE`, as `hotels match explain` and `decide` take it.
    public var reference: String { "\(list):\(code)" }
}

/// A property as the catalogue keeps it: a stable id, what it is called and
/// where, how sure the grouping is, and its members.
///
/// ``jsonLine`` is how `hotels properties --json` and `/api/properties` write it.
public struct CatalogueProperty: Sendable, Hashable {
    /// `P` and 12 hexadecimal digits; kept across runs while any member remains (``PropertyIdentities``).
    public var id: String
    /// The scope (``MatchSource/scope``) of the run that made it.
    public var scope: String
    /// The name most of its members give.
    public var name: String?
    /// The city its members give, else the list's.
    public var city: String?
    /// The middle of its members' cleaned positions (the median of each coordinate).
    public var latitude: Double?
    public var longitude: Double?
    public var confidence: ConfidenceTier
    /// In key order.
    public var members: [CatalogueMember]
    /// When the id was first given.
    public var createdAt: Date

    public init(
        id: String, scope: String, name: String?, city: String?, latitude: Double?, longitude: Double?,
        confidence: ConfidenceTier, members: [CatalogueMember], createdAt: Date
    ) {
        self.id = id
        self.scope = scope
        self.name = name
        self.city = city
        self.latitude = latitude
        self.longitude = longitude
        self.confidence = confidence
        self.members = members
        self.createdAt = createdAt
    }

    /// How many suppliers (profile and endpoint) list it.
    public var supplierCount: Int { Set(members.map { "\($0.profile)\u{1F}\($0.endpoint)" }).count }
}

/// A pair in the review band that clustering left in two properties: what
/// `hotels match review` lists and a person decides.
public struct ReviewPair: Sendable, Hashable, Codable {
    public var scope: String
    public var first: CatalogueMember
    public var second: CatalogueMember
    public var score: Double
    /// Every signal, as `hotels match explain` prints it.
    public var explanation: PairExplanation

    public init(scope: String, first: CatalogueMember, second: CatalogueMember, score: Double, explanation: PairExplanation) {
        self.scope = scope
        self.first = first
        self.second = second
        self.score = score
        self.explanation = explanation
    }
}

extension ReviewPair {
    /// Each pair as the JSON both stores keep (the same text for the same pair), in order, encoded over the cores: a large city has tens of
    /// thousands, and an explanation's JSON takes about 50 µs to encode.
    public static func json(_ reviews: [ReviewPair]) throws -> [String] {
        let encoded = ParallelChunks.map(reviews.count, chunkSize: 1_024) { range -> [Result<String, any Error>] in
            let encoder = JSONEncoder()
            // Sorted: a keyed container's order is otherwise a dictionary's, new each time, and the digest of the same pair would differ.
            encoder.outputFormatting = .sortedKeys
            return reviews[range].map { review in Result { String(decoding: try encoder.encode(review), as: UTF8.self) } }
        }
        return try encoded.map { try $0.get() }
    }
}

/// An id that no longer names a property: merged into another, or every member gone.
public struct RetiredPropertyID: Sendable, Hashable, Codable {
    public var id: String
    /// The property it was merged into; nil when its members are gone or went to properties holding other ids.
    public var successor: String?

    public init(id: String, successor: String?) {
        self.id = id
        self.successor = successor
    }
}

/// Which stored properties to read.
public struct PropertyQuery: Sendable, Hashable {
    /// Only properties of this city's scope (folded as ``MatchSource/scope(ofCity:listID:)`` folds it).
    public var city: String?
    /// Only properties listed by at least this many suppliers.
    public var minimumSuppliers: Int
    /// At most this many, in id order; nil for all.
    public var limit: Int?
    /// Only ids after this one: keyset paging.
    public var after: String?

    public init(city: String? = nil, minimumSuppliers: Int = 1, limit: Int? = nil, after: String? = nil) {
        self.city = city
        self.minimumSuppliers = minimumSuppliers
        self.limit = limit
        self.after = after
    }

    /// ``city``'s scope, if one is asked for.
    public var scope: String? { city.map { MatchSource.scope(ofCity: $0, listID: 0) } }
}

extension CatalogueProperty {
    /// One JSON line, newline included, keys in this order:
    /// `{"id": "P…", "name": …, "city": …, "latitude": …, "longitude": …, "confidence": "strict",
    /// "members": [{"list": 3, "profile": …, "endpoint": …, "code": …, "name": …}]}`; a missing value is `null`.
    public var jsonLine: String {
        var output: [UInt8] = []
        func key(_ name: String, first: Bool = false) {
            output.append(contentsOf: ((first ? "" : ",") + "\"\(name)\":").utf8)
        }
        output.append(UInt8(ascii: "{"))
        key("id", first: true)
        HotelJSONLines.appendString(id, to: &output)
        key("name")
        HotelJSONLines.appendString(name, to: &output)
        key("city")
        HotelJSONLines.appendString(city, to: &output)
        key("latitude")
        HotelJSONLines.appendValue(latitude.map(HotelFieldSpec.Value.real) ?? .null, to: &output)
        key("longitude")
        HotelJSONLines.appendValue(longitude.map(HotelFieldSpec.Value.real) ?? .null, to: &output)
        key("confidence")
        HotelJSONLines.appendString(confidence.rawValue, to: &output)
        key("members")
        output.append(UInt8(ascii: "["))
        for (index, member) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "{"))
            key("list", first: true)
            HotelJSONLines.appendValue(.integer(member.list), to: &output)
            key("profile")
            HotelJSONLines.appendString(member.profile, to: &output)
            key("endpoint")
            HotelJSONLines.appendString(member.endpoint, to: &output)
            key("code")
            HotelJSONLines.appendString(member.code, to: &output)
            key("name")
            HotelJSONLines.appendString(member.name, to: &output)
            output.append(UInt8(ascii: "}"))
        }
        output.append(contentsOf: "]}\n".utf8)
        return String(decoding: output, as: UTF8.self)
    }
}
