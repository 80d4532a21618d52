/// The phones, catalogue codes and logos that too many records carry to tell one hotel by, found from every
/// record's own fields before any is normalised: a record's normalised fields then depend on it and on these alone.
struct SharedIdentifiers: Sendable, Equatable {
    /// Phone keys (``RecordNormaliser/phoneKey(_:)``) more records carry than
    /// ``NormalisationConfiguration/sharedIdentifierRecords``: a chain's switchboard, or a placeholder.
    let phones: Set<String>
    /// Catalogue and code, as "catalogue CODE", that more records carry than that.
    let references: Set<String>
    /// Logos that one supplier shows for two or more of its hotels, or that more records carry than that: a chain's
    /// logo, or a placeholder. The same picture on two records then says they share a brand, not that they are one hotel.
    let brandLogos: Set<UInt64>

    init(_ records: [MatchRecord], configuration: NormalisationConfiguration) {
        struct SupplierLogo: Hashable {
            let supplier: SupplierKey
            let hash: UInt64
        }
        // Phones parsed on every core, counted by chunk: no array of a city's phones is kept.
        var phones: [String: Int] = [:]
        let counted = ParallelChunks.map(records.count, chunkSize: 16_384) { range in
            var counts: [String: Int] = [:]
            for index in range {
                if let phone = NormalisedPhone(records[index].hotel.phone) { counts[RecordNormaliser.phoneKey(phone), default: 0] += 1 }
            }
            return [counts]
        }
        for counts in counted { phones.merge(counts, uniquingKeysWith: +) }
        var references: [String: Int] = [:]
        var logosBySupplier: [SupplierLogo: Int] = [:]
        var logos: [UInt64: Int] = [:]
        for record in records {
            if record.hotel.references?.isEmpty == false {
                for reference in References.normalise(record.hotel.references) { references[Self.key(reference), default: 0] += 1 }
            }
            if let hash = record.logoHash {
                logosBySupplier[SupplierLogo(supplier: record.source.supplier, hash: hash), default: 0] += 1
                logos[hash, default: 0] += 1
            }
        }
        let limit = configuration.sharedIdentifierRecords
        self.phones = Set(phones.filter { $0.value > limit }.keys)
        self.references = Set(references.filter { $0.value > limit }.keys)
        brandLogos = Set(logosBySupplier.filter { $0.value >= 2 }.map(\.key.hash)).union(logos.filter { $0.value > limit }.keys)
    }

    private static func key(_ reference: (key: String, value: String)) -> String { "\(reference.key) \(reference.value)" }

    /// Drops the shared phone and catalogue codes from a record's fields, and marks a brand's logo.
    func apply(to record: inout Normalised) {
        if !phones.isEmpty, let phone = record.phone, phones.contains(RecordNormaliser.phoneKey(phone)) { record.phone = nil }
        if !references.isEmpty { record.references = record.references.filter { !references.contains(Self.key($0)) } }
        if !brandLogos.isEmpty, let hash = record.logo?.hash, brandLogos.contains(hash) { record.logo?.isBrand = true }
    }
}
