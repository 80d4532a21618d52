import Hotels

/// Where a record was read: one list of one supplier.
public struct MatchSource: Sendable, Hashable, Codable {
    /// The list's id in the store.
    public var listID: Int64
    /// The service profile's name.
    public var profile: String
    /// The endpoint the list was fetched from.
    public var endpoint: String
    /// The city the list was searched for. Records of lists of one city are
    /// checked against that city's centre, and a rare name token only pairs
    /// records of one city.
    public var listCity: String

    public init(listID: Int64, profile: String, endpoint: String, listCity: String) {
        self.listID = listID
        self.profile = profile
        self.endpoint = endpoint
        self.listCity = listCity
    }

    /// The profile and endpoint together.
    public var supplier: SupplierKey { SupplierKey(profile: profile, endpoint: endpoint) }

    /// The catalogue's unit of matching: the list's city, folded, so that
    /// "Paris" and "PARIS" lists are matched together; "list N" for a list
    /// with no city. Properties, runs and match jobs are per scope.
    public var scope: String { MatchSource.scope(ofCity: listCity, listID: listID) }

    /// The scope of lists of `city`; `listID` names a list with no city.
    public static func scope(ofCity city: String, listID: Int64) -> String {
        let folded = TextFolding.fold(city, maxCharacters: 80).trimmingCharacters(in: .whitespaces)
        return folded.isEmpty ? "list \(listID)" : folded
    }
}

/// A hotel as one supplier lists it: what matching takes in.
public struct MatchRecord: Sendable, Hashable, Codable {
    public var hotel: Hotel
    public var source: MatchSource
    /// The perceptual hash of the hotel's logo (`Imaging`'s `PerceptualHash`), when it has been fetched and hashed.
    public var logoHash: UInt64?

    public init(hotel: Hotel, source: MatchSource, logoHash: UInt64? = nil) {
        self.hotel = hotel
        self.source = source
        self.logoHash = logoHash
    }

    /// The supplier and the hotel's code.
    public var key: RecordKey { RecordKey(supplier: source.supplier, code: hotel.code) }
}

/// A record once normalised: what a property shows of it (its code, name
/// and city) and where it was read. Its other fields are compared in its
/// ``Normalised`` form; a city of 400,000 records would otherwise keep every
/// hotel whole a second time.
public struct PreparedRecord: Sendable, Hashable {
    public var source: MatchSource
    public var code: String
    public var name: String?
    public var city: String?

    init(_ record: MatchRecord) {
        source = record.source
        code = record.hotel.code
        name = record.hotel.name
        city = record.hotel.city
    }

    /// The supplier and the hotel's code.
    public var key: RecordKey { RecordKey(supplier: source.supplier, code: code) }
}
