import Crypto
import Foundation

/// What a scope's match is made from: its records as matching reads them,
/// people's decisions about pairs of them, the configuration and the
/// revision of the rules.
///
/// A run's result depends on these and on the last run's ids alone. So a
/// scope whose fingerprint its last run stored (``MatchStamp``), over the
/// rows that run stored, would be matched into what is stored, and need not
/// be matched again. It is a SHA-256: supplier data cannot make two inputs
/// share one and leave a changed city unmatched.
public struct ScopeFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Raised by any change to matching that makes other properties, tiers or
    /// pairs to review from the same records, so that every scope is matched
    /// again once by the new HotelKit (a test, `RulesRevisionTests`, pins
    /// what matching makes of a fixed world to each revision). What it cannot
    /// see (a Foundation whose text folding changed with the toolchain) needs
    /// `hotels match --full`.
    public static let revision: Int64 = 3

    /// The digest, as 64 hexadecimal digits.
    public let description: String

    /// The fingerprint of a scope's records, in the order read (another order is another fingerprint, and the scope
    /// is then matched again, with the same result), the decisions about pairs of them (others are left out), and the
    /// configuration.
    public init(records: [MatchRecord], decisions: [PairDecision], configuration: MatchConfiguration) {
        var sha = SHA256()
        var bytes = FingerprintBytes()
        bytes.add(Self.revision)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A configuration's values are numbers and flags: with infinities and NaN spelled out, it always encodes.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        bytes.add((try? encoder.encode(configuration)).map { String(decoding: $0, as: UTF8.self) })
        bytes.add(Int64(records.count))
        for record in records {
            bytes.add(record)
            if bytes.count >= 1 << 16 { bytes.flush(into: &sha) }
        }
        // The decided records the scope holds, found through the few decided keys: not a set of a city's keys.
        let decided = Set(decisions.flatMap { [$0.pair.first, $0.pair.second] })
        let held = decided.isEmpty ? [] : Set(records.lazy.map(\.key).filter(decided.contains))
        let relevant = decisions.filter { held.contains($0.pair.first) && held.contains($0.pair.second) }
        bytes.add(Int64(relevant.count))
        for decision in relevant.sorted(by: { $0.pair < $1.pair }) {
            for key in [decision.pair.first, decision.pair.second] { bytes.add(key) }
            bytes.add(decision.verdict.rawValue)
        }
        bytes.flush(into: &sha)
        description = sha.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// A scope's last run's fingerprint and the summary it gave (the run's own JSON), stored with its rows.
public struct MatchStamp: Sendable, Hashable {
    public var fingerprint: String
    public var summary: String

    public init(fingerprint: String, summary: String) {
        self.fingerprint = fingerprint
        self.summary = summary
    }
}

/// Values as ``UnambiguousBytes``, gathered before they are hashed.
private struct FingerprintBytes: UnambiguousBytes {
    private var buffer: [UInt8] = []

    var count: Int { buffer.count }

    mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
    }

    mutating func flush(into sha: inout SHA256) {
        sha.update(data: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Every field matching reads, and what a property shows of a member.
    mutating func add(_ record: MatchRecord) {
        add(record.source.listID)
        add(record.source.profile)
        add(record.source.endpoint)
        add(record.source.listCity)
        let hotel = record.hotel
        for text in [hotel.code, hotel.name, hotel.address, hotel.phone, hotel.chainCode, hotel.postalCode, hotel.city, hotel.countryCode] {
            add(text)
        }
        for number in [hotel.latitude, hotel.longitude, hotel.rating] { add(number) }
        let references = (hotel.references ?? [:]).sorted { $0.key < $1.key }
        add(hotel.references == nil ? nil : "references")
        add(Int64(references.count))
        for (catalogue, code) in references {
            add(catalogue)
            add(code)
        }
        add(record.logoHash)
    }
}
