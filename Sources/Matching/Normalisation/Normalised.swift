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

    func normalise(_ records: [MatchRecord]) -> [Normalised] {
        let cityKeys = records.map(\.source.scope)
        let positions = PositionCleaner(configuration: configuration).clean(records, cityKeys: cityKeys)
        var normalised = ParallelChunks.map(records.count, chunkSize: 4_096) { range in
            range.map { index in
                normalise(records[index], cityKey: cityKeys[index], position: positions[index])
            }
        }
        dropSharedIdentifiers(&normalised)
        markBrandLogos(&normalised)
        return normalised
    }

    /// A supplier that shows one picture for two or more of its hotels is
    /// showing a chain's logo (or a placeholder): the same picture on two
    /// records then says they share a brand, not that they are one hotel.
    /// So is a picture more records carry than ``NormalisationConfiguration/sharedIdentifierRecords``.
    private func markBrandLogos(_ records: inout [Normalised]) {
        struct SupplierLogo: Hashable {
            let supplier: SupplierKey
            let hash: UInt64
        }
        var bySupplier: [SupplierLogo: Int] = [:]
        var everywhere: [UInt64: Int] = [:]
        for record in records {
            guard let logo = record.logo else { continue }
            bySupplier[SupplierLogo(supplier: record.supplier, hash: logo.hash), default: 0] += 1
            everywhere[logo.hash, default: 0] += 1
        }
        let brands = Set(bySupplier.filter { $0.value >= 2 }.map(\.key.hash))
            .union(everywhere.filter { $0.value > configuration.sharedIdentifierRecords }.keys)
        guard !brands.isEmpty else { return }
        for index in records.indices {
            if let hash = records[index].logo?.hash, brands.contains(hash) { records[index].logo?.isBrand = true }
        }
    }

    /// Phones and catalogue codes that too many records carry to be any one hotel's.
    private func dropSharedIdentifiers(_ records: inout [Normalised]) {
        let limit = configuration.sharedIdentifierRecords
        var phones: [String: Int] = [:]
        var references: [String: Int] = [:]
        for record in records {
            if let phone = record.phone { phones[Self.phoneKey(phone), default: 0] += 1 }
            for reference in record.references { references["\(reference.key) \(reference.value)", default: 0] += 1 }
        }
        for index in records.indices {
            if let phone = records[index].phone, phones[Self.phoneKey(phone), default: 0] > limit { records[index].phone = nil }
            records[index].references = records[index].references.filter { references["\($0.key) \($0.value)", default: 0] <= limit }
        }
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
