import Failures
import HTTP
import Imaging

/// Where a logo came from.
public enum LogoSource: String, Sendable, Codable {
    /// The memory cache: no work at all.
    case memory
    /// The disk cache, within its max-age (or offline, whatever its age).
    case disk
    /// The disk cache, after the server said 304 Not Modified.
    case revalidated
    /// A network transfer (this request's, or one it shared).
    case network
}

/// A loaded logo.
public struct Logo: Sendable {
    /// Decoded and filtered; nil when only the bytes were asked for.
    public var image: RGBAImage?
    /// The logo as the disk cache keeps it: the filtered PNG, or with no
    /// filter the original's bytes. Nil when served from memory.
    public var data: [UInt8]?
    public var source: LogoSource
    /// Bytes this request paid a network transfer for; nil for cache hits
    /// and for requests that joined another's transfer.
    public var downloadedBytes: Int?
}

/// Whether a request may touch the network.
public enum LogoCachePolicy: Sendable {
    /// Fresh cached copies are used, stale ones revalidated; offline, a stale copy beats nothing.
    case revalidate
    /// The caches only: a miss fails with ``LogoError/notCached(_:)``.
    case cacheOnly
}

/// Why a logo could not be had, beyond the network's and the codecs' own errors.
public enum LogoError: Error, Sendable, Equatable, CustomStringConvertible {
    case notCached(String)
    case cancelled

    public var description: String {
        switch self {
        case .notCached(let url): "\(url) is not cached"
        case .cancelled: "cancelled"
        }
    }
}

/// What a pipeline tells its observer, from any thread: every transfer that
/// starts ends exactly once.
public enum LogoPipelineEvent: Sendable, Equatable {
    case transferStarted(url: String)
    case transferEnded(url: String, TransferOutcome)
}

extension LogoError: MeaningfulError {
    /// Unavailable (69): the logo, not the list.
    public var meaning: ErrorMeaning { ErrorMeaning(kind: .unavailable, status: .unavailable) }
}
