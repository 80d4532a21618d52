import Dispatch
import Foundation
import HTTP
import Imaging
import Locking
import Logging
import Scheduling

/// Loads hotel logos: memory cache → disk cache → network, with one transfer
/// per URL however many rows want it, HTTP revalidation (max-age, ETag and
/// Last-Modified, 304), a bounded decode stage, and the filter chain.
///
/// ```swift
/// let pipeline = LogoPipeline(configuration: .init(filter: try FilterChain(parsing: "resize:64x64:fill")))
/// let logo = try await pipeline.image(for: url)
/// ```
///
/// The window loader uses the operation-based API,
/// ``operation(name:url:priority:onStage:completion:)``, to queue, reprioritise
/// and cancel one row's work.
public final class LogoPipeline: LogoLoading {
    public struct Configuration: Sendable {
        /// The network stage: libcurl with 3 retries by default.
        public var transport: any LogoTransport
        /// Applied to every logo after decoding; part of the cache key.
        public var filter: FilterChain
        public var decoder: ImageDecoder
        /// Decoded, filtered logos: 64 MiB by default.
        public var memoryCache: MemoryImageCache
        /// Encoded logos with their validators; none by default.
        public var diskCache: DiskImageCache?
        /// Told of every logo written to or read from the disk cache. A
        /// ``/Imaging/SharedImageIndex`` (a shared store) is also asked for
        /// the logos the disk cache does not have.
        public var index: (any ImageIndex)?
        /// Decodes at once: one per core by default.
        public var decodeConcurrency: Int
        /// Requests made with ``LogoPipeline/image(for:policy:)`` that run at once.
        public var downloadConcurrency: Int
        /// Failures of the disk cache and the index, which never fail a request.
        public var logger: Logger
        /// Told of transfers, from any thread.
        public var observe: @Sendable (LogoPipelineEvent) -> Void

        public init(
            transport: any LogoTransport = HTTPLogoTransport(), filter: FilterChain = FilterChain(),
            decoder: ImageDecoder = ImageDecoder(), memoryCache: MemoryImageCache = MemoryImageCache(),
            diskCache: DiskImageCache? = nil, index: (any ImageIndex)? = nil,
            decodeConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount, downloadConcurrency: Int = 6,
            logger: Logger = Logger(label: "hotelkit.logos"), observe: @escaping @Sendable (LogoPipelineEvent) -> Void = { _ in }
        ) {
            self.transport = transport
            self.filter = filter
            self.decoder = decoder
            self.memoryCache = memoryCache
            self.diskCache = diskCache
            self.index = index
            self.decodeConcurrency = max(1, decodeConcurrency)
            self.downloadConcurrency = max(1, downloadConcurrency)
            self.logger = logger
            self.observe = observe
        }
    }

    public let configuration: Configuration
    /// Decoding runs here, so a burst of downloads cannot fan out into unbounded decodes.
    public let decodeQueue: WorkQueue
    /// Where ``image(for:policy:)`` runs its operations.
    public let requestQueue: WorkQueue
    private let transfers: SharedTransfers
    private let processing: ImageProcessor
    private let indexWriter: IndexWriter?

    /// - Parameters:
    ///   - configuration: The filter, the caches, the index, the transport and the limits.
    ///   - decodeExecutor: Where decodes run and complete; tests pass
    ///     a serial queue, to step through the work.
    public init(configuration: Configuration = Configuration(), decodeExecutor: DispatchQueue? = nil) {
        self.configuration = configuration
        decodeQueue = WorkQueue(
            name: "decode", maxConcurrentOperationCount: configuration.decodeConcurrency,
            executor: decodeExecutor ?? DispatchQueue(label: "hotelkit.logos.decode", attributes: .concurrent),
            completionQueue: decodeExecutor ?? DispatchQueue(label: "hotelkit.logos.decoded"))
        requestQueue = WorkQueue(
            name: "logos", maxConcurrentOperationCount: configuration.downloadConcurrency,
            completionQueue: DispatchQueue(label: "hotelkit.logos.done"))
        transfers = SharedTransfers(transport: configuration.transport, observe: configuration.observe)
        processing = ImageProcessor(decoder: configuration.decoder, filter: configuration.filter)
        indexWriter = configuration.index.map { IndexWriter(index: $0, logger: configuration.logger) }
    }

    /// Waits until the index has every note of the logos loaded so far. Notes
    /// are written in the background, so a logo never waits for its index:
    /// call this before reading the index, or before the process ends.
    public func indexWritten() async {
        await indexWriter?.written()
    }

    /// The key of `url`'s filtered logo in both caches.
    public func cacheKey(for url: String) -> String {
        DiskImageCache.key(url: url, filter: configuration.filter)
    }

    /// The filtered logo for `url` if it is in memory: no work at all.
    public func cachedImage(for url: String) -> RGBAImage? {
        configuration.memoryCache.image(for: cacheKey(for: url))
    }

    // MARK: async API

    /// The decoded, filtered logo at `url`. Cancelling the task cancels the
    /// request (and the transfer, unless another request shares it).
    public func image(for url: String, policy: LogoCachePolicy = .revalidate) async throws -> Logo {
        try await run(url: url, policy: policy, wantsImage: true)
    }

    /// The logo's bytes as the disk cache keeps them (the filtered PNG, or
    /// the original with no filter), decoding only when a filter must run.
    public func data(for url: String, policy: LogoCachePolicy = .revalidate) async throws -> Logo {
        try await run(url: url, policy: policy, wantsImage: false)
    }

    private func run(url: String, policy: LogoCachePolicy, wantsImage: Bool) async throws -> Logo {
        let started = Locked<WorkOperation?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let operation = makeOperation(
                    name: url, url: url, priority: .normal, policy: policy, wantsImage: wantsImage,
                    onStage: { _ in }, completion: { continuation.resume(with: $0) })
                started.withLock { $0 = operation }
                requestQueue.addOperation(operation)
                // A cancel that came before the operation existed.
                if Task.isCancelled { operation.cancel() }
            }
        } onCancel: {
            started.value?.cancel()
        }
    }

    // MARK: Operations

    /// An operation that loads `url`'s decoded logo, for a ``/Scheduling/WorkQueue`` of
    /// the caller's: the window loader queues, reprioritises and cancels
    /// these. `onStage` is told, on any thread, when it starts downloading
    /// and when it starts decoding; `completion` gets the result on the
    /// queue's completion queue. An operation cancelled before decode never decodes.
    public func operation(
        name: String, url: String, priority: WorkPriority,
        onStage: @escaping @Sendable (LogoStage) -> Void = { _ in },
        completion: @escaping @Sendable (LogoResult) -> Void
    ) -> WorkOperation {
        makeOperation(name: name, url: url, priority: priority, policy: .revalidate, wantsImage: true, onStage: onStage) { outcome in
            switch outcome {
            case .success(let logo):
                if let image = logo.image {
                    completion(.image(image, downloadedBytes: logo.downloadedBytes))
                } else {
                    completion(.failed("no image"))
                }
            case .failure(LogoError.cancelled), .failure(TransportError.cancelled): completion(.cancelled)
            case .failure(let error): completion(.failed(String(describing: error)))
            }
        }
    }

    private func makeOperation(
        name: String, url: String, priority: WorkPriority, policy: LogoCachePolicy, wantsImage: Bool,
        onStage: @escaping @Sendable (LogoStage) -> Void,
        completion: @escaping @Sendable (Result<Logo, any Error>) -> Void
    ) -> WorkOperation {
        let result = Locked<Result<Logo, any Error>>(.failure(LogoError.cancelled))
        return WorkOperation(
            name: name, priority: priority,
            body: { [self] operation, finish in
                let request = Request(
                    url: url, key: cacheKey(for: url), policy: policy, wantsImage: wantsImage, operation: operation,
                    onStage: onStage, result: result, finish: finish)
                load(request)
            }, completion: { _ in completion(result.value) })
    }

    /// One request's way through the stages.
    private struct Request: Sendable {
        let url: String
        let key: String
        let policy: LogoCachePolicy
        let wantsImage: Bool
        let operation: WorkOperation
        let onStage: @Sendable (LogoStage) -> Void
        let result: Locked<Result<Logo, any Error>>
        let finish: @Sendable () -> Void

        func end(_ outcome: Result<Logo, any Error>) {
            result.withLock { $0 = operation.isCancelled ? .failure(LogoError.cancelled) : outcome }
            finish()
        }
    }

    private func load(_ request: Request) {
        guard !request.operation.isCancelled else { return request.end(.failure(LogoError.cancelled)) }
        if request.wantsImage, let image = configuration.memoryCache.image(for: request.key) {
            return request.end(.success(Logo(image: image, data: nil, source: .memory)))
        }
        let disk = configuration.diskCache
        if let cached = disk?.data(for: request.key) {
            return load(request, cached: cached, metadata: disk?.metadata(for: request.key))
        }
        // The logo as its supplier sent it (kept by a pipeline with no filter: `hotels match --logos`, a fetch
        // without --filter) is filtered from there, not fetched again.
        let originalKey = DiskImageCache.key(url: request.url, filter: FilterChain())
        if !configuration.filter.filters.isEmpty, let disk, let original = disk.data(for: originalKey) {
            return finishFromOriginal(request, original: original, metadata: disk.metadata(for: originalKey))
        }
        guard let index = configuration.index as? any SharedImageIndex else { return load(request, cached: nil, metadata: nil) }
        // The local disk missed: a shared index may hold the logo as another
        // machine processed it, to serve or to revalidate with its validators.
        request.operation.onCancel { request.end(.failure(LogoError.cancelled)) }
        Task { [weak self, filter = configuration.filter.description, logger = configuration.logger] in
            var indexed: IndexedLogo?
            do {
                indexed = try await index.indexedLogo(url: request.url, filter: filter)
            } catch {
                logger.warning("logo index: cannot look up \(request.url): \(error)")
            }
            guard let self, !request.operation.isCancelled else { return request.end(.failure(LogoError.cancelled)) }
            if let indexed { storeLocally(indexed, request: request) }
            load(request, cached: indexed?.data, metadata: indexed?.metadata)
        }
    }

    /// The rest of a request once the caches are read: `cached` (with its
    /// metadata) is the disk cache's copy, or the shared index's.
    private func load(_ request: Request, cached: [UInt8]?, metadata: CachedImageMetadata?) {
        if let cached, request.policy == .cacheOnly || metadata?.isFresh() == true {
            note(request, bytes: cached, metadata: metadata)
            return finishFromCache(request, bytes: cached, source: .disk)
        }
        guard request.policy == .revalidate else { return request.end(.failure(LogoError.notCached(request.url))) }
        var validators: [(name: String, value: String)] = []
        if cached != nil, let metadata {
            if let etag = metadata.etag { validators.append(("If-None-Match", etag)) }
            if let lastModified = metadata.lastModified { validators.append(("If-Modified-Since", lastModified)) }
        }
        request.onStage(.downloading)
        // Weak here and in `decode`: the pipeline owns the transfers and the
        // decode queue, so a strong capture would be a cycle for as long as
        // the work waits.
        let subscription = transfers.join(request.url, headers: validators) { [weak self] downloaded, isFirst in
            guard let self else { return request.end(.failure(LogoError.cancelled)) }
            switch downloaded {
            case .failure(let error as TransportError) where error.isRetryable && cached != nil:
                // Stale beats nothing when the service cannot be reached or is failing.
                finishFromCache(request, bytes: cached ?? [], source: .disk)
            case .failure(let error):
                request.end(.failure(error))
            case .success(let download) where download.notModified:
                guard let cached else {
                    return request.end(.failure(TransportError.httpStatus(304, snippet: "nothing cached to revalidate")))
                }
                var renewed = metadata ?? CachedImageMetadata(url: request.url)
                renewed.storedAt = Date()
                renewed.maxAge = download.maxAge ?? renewed.maxAge
                if let etag = download.etag { renewed.etag = etag }
                if isFirst { storeMetadata(renewed, for: request.key) }
                note(request, bytes: cached, metadata: renewed)
                finishFromCache(request, bytes: cached, source: .revalidated)
            case .success(let download):
                finishFromNetwork(request, download: download, isFirst: isFirst)
            }
        }
        request.operation.onCancel { [transfers] in
            transfers.leave(request.url, id: subscription)
            request.end(.failure(LogoError.cancelled))
        }
    }

    /// A cached logo is already filtered: it is decoded only when an image is wanted.
    private func finishFromCache(_ request: Request, bytes: [UInt8], source: LogoSource) {
        guard request.wantsImage else { return request.end(.success(Logo(image: nil, data: bytes, source: source))) }
        decode(request) { [weak self] in
            guard let self else { throw LogoError.cancelled }
            let image = try ImageProcessor(decoder: configuration.decoder).decodeAndFilter(bytes).image
            configuration.memoryCache.store(image, for: request.key)
            return Logo(image: image, data: bytes, source: source)
        }
    }

    private func finishFromNetwork(_ request: Request, download: LogoDownload, isFirst: Bool) {
        let paid = isFirst ? download.bytes.count : nil
        let metadata = CachedImageMetadata(
            url: request.url, etag: download.etag, lastModified: download.lastModified, maxAge: download.maxAge)
        // With no filter and no image wanted, the original is kept as it came: nothing to decode.
        guard request.wantsImage || !configuration.filter.filters.isEmpty else {
            store(download.bytes, request: request, metadata: metadata, isFirst: isFirst)
            return request.end(.success(Logo(image: nil, data: download.bytes, source: .network, downloadedBytes: paid)))
        }
        decode(request) { [weak self] in
            guard let self else { throw LogoError.cancelled }
            if request.wantsImage, let image = configuration.memoryCache.image(for: request.key) {
                // A request sharing this transfer decoded it first.
                return Logo(image: image, data: nil, source: .network, downloadedBytes: paid)
            }
            let output = try processing.process(download.bytes)
            let kept = configuration.filter.filters.isEmpty ? download.bytes : output.encoded
            configuration.memoryCache.store(output.image, for: request.key)
            store(kept, request: request, metadata: metadata, isFirst: isFirst)
            return Logo(image: output.image, data: kept, source: .network, downloadedBytes: paid)
        }
    }

    /// A logo filtered from the original the disk cache keeps: stored under this pipeline's key, with the original's validators.
    private func finishFromOriginal(_ request: Request, original: [UInt8], metadata: CachedImageMetadata?) {
        decode(request) { [weak self] in
            guard let self else { throw LogoError.cancelled }
            let output = try processing.process(original)
            configuration.memoryCache.store(output.image, for: request.key)
            store(output.encoded, request: request, metadata: metadata ?? CachedImageMetadata(url: request.url), isFirst: true)
            return Logo(image: request.wantsImage ? output.image : nil, data: output.encoded, source: .disk)
        }
    }

    /// Runs `work` on the decode stage unless the request is cancelled first.
    private func decode(_ request: Request, work: @escaping @Sendable () throws -> Logo) {
        guard !request.operation.isCancelled else { return request.end(.failure(LogoError.cancelled)) }
        let decoding = decodeQueue.addOperation(
            name: "decode \(request.operation.name)", priority: request.operation.priority,
            { _ in
                guard !request.operation.isCancelled else { return }
                request.onStage(.decoding)
                let produced = Result { try work() }
                request.result.withLock { $0 = produced }
            }, completion: { _ in request.finish() })
        request.operation.onCancel { decoding.cancel() }
    }

    // MARK: Disk cache and index: their failures are logged, never fatal

    private func store(_ bytes: [UInt8], request: Request, metadata: CachedImageMetadata, isFirst: Bool) {
        guard let disk = configuration.diskCache else { return }
        if isFirst || disk.data(for: request.key) == nil {
            do {
                try disk.store(bytes, for: request.key, metadata: metadata)
            } catch {
                configuration.logger.warning("logo cache: cannot store \(request.url): \(error)")
            }
        }
        note(request, bytes: bytes, metadata: metadata, isNew: true)
    }

    /// A logo the shared index had goes into the local disk cache, so the next request for it stays on this machine.
    private func storeLocally(_ indexed: IndexedLogo, request: Request) {
        do {
            try configuration.diskCache?.store(indexed.data, for: request.key, metadata: indexed.metadata)
        } catch {
            configuration.logger.warning("logo cache: cannot store \(request.url): \(error)")
        }
    }

    private func storeMetadata(_ metadata: CachedImageMetadata, for key: String) {
        do {
            try configuration.diskCache?.storeMetadata(metadata, for: key)
        } catch {
            configuration.logger.warning("logo cache: cannot renew \(metadata.url): \(error)")
        }
    }

    /// - Parameter isNew: The bytes came from the network: the index gets them too.
    private func note(_ request: Request, bytes: [UInt8], metadata: CachedImageMetadata?, isNew: Bool = false) {
        // An index records the disk cache, unless it keeps the bytes itself (a shared store), which needs no cache here.
        guard let indexWriter, configuration.diskCache != nil || configuration.index is any SharedImageIndex else { return }
        indexWriter.note(
            ImageIndexEntry(
                url: request.url, filter: configuration.filter.description,
                file: configuration.diskCache?.file(for: request.key) ?? "",
                bytes: bytes.count, etag: metadata?.etag, lastModified: metadata?.lastModified,
                maxAge: metadata?.maxAge, storedAt: metadata?.storedAt, data: isNew ? bytes : nil))
    }
}

/// Writes a pipeline's index notes one at a time, in order, on a task of its
/// own: the index may be a database across a network, and a logo never waits
/// for it. A failed note is logged, never fatal.
private final class IndexWriter: Sendable {
    private let notes: AsyncStream<ImageIndexEntry>.Continuation
    /// Notes handed in and not yet written, and who waits for none to be left.
    private let pending = Locked<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    init(index: any ImageIndex, logger: Logger) {
        let (stream, notes) = AsyncStream<ImageIndexEntry>.makeStream()
        self.notes = notes
        // The task holds the stream and the counter, not the writer: the
        // writer's deinit ends the stream, and with it the task.
        Task { [pending] in
            for await entry in stream {
                do {
                    try await index.noteImage(entry)
                } catch {
                    logger.warning("logo index: cannot note \(entry.url): \(error)")
                }
                let waiters = pending.withLock { state in
                    state.count -= 1
                    guard state.count == 0 else { return [CheckedContinuation<Void, Never>]() }
                    defer { state.waiters = [] }
                    return state.waiters
                }
                waiters.forEach { $0.resume() }
            }
        }
    }

    deinit { notes.finish() }

    func note(_ entry: ImageIndexEntry) {
        pending.withLock { $0.count += 1 }
        notes.yield(entry)
    }

    func written() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let resumeNow = pending.withLock { state in
                if state.count == 0 { return true }
                state.waiters.append(waiter)
                return false
            }
            if resumeNow { waiter.resume() }
        }
    }
}
