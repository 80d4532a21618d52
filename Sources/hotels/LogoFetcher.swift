import Foundation
import Hotels
import Imaging
import OfflineStore
import SOAP
import Synchronization

/// Downloads logos through the disk cache, revalidating with the server:
/// a fresh entry (within its max-age) is used as is; a stale one is asked
/// about with If-None-Match / If-Modified-Since, and a 304 keeps it; offline,
/// any cached entry is used.
struct LogoFetcher: Sendable {
    var client: HotelServiceClient
    var chain: FilterChain
    var diskCache: DiskImageCache?
    var store: HotelStore?
    /// Use the cache only: the network is not tried.
    var offline = false

    enum Source { case network, cache, revalidated }

    /// The logo's bytes as saved (filtered PNG, or the original with no filter), and where they came from.
    func fetch(_ url: String) async throws -> ([UInt8], Source) {
        let key = DiskImageCache.key(url: url, filter: chain)
        let cached = diskCache?.data(for: key)
        let metadata = diskCache?.metadata(for: key)
        if let cached, offline || metadata?.isFresh() == true {
            note(url, key: key, bytes: cached, metadata: metadata)
            return (cached, .cache)
        }
        var headers: [(name: String, value: String)] = []
        if cached != nil, let metadata {
            if let etag = metadata.etag { headers.append(("If-None-Match", etag)) }
            if let lastModified = metadata.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        }
        let head: HTTPResponseHead, body: [UInt8]
        do {
            (head, body) = try await client.download(url, headers: headers)
        } catch let error as TransportError where cached != nil && error.isOffline {
            // Stale beats nothing when the service cannot be reached.
            return (cached ?? [], .cache)
        }
        let maxAge = CachedImageMetadata.maxAge(cacheControl: head.headers["cache-control"])
        if head.status == 304, let cached {
            var renewed = metadata ?? CachedImageMetadata(url: url)
            renewed.storedAt = Date()
            renewed.maxAge = maxAge ?? renewed.maxAge
            if let etag = head.headers["etag"] { renewed.etag = etag }
            try? diskCache?.storeMetadata(renewed, for: key)
            note(url, key: key, bytes: cached, metadata: renewed)
            return (cached, .revalidated)
        }
        guard head.status == 200 else { throw TransportError.httpStatus(head.status, snippet: "") }
        let bytes = chain.filters.isEmpty ? body : try ImagePipeline(filter: chain).process(body).encoded
        let stored = CachedImageMetadata(url: url, etag: head.headers["etag"], lastModified: head.headers["last-modified"], maxAge: maxAge)
        try? diskCache?.store(bytes, for: key, metadata: stored)
        note(url, key: key, bytes: bytes, metadata: stored)
        return (bytes, .network)
    }

    /// Keeps the store's image index in step with the disk cache.
    private func note(_ url: String, key: String, bytes: [UInt8], metadata: CachedImageMetadata?) {
        guard let store, let diskCache else { return }
        try? store.noteImage(ImageIndexEntry(url: url, filter: chain.description, file: diskCache.file(for: key), bytes: bytes.count,
                                             etag: metadata?.etag, lastModified: metadata?.lastModified))
    }

    /// Saves each hotel's logo into `folder` as CODE.png|jpg, `concurrency` at a time.
    func save(_ hotels: [Hotel], into folder: URL, concurrency: Int) async -> LogoSummary {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let work = hotels.compactMap { hotel in hotel.logoURL.map { (hotel.code, $0) } }
        let summary = LogoTally()
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < work.count else { return }
                let (code, url) = work[next]
                next += 1
                group.addTask {
                    do {
                        let (bytes, source) = try await fetch(url)
                        let ext = chain.filters.isEmpty && (try? ImageFormat.detect(bytes)) == .jpeg ? "jpg" : "png"
                        try Data(bytes).write(to: folder.appendingPathComponent("\(code).\(ext)"), options: .atomic)
                        summary.state.withLock {
                            $0.saved += 1
                            $0.bytes += bytes.count
                            if source == .cache { $0.fromCache += 1 }
                            if source == .revalidated { $0.revalidated += 1 }
                        }
                    } catch {
                        summary.state.withLock { $0.failed += 1 }
                        Diagnostics.warning("logo of \(code) (\(url)): \(error)")
                    }
                }
            }
            for _ in 0..<concurrency { startNext() }
            while await group.next() != nil { startNext() }
        }
        return summary.state.withLock { $0 }
    }
}

/// Counts shared by the download tasks.
final class LogoTally: Sendable {
    let state = Mutex(LogoSummary())
}

struct LogoSummary: Sendable, Codable {
    var saved = 0
    var fromCache = 0
    /// Cached logos the server confirmed with 304 Not Modified.
    var revalidated = 0
    var failed = 0
    var bytes = 0

    mutating func add(_ other: LogoSummary) {
        saved += other.saved
        fromCache += other.fromCache
        revalidated += other.revalidated
        failed += other.failed
        bytes += other.bytes
    }
}
