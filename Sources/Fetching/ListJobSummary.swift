import Foundation
import Hotels
import Logos
import OfflineStore

/// What a ``ListJob`` run did: everything `hotels fetch` prints.
public struct ListJobSummary: Sendable {
    public var key: ListKey
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
    /// stored; ``ErrorMeaning`` says what it means.
    public var failure: (any Error)?
    /// `failure` as text, with every secret the client knows redacted.
    public var failureDescription: String?
    /// The page that failed: one after the last fetched.
    public var failedPage: Int? { failure == nil ? nil : pages + 1 }
    /// Record warnings by kind, every one counted.
    public var warnings: [String: Int] = [:]

    public init(key: ListKey) {
        self.key = key
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
