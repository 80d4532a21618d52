import Foundation
import Hotels

/// A record's fields as they are compared, computed once per record.
public struct Normalised: Sendable, Hashable {
    public var name: NormalisedName?
    public var address: NormalisedAddress?
    /// The postal code field, or else the one the street line carried.
    public var postalCode: String?
    public var phone: NormalisedPhone?
    /// The cleaned position; nil when absent or dropped (``positionNote`` says why).
    public var position: GeoPoint?
    public var positionNote: PositionNote
    /// Upper case, trimmed.
    public var chainCode: String?
    /// Positive ratings only: 0 is what suppliers send for "unrated".
    public var rating: Double?
    /// Catalogue (lower case) to code (upper case).
    public var references: [String: String]
    public var logo: NormalisedLogo?
    /// The list's city, folded: which records a rare name token may pair.
    public var cityKey: String
    public var supplier: SupplierKey
}

/// The first stage: every record's fields cleaned and folded.
struct RecordNormaliser {
    let configuration: NormalisationConfiguration

    /// Every record's fields as compared, in order, and the identifiers too many of them carry. With `previous`, a
    /// record that it held with the same fields and the same cleaned position keeps its normalised fields, when the
    /// shared identifiers are the same too: a record's normalised fields depend on these alone.
    func normalise(_ records: [MatchRecord], reusing previous: PreparedRecords? = nil) -> (
        normalised: [Normalised], shared: SharedIdentifiers, reused: Int
    ) {
        let cityKeys = records.map(\.source.scope)
        let positions = PositionCleaner(configuration: configuration).clean(records, cityKeys: cityKeys)
        let shared = SharedIdentifiers(records, configuration: configuration)
        // Each record's place in `previous`, when it kept its fields and position and nothing shared changed.
        let reusedFrom: [Int?] =
            if let previous, let inputs = previous.inputs, previous.configuration.normalisation == configuration, previous.shared == shared
            {
                ParallelChunks.map(records.count, chunkSize: 16_384) { range in
                    range.map { index -> Int? in
                        guard let before = previous.index[records[index].key], inputs[before] == records[index],
                            previous.normalised[before].position == positions[index].position,
                            previous.normalised[before].positionNote == positions[index].note
                        else { return nil }
                        return before
                    }
                }
            } else { [] }
        let normalised = ParallelChunks.map(records.count, chunkSize: 4_096) { range in
            range.map { index in
                if let previous, !reusedFrom.isEmpty, let before = reusedFrom[index] { return previous.normalised[before] }
                var fields = normalise(records[index], cityKey: cityKeys[index], position: positions[index])
                shared.apply(to: &fields)
                return fields
            }
        }
        return (normalised, shared, reusedFrom.count { $0 != nil })
    }

    /// The digits phones are compared by, as far as blocking and counting need: the last 8.
    static func phoneKey(_ phone: NormalisedPhone) -> String {
        String(phone.digits.suffix(8))
    }

    private func normalise(_ record: MatchRecord, cityKey: String, position: (position: GeoPoint?, note: PositionNote)) -> Normalised {
        let (hotel, source) = (record.hotel, record.source)
        let cityWords = Set(
            [hotel.city ?? "", source.listCity].flatMap {
                TextFolding.words(TextFolding.fold($0, maxCharacters: 80), maxWords: 6)
            })
        let postalField = PostalCodes.normalise(hotel.postalCode)
        let address = NormalisedAddress(hotel.address, postalCode: postalField, cityWords: cityWords, configuration: configuration)
        let chain = hotel.chainCode.map(TextFolding.trimmed)?.uppercased()
        return Normalised(
            name: NormalisedName(hotel.name, cityWords: cityWords, configuration: configuration),
            address: address,
            postalCode: postalField ?? PostalCodes.normalise(address?.postalCode),
            phone: NormalisedPhone(hotel.phone),
            position: position.position,
            positionNote: position.note,
            chainCode: chain?.isEmpty == false ? chain : nil,
            rating: hotel.rating.flatMap { $0.isFinite && $0 > 0 ? $0 : nil },
            references: References.normalise(hotel.references),
            logo: NormalisedLogo(record.logoHash),
            cityKey: cityKey,
            supplier: source.supplier
        )
    }
}
