import Foundation
import Hotels
import Logos
import OfflineStore
import SOAP

/// What a ``ListJob`` run did: everything `hotels fetch` prints.
public struct ListJobSummary: Sendable {
    public var key: ListKey
    /// Whether the run added, changed or moved rows, or replaced the list: what its city's properties follow.
    public var changedRows: Bool {
        added > 0 || merge.map { $0.inserted + $0.updated + $0.moved > 0 || $0.replaced } ?? false
    }

    /// Pages fetched in this run.
    public var pages = 0
    /// Rows in the list now, cached and fetched.
    public var hotels = 0
    /// Rows that came from the network in this run.
    public var fetched = 0
    /// Rows shown from the cache before the network was asked.
    public var cached = 0
    /// Rows new to the list in this run: page 1's new rows and every "load more" page's.
    public var added = 0
    /// What merging page 1 did; nil when no page 1 was fetched.
    public var merge: MergeResult?
    /// Why the list ended (a `Pager.End` raw value, or `maxPages`); nil after a failure or offline.
    public var end: String?
    public var logos = LogoCounts()
    /// Wall time of the run.
    public var seconds = 0.0
    /// The cached list served instead of the network, with its banner's data.
    public var offline: OfflineList?
    /// The error that stopped the run after the pages before it were
    /// stored; ``/Failures/ErrorMeaning`` says what it means.
    public var failure: (any Error)?
    /// `failure` as text, with every secret the client knows redacted.
    public var failureDescription: String?
    /// The page that failed: one after the last fetched.
    public var failedPage: Int? { failure == nil ? nil : pages + 1 }
    /// Record warnings by kind, every one counted.
    public var warnings: [String: Int] = [:]
    /// Where the sink put the list (``ListSink/location``).
    public var out: String?

    public init(key: ListKey) {
        self.key = key
    }
}

/// The summary as `hotels fetch --json` prints it: the list's city (and
/// position), the counts, the error with its whole SOAP fault, the offline banner.
extension ListJobSummary: Encodable {
    private enum Key: String, CodingKey {
        case city, near, pages, hotels, fetched, cached, added, merge, end, logos, seconds, out, error, fault, offline, warnings
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(key.city, forKey: .city)
        try container.encodeIfPresent(key.area?.description, forKey: .near)
        try container.encode(pages, forKey: .pages)
        try container.encode(hotels, forKey: .hotels)
        try container.encode(fetched, forKey: .fetched)
        try container.encode(cached, forKey: .cached)
        try container.encode(added, forKey: .added)
        try container.encodeIfPresent(merge, forKey: .merge)
        try container.encodeIfPresent(end, forKey: .end)
        try container.encode(logos, forKey: .logos)
        try container.encode(seconds, forKey: .seconds)
        try container.encodeIfPresent(out, forKey: .out)
        try container.encodeIfPresent(failureDescription, forKey: .error)
        try container.encodeIfPresent(failure as? SOAPFault, forKey: .fault)
        try container.encodeIfPresent(offline?.banner(), forKey: .offline)
        try container.encode(warnings, forKey: .warnings)
    }
}

/// The summary in one line, as `hotels fetch` prints it.
extension ListJobSummary: CustomStringConvertible {
    public var description: String {
        let into = out.map { " into \($0)" } ?? ""
        if let offline {
            return offline.banner() + into + (logos.saved + logos.failed > 0 ? ", \(logos.saved) logos from the cache" : "")
        }
        let rate = seconds > 0 ? Double(fetched) / seconds : 0
        // Page 1's merge counts only its own rows: the run's new rows are said first, so no reader takes the difference for losses.
        let merged =
            merge.map {
                " (page 1 merged: \($0.inserted) new, \($0.updated) updated, \($0.moved) moved" + ($0.replaced ? ", list replaced" : "")
                    + ")"
            } ?? ""
        return "fetched \(fetched) hotels in \(pages) pages (\(String(format: "%.0f", rate))/s, end: \(end ?? "error")): "
            + "\(added) new to the list\(merged); \(hotels) in the list"
            + (logos.saved + logos.failed > 0
                ? ", \(logos.saved) logos (\(logos.fromCache) cached, \(logos.revalidated) revalidated, \(logos.failed) failed)" : "")
            + into
    }
}

/// How a run's logos went.
public struct LogoCounts: Sendable, Codable, Equatable {
    /// Logos handed to the sink.
    public var saved = 0
    /// Of those, served by the memory or disk cache.
    public var fromCache = 0
    /// Of those, cached logos the server confirmed with 304 Not Modified.
    public var revalidated = 0
    public var failed = 0
    /// Bytes of the logos handed to the sink.
    public var bytes = 0

    public init() {}

    mutating func count(_ logo: Logo, bytes: Int) {
        saved += 1
        self.bytes += bytes
        if logo.source == .disk || logo.source == .memory { fromCache += 1 }
        if logo.source == .revalidated { revalidated += 1 }
    }

    mutating func add(_ other: LogoCounts) {
        saved += other.saved
        fromCache += other.fromCache
        revalidated += other.revalidated
        failed += other.failed
        bytes += other.bytes
    }
}
