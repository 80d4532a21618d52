import Dispatch
import Foundation
import Imaging
import Synchronization

/// What a row's logo operation produced.
public enum LogoResult: Sendable {
    /// `downloadedBytes` is set for the one row that paid for a network
    /// transfer; rows that shared it, or were served from a cache, have nil.
    case image(RGBAImage, downloadedBytes: Int?)
    case failed(String)
    case cancelled
}

/// Where a logo operation is, for traces and timelines.
public enum LogoStage: Sendable {
    case downloading
    case decoding
}

/// Makes one logo operation per row: memory cache, then disk cache, then
/// one shared network transfer per URL, then decode and filter on a bounded
/// stage of its own, then both caches.
public final class LogoLoader: Sendable {
    public let pipeline: ImagePipeline
    public let memoryCache: MemoryImageCache
    public let diskCache: DiskImageCache?
    /// Decoding runs here, so a burst of downloads cannot fan out into
    /// unbounded decodes.
    public let decodeQueue: WorkQueue
    private let transfers: SharedTransfers

    /// - Parameters:
    ///   - onTransfer: Told on any thread when a network transfer for a URL
    ///     starts (`nil`) and when it ends (its byte count, or -1 if it
    ///     failed or was abandoned).
    public init(transport: any LogoTransport, pipeline: ImagePipeline, memoryCache: MemoryImageCache = MemoryImageCache(),
                diskCache: DiskImageCache? = nil, decodeQueue: WorkQueue,
                onTransferStart: @escaping @Sendable (String) -> Void = { _ in },
                onTransferEnd: @escaping @Sendable (String, Int?) -> Void = { _, _ in }) {
        self.pipeline = pipeline
        self.memoryCache = memoryCache
        self.diskCache = diskCache
        self.decodeQueue = decodeQueue
        transfers = SharedTransfers(transport: transport, onTransferStart: onTransferStart, onTransferEnd: onTransferEnd)
    }

    /// The key of `url`'s filtered logo in both caches.
    public func cacheKey(for url: String) -> String {
        DiskImageCache.key(url: url, filter: pipeline.filter)
    }

    /// The filtered logo for `url` if it is in memory: no work at all.
    public func cachedImage(for url: String) -> RGBAImage? {
        memoryCache.image(for: cacheKey(for: url))
    }

    /// An operation that loads `url`'s logo. `onStage` is told, on any
    /// thread, when it starts downloading and when it starts decoding;
    /// `completion` gets the result on the queue's completion queue.
    public func operation(name: String, url: String, priority: WorkPriority,
                          onStage: @escaping @Sendable (LogoStage) -> Void = { _ in },
                          completion: @escaping @Sendable (LogoResult) -> Void) -> WorkOperation {
        let result = Locked<LogoResult>(.cancelled)
        return WorkOperation(name: name, priority: priority, body: { [self] operation, finish in
            guard !operation.isCancelled else { return finish() }
            let key = cacheKey(for: url)
            if let image = memoryCache.image(for: key) {
                result.withLock { $0 = .image(image, downloadedBytes: nil) }
                return finish()
            }
            if let stored = diskCache?.data(for: key) {
                decode(for: operation, onStage: onStage, result: result, finish: finish) { [self] in
                    // Stored logos are already filtered: decode only.
                    let image = try ImagePipeline(decoder: pipeline.decoder).decodeAndFilter(stored).image
                    memoryCache.store(image, for: key)
                    return .image(image, downloadedBytes: nil)
                }
                return
            }
            onStage(.downloading)
            let subscription = transfers.join(url) { [self] downloaded, isFirst in
                switch downloaded {
                case .failure(let error):
                    result.withLock { $0 = operation.isCancelled ? .cancelled : .failed(String(describing: error)) }
                    finish()
                case .success(let download):
                    decode(for: operation, onStage: onStage, result: result, finish: finish) { [self] in
                        if let image = memoryCache.image(for: key) {
                            // A row sharing this transfer decoded it first.
                            return .image(image, downloadedBytes: isFirst ? download.bytes.count : nil)
                        }
                        let output = try pipeline.process(download.bytes)
                        memoryCache.store(output.image, for: key)
                        try? diskCache?.store(output.encoded, for: key, metadata: CachedImageMetadata(
                            url: url, etag: download.etag, lastModified: download.lastModified))
                        return .image(output.image, downloadedBytes: isFirst ? download.bytes.count : nil)
                    }
                }
            }
            operation.onCancel { [transfers] in
                transfers.leave(url, id: subscription)
                finish()
            }
        }, completion: { _ in completion(result.value) })
    }

    /// Runs `work` on the decode stage unless `operation` is cancelled
    /// first; an operation cancelled before decode never decodes.
    private func decode(for operation: WorkOperation, onStage: @escaping @Sendable (LogoStage) -> Void,
                        result: Locked<LogoResult>, finish: @escaping @Sendable () -> Void,
                        work: @escaping @Sendable () throws -> LogoResult) {
        guard !operation.isCancelled else { return finish() }
        let decoding = decodeQueue.addOperation(name: "decode \(operation.name)", priority: operation.priority, { decoding in
            guard !operation.isCancelled else { return }
            onStage(.decoding)
            do {
                let produced = try work()
                result.withLock { $0 = produced }
            } catch {
                result.withLock { $0 = .failed(String(describing: error)) }
            }
        }, completion: { _ in finish() })
        operation.onCancel { decoding.cancel() }
    }
}
