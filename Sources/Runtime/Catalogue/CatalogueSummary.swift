import Foundation
import Matching

/// What a run made: records, suppliers, properties and pairs to review.
public struct CatalogueSummary: Sendable, Equatable, Codable, CustomStringConvertible {
    public var records = 0
    public var suppliers = 0
    public var properties = 0
    /// Properties listed by 2 or more suppliers.
    public var multiSupplierProperties = 0
    /// Properties by confidence tier.
    public var strict = 0
    public var medium = 0
    public var low = 0
    public var reviewPairs = 0
    public var scopes = 0
    /// Pairs of records blocking left to score: the work a run did, which grows with the records, not their square.
    public var candidatePairs = 0
    /// Rows the store wrote and deleted: only those that differ from what was stored (``/Matching/ScopeMatch``).
    /// A property whose fields or members changed is deleted and written again.
    public var propertiesWritten = 0
    public var propertiesDeleted = 0
    public var reviewPairsWritten = 0
    /// Scopes whose input was what their last run was made from (``/Matching/ScopeFingerprint``): not matched
    /// again, their counts the last run's.
    public var scopesUnchanged = 0
    /// With `--logos`: logos loaded and hashed, and those that could not be had or decoded (the first, why).
    public var logosHashed = 0
    public var logosFailed = 0
    public var firstLogoFailure: String?
    /// Cities matched again from their last run kept in memory (``MatchMemory``): the records whose pairs were found and
    /// scored again, the others' kept. Nil when every city was matched in full, or left as it was.
    public var recordsMatchedAgain: Int?
    private var supplierKeys: Set<SupplierKey> = []

    public init() {}

    init(records: [PreparedRecord], properties: [CatalogueProperty], reviews: Int, candidatePairs: Int) {
        self.records = records.count
        self.candidatePairs = candidatePairs
        supplierKeys = Set(records.map(\.source.supplier))
        suppliers = supplierKeys.count
        self.properties = properties.count
        multiSupplierProperties = properties.count(where: { $0.supplierCount >= 2 })
        strict = properties.count(where: { $0.confidence == .strict })
        medium = properties.count(where: { $0.confidence == .medium })
        low = properties.count(where: { $0.confidence == .low })
        reviewPairs = reviews
        scopes = 1
    }

    mutating func add(_ other: CatalogueSummary) {
        records += other.records
        supplierKeys.formUnion(other.supplierKeys)
        suppliers = supplierKeys.count
        properties += other.properties
        multiSupplierProperties += other.multiSupplierProperties
        strict += other.strict
        medium += other.medium
        low += other.low
        reviewPairs += other.reviewPairs
        scopes += other.scopes
        candidatePairs += other.candidatePairs
        propertiesWritten += other.propertiesWritten
        propertiesDeleted += other.propertiesDeleted
        reviewPairsWritten += other.reviewPairsWritten
        scopesUnchanged += other.scopesUnchanged
        logosHashed += other.logosHashed
        logosFailed += other.logosFailed
        firstLogoFailure = firstLogoFailure ?? other.firstLogoFailure
        if let again = other.recordsMatchedAgain { recordsMatchedAgain = (recordsMatchedAgain ?? 0) + again }
    }

    private enum CodingKeys: String, CodingKey {
        case records, suppliers, properties, multiSupplierProperties, strict, medium, low, reviewPairs, scopes, candidatePairs
        case propertiesWritten, propertiesDeleted, reviewPairsWritten, scopesUnchanged
        case logosHashed, logosFailed, firstLogoFailure, recordsMatchedAgain
    }

    /// "12,480 records from 5 suppliers → 3,210 properties (2,874 with 2 or more suppliers); 41 pairs to review".
    public var description: String {
        "\(grouped(records)) record\(records == 1 ? "" : "s") from \(grouped(suppliers)) supplier\(suppliers == 1 ? "" : "s")"
            + " → \(grouped(properties)) propert\(properties == 1 ? "y" : "ies")"
            + " (\(grouped(multiSupplierProperties)) with 2 or more suppliers); "
            + "\(grouped(reviewPairs)) pair\(reviewPairs == 1 ? "" : "s") to review"
            + (scopesUnchanged == 0
                ? "" : "; \(grouped(scopesUnchanged)) cit\(scopesUnchanged == 1 ? "y" : "ies") unchanged since the last match")
            + (recordsMatchedAgain.map { "; \(grouped($0)) record\($0 == 1 ? "" : "s") matched again, the others' pairs kept" } ?? "")
            + (logosHashed + logosFailed == 0
                ? ""
                : "; \(grouped(logosHashed)) logo\(logosHashed == 1 ? "" : "s") hashed"
                    + (logosFailed == 0 ? "" : ", \(grouped(logosFailed)) could not be had"))
    }

    private func grouped(_ number: Int) -> String {
        let digits = String(number)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }
}

extension CatalogueSummary {
    /// What a scope's stamp keeps of its run's summary: the counts, and the suppliers, which a run over several
    /// scopes counts once.
    private struct Stamped: Codable {
        var counts: CatalogueSummary
        var suppliers: [SupplierKey]
    }

    /// The summary as the scope's stamp keeps it (``/Matching/MatchStamp``): what the run found, not what it wrote.
    func stamped() throws -> String {
        var counts = self
        (counts.propertiesWritten, counts.propertiesDeleted, counts.reviewPairsWritten) = (0, 0, 0)
        (counts.logosHashed, counts.logosFailed, counts.firstLogoFailure) = (0, 0, nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(Stamped(counts: counts, suppliers: supplierKeys.sorted())), as: UTF8.self)
    }

    /// A scope's summary from its stamp, as a run that left the scope as it was gives it; nil for a stamp it cannot read.
    init?(unchangedSince stamp: String) {
        guard let stamped = try? JSONDecoder().decode(Stamped.self, from: Data(stamp.utf8)) else { return nil }
        self = stamped.counts
        supplierKeys = Set(stamped.suppliers)
        suppliers = supplierKeys.count
        scopesUnchanged = 1
    }
}
