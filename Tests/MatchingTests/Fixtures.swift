import Hotels
import Matching
import Testing

/// Records as the tests write them: a supplier by number, a hotel's fields by name.
enum Fixtures {
    /// Paris, where the examples are.
    static let city = "Paris"

    static func source(supplier: Int, list: Int64? = nil, city: String = Fixtures.city) -> MatchSource {
        MatchSource(
            listID: list ?? Int64(supplier), profile: "supplier\(supplier)", endpoint: "https://supplier\(supplier).example/soap",
            listCity: city)
    }

    static func record(
        _ supplier: Int, _ code: String, name: String?, address: String? = nil, at position: (Double, Double)? = nil,
        phone: String? = nil, postalCode: String? = nil, chain: String? = nil, rating: Double? = nil,
        references: [String: String]? = nil, logo: String? = nil, logoHash: UInt64? = nil, city: String = Fixtures.city, list: Int64? = nil
    ) -> MatchRecord {
        let hotel = Hotel(
            code: code, name: name, address: address, latitude: position?.0, longitude: position?.1, logoURL: logo,
            phone: phone, chainCode: chain, rating: rating, postalCode: postalCode, city: city, countryCode: "FR",
            references: references)
        return MatchRecord(hotel: hotel, source: source(supplier: supplier, list: list, city: city), logoHash: logoHash)
    }

    /// The explanation of two records' pair.
    static func explain(_ prepared: PreparedRecords, _ a: RecordKey, _ b: RecordKey) throws -> PairExplanation {
        let pair = try #require(RecordPair(a, b))
        return try #require(prepared.explain(pair))
    }

    static func key(_ supplier: Int, _ code: String) -> RecordKey {
        source(supplier: supplier).supplier.code(code)
    }
}

extension SupplierKey {
    func code(_ code: String) -> RecordKey { RecordKey(supplier: self, code: code) }
}

extension MatchResult {
    /// Whether the two records ended in one property.
    func together(_ a: RecordKey, _ b: RecordKey) -> Bool {
        guard let property = property(of: a) else { return false }
        return property.members.contains(b)
    }
}
