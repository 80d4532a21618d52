import Foundation

/// One logo in the disk cache, as an index of the cache records it.
public struct ImageIndexEntry: Sendable, Equatable {
    public var url: String
    /// The filter chain's description; "" for none.
    public var filter: String
    public var file: String
    public var bytes: Int
    public var lastAccess: Date
    public var etag: String?
    public var lastModified: String?
    /// Cache-Control max-age, in seconds, and when the logo was stored or last revalidated.
    public var maxAge: Double?
    public var storedAt: Date?
    /// The processed logo, when these bytes are new to the cache: an index
    /// that serves other machines (a shared store) keeps them; one beside a
    /// local disk cache (SQLite's) leaves them to the cache's file.
    public var data: [UInt8]?

    public init(
        url: String, filter: String, file: String, bytes: Int, lastAccess: Date = Date(), etag: String? = nil, lastModified: String? = nil,
        maxAge: Double? = nil, storedAt: Date? = nil, data: [UInt8]? = nil
    ) {
        self.url = url
        self.filter = filter
        self.file = file
        self.bytes = bytes
        self.lastAccess = lastAccess
        self.etag = etag
        self.lastModified = lastModified
        self.maxAge = maxAge
        self.storedAt = storedAt
        self.data = data
    }
}

/// Keeps a record of what the disk cache holds, so a store can report and
/// tidy it (the offline store's `images` table is one).
///
/// Asynchronous, so an index across a network (a shared database) can
/// implement it; the logo pipeline writes its notes in order, off the
/// logos' path, and never waits for one.
public protocol ImageIndex: Sendable {
    /// Records a logo written to, or read from, the disk cache.
    func noteImage(_ entry: ImageIndexEntry) async throws
}

/// An index that keeps each logo's bytes itself, beside its validators: a
/// shared store. A machine whose own disk cache is empty serves the logo
/// from it, or revalidates it with a 304, instead of downloading it again.
public protocol SharedImageIndex: ImageIndex {
    /// The processed logo of `url` under the filter chain `filter` (its
    /// description) with its validators; nil when the index has no bytes for it.
    func indexedLogo(url: String, filter: String) async throws -> IndexedLogo?
}

/// A logo as a shared index keeps it: what a disk cache would hold.
public struct IndexedLogo: Sendable, Equatable {
    /// The filtered PNG, or with no filter the original's bytes.
    public var data: [UInt8]
    /// Its validators, max-age and when it was stored or last revalidated.
    public var metadata: CachedImageMetadata

    public init(data: [UInt8], metadata: CachedImageMetadata) {
        self.data = data
        self.metadata = metadata
    }
}
