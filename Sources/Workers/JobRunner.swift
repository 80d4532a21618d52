import Fetching
import Foundation
import HTTP
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import PostgresStore

/// Runs one claimed job. The ``Worker`` claims, heartbeats, completes and
/// retries; a runner only does the work. Returning completes the job;
/// throwing fails it (``JobFailure`` says how, any other error is read
/// with ``/Fetching/ErrorMeaning``). A run is cancelled when its claim is
/// taken over or the worker shuts down, and should stop soon after.
public protocol JobRunner: Sendable {
    func run(_ job: ClaimedJob, queue: JobQueue) async throws
    /// Ends what runs keep between jobs: logs out sessions. Called once, as the worker stops.
    func close() async
}

/// A job's failure as its runner describes it: with secrets already
/// redacted, whether a retry may help, and when the service asked to be called again.
public struct JobFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// Credentials, configuration, a bad profile: no retry mends it, and the job is dead at once.
    public var isPermanent: Bool
    /// The service asked to be called again in this many seconds (HTTP 429 or
    /// 503 with `Retry-After`): the job waits at least that long (an hour at
    /// most), and the attempt is not counted.
    public var retryAfter: Double?

    public init(_ description: String, isPermanent: Bool, retryAfter: Double? = nil) {
        self.description = description
        self.isPermanent = isPermanent
        self.retryAfter = retryAfter
    }

    /// `error` as a job's failure: its meaning decides whether it is permanent.
    public init(_ error: any Error, redactedBy secrets: SecretRedactor? = nil) {
        let meaning = ErrorMeaning(error)
        let text = String(describing: error)
        description = secrets?.redact(text) ?? text
        isPermanent = error is JobArgumentsError || [.credentials, .configuration, .usage].contains(meaning.kind)
        if case .retryLater(_, let after, _)? = error as? TransportError { retryAfter = after }
    }
}

/// HotelKit's jobs: a `list` job fetches its list through the shared store,
/// each page fenced by the job's claim, and queues its `logos` jobs; a
/// `logos` job processes a page of rows' logos into the store's logo index.
public final class HotelJobRunner: JobRunner {
    public struct Configuration: Sendable {
        /// The profiles' `{env:NAME}` placeholders: this worker's environment by default.
        public var credentials: Credentials
        public var transport: HTTPTransport
        /// Where processed logos are also kept on this host; nil for none.
        public var logoCache: DiskImageCache?
        /// Logo downloads at once, per logos job.
        public var logoConcurrency: Int

        public init(credentials: Credentials = .environment, transport: HTTPTransport = HTTPTransport(), logoCache: DiskImageCache? = nil,
                    logoConcurrency: Int = 6) {
            self.credentials = credentials
            self.transport = transport
            self.logoCache = logoCache
            self.logoConcurrency = logoConcurrency
        }
    }

    public let store: PostgresHotelStore
    public let configuration: Configuration
    /// One client per profile and endpoint, so the jobs of one service share its sessions.
    private let clients = PosixMutex<[String: HotelClient]>([:])
    /// One logo pipeline per filter chain.
    private let pipelines = PosixMutex<[String: LogoPipeline]>([:])

    public init(store: PostgresHotelStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
    }

    public func run(_ job: ClaimedJob, queue: JobQueue) async throws {
        switch job.kind {
        case .list: try await runList(try job.arguments(as: ListJobArguments.self), job: job, queue: queue)
        case .logos: try await runLogos(try job.arguments(as: LogosJobArguments.self))
        }
    }

    public func close() async {
        let all = clients.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in all { await client.close() }
        for pipeline in pipelines.withLock({ Array($0.values) }) { await pipeline.indexWritten() }
    }

    private func runList(_ arguments: ListJobArguments, job: ClaimedJob, queue: JobQueue) async throws {
        let client = try client(for: arguments)
        let listJob = ListJob(client: client, storage: store.fenced(by: job.lease), city: arguments.city, keyword: arguments.keyword,
                              area: arguments.area,
                              // An unreachable service fails the run, to be retried, never "succeeds" with the cached list:
                              // that would mark a list refreshed that was not, and no stale alert would ever fire.
                              options: ListSync.Options(pageSize: arguments.pageSize, servesCacheWhenOffline: false, readAhead: true))
        let summary: ListJobSummary
        do {
            summary = try await listJob.run { event in
                if case .pageStored(let page, _) = event { WorkerMetrics.pageFetched(hotels: page.hotels.count) }
            }
        } catch {
            throw JobFailure(error, redactedBy: client.secrets)
        }
        if let failure = summary.failure {
            // The store refused the page: the claim was taken over, which the worker handles as such.
            if let refused = failure as? StoreError, refused.kind == .leaseLost { throw refused }
            throw JobFailure(failure, redactedBy: client.secrets)
        }
        guard arguments.logos, summary.hotels > 0 else { return }
        let pages = stride(from: 0, to: summary.hotels, by: arguments.pageSize).map { offset in
            LogosJobArguments(list: arguments, offset: offset, limit: arguments.pageSize).job()
        }
        try await queue.enqueue(pages)
    }

    private func runLogos(_ arguments: LogosJobArguments) async throws {
        let chain: FilterChain
        do {
            chain = try FilterChain(parsing: arguments.list.filter)
        } catch {
            throw JobFailure(error)
        }
        guard let list = try await store.cachedList(arguments.list.key) else {
            throw JobFailure("\(arguments.list.key) is not in the store", isPermanent: true)
        }
        let pipeline = pipeline(for: chain)
        let urls = Set(try await store.hotels(in: list, offset: arguments.offset, limit: arguments.limit).compactMap(\.logoURL))
        let failures = try await withThrowingTaskGroup(of: (any Error)?.self) { group in
            for url in urls {
                group.addTask {
                    do {
                        _ = try await pipeline.data(for: url)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return try await group.reduce(into: [any Error]()) { failures, error in error.map { failures.append($0) } }
        }
        await pipeline.indexWritten()
        WorkerMetrics.logosProcessed(urls.count - failures.count)
        try Task.checkCancellation()
        // A logo that failed for good (a corrupt image) does not hold the others back; one that may work later retries the job.
        if let retryable = failures.first(where: { ErrorMeaning($0).isRetryable }) {
            throw JobFailure("\(failures.count) of the page's logos failed, first: \(retryable)", isPermanent: false)
        }
    }

    private func client(for arguments: ListJobArguments) throws -> HotelClient {
        let key = (arguments.profile.json ?? arguments.profile.name) + "\u{0}" + arguments.endpoint
        if let client = clients.withLock({ $0[key] }) { return client }
        let client: HotelClient
        do {
            client = HotelClient(profile: try arguments.profile.load(), endpoint: arguments.endpoint,
                                 configuration: HotelClientConfiguration(transport: configuration.transport, credentials: configuration.credentials))
            try client.requests.checkCredentials()
        } catch {
            throw JobFailure(error)
        }
        return clients.withLock { clients in
            if let existing = clients[key] { return existing }
            clients[key] = client
            return client
        }
    }

    private func pipeline(for chain: FilterChain) -> LogoPipeline {
        pipelines.withLock { pipelines in
            if let pipeline = pipelines[chain.description] { return pipeline }
            let pipeline = LogoPipeline(configuration: .init(transport: HTTPLogoTransport(client: configuration.transport), filter: chain,
                                                             diskCache: configuration.logoCache, index: store, downloadConcurrency: configuration.logoConcurrency))
            pipelines[chain.description] = pipeline
            return pipeline
        }
    }
}
