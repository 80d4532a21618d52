import Failures
import Fetching
import Foundation
import HTTP
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import PostgresStore
import Runtime

/// Runs one claimed job. The ``Worker`` claims, heartbeats, completes and
/// retries; a runner only does the work. Returning completes the job;
/// throwing fails it (``JobFailure`` says how, any other error is read
/// with ``/Failures/ErrorMeaning``). A run is cancelled when its claim is
/// taken over or the worker shuts down, and should stop soon after.
public protocol JobRunner: Sendable {
    func run(_ job: ClaimedJob<JobKind>, queue: JobQueue<JobKind>) async throws
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
/// Clients and logo pipelines come from the ``/Runtime/HotelRuntime``, which
/// keeps one per service and per filter chain across jobs.
public final class HotelJobRunner: JobRunner {
    public let runtime: HotelRuntime
    /// The runtime's store, which is a shared one.
    public let store: PostgresHotelStore

    /// Refuses (``/OfflineStore/StoreError/Kind/configuration``) a runtime whose store is not a shared one.
    public init(runtime: HotelRuntime) throws(StoreError) {
        guard let store = runtime.sharedStore else {
            throw StoreError(
                path: runtime.storage.location, reason: "jobs run against a shared store: give a postgres:// URL",
                kind: .configuration)
        }
        self.runtime = runtime
        self.store = store
    }

    public func run(_ job: ClaimedJob<JobKind>, queue: JobQueue<JobKind>) async throws {
        switch job.kind {
        case .list: try await runList(try job.arguments(as: ListJobArguments.self), job: job, queue: queue)
        case .logos: try await runLogos(try job.arguments(as: LogosJobArguments.self))
        case .match: try await runMatch(try job.arguments(as: MatchJobArguments.self))
        }
    }

    public func close() async {
        await runtime.endSessions()
    }

    private func runList(_ arguments: ListJobArguments, job: ClaimedJob<JobKind>, queue: JobQueue<JobKind>) async throws {
        let client = try client(for: arguments)
        let listJob = runtime.listJob(
            client, city: arguments.city, keyword: arguments.keyword, area: arguments.area,
            // An unreachable service fails the run, to be retried, never "succeeds" with the cached list:
            // that would mark a list refreshed that was not, and no stale alert would ever fire.
            options: ListSync.Options(pageSize: arguments.pageSize, servesCacheWhenOffline: false, readAhead: true),
            storage: store.fenced(by: job.lease))
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
        if summary.changedRows { try await queue.enqueue([MatchJobArguments(city: arguments.city).job()]) }
        guard arguments.logos, summary.hotels > 0, let list = try await store.cachedList(arguments.key) else { return }
        let bounds = try await store.runBounds(in: list, rowsPerRun: arguments.pageSize)
        try await queue.enqueue(LogosJobArguments.runs(of: arguments, between: bounds).map { $0.job() })
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
        let pipeline = runtime.logos(filter: chain)
        var run = LogoRun(pipeline: pipeline)
        var failures: [any Error] = []
        await run.save(try await rows(of: list, after: arguments.after, through: arguments.through)) { event in
            if case .logoFailed(_, _, let error) = event { failures.append(error) }
        }
        await pipeline.indexWritten()
        WorkerMetrics.logosProcessed(run.counts.saved)
        try Task.checkCancellation()
        // A logo that failed for good (a corrupt image) does not hold the others back; one that may work later retries the job.
        if let retryable = failures.first(where: { ErrorMeaning($0).isRetryable }) {
            throw JobFailure("\(failures.count) of the page's logos failed, first: \(retryable)", isPermanent: false)
        }
    }

    /// The list's rows after position `after` up to `through`, read by position a few hundred at a time.
    private func rows(of list: CachedList, after: Int64?, through: Int64?) async throws -> [Hotel] {
        var hotels: [Hotel] = []
        var after = after
        while true {
            let page = try await store.rows(in: list, after: after, limit: 500, matching: nil)
            for (hotel, position) in zip(page.hotels, page.positions) where through.map({ position <= $0 }) ?? true { hotels.append(hotel) }
            guard let last = page.positions.last, page.positions.count == 500, through.map({ last < $0 }) ?? true else { return hotels }
            after = last
        }
    }

    /// Matches the city's lists. The job is unique per city, so no two workers match one city at once; a list
    /// job that ends meanwhile finds it live and queues nothing, so a list fetched after this run read the
    /// lists is matched again here, before the job ends (at most three rounds: lists fetched faster than
    /// that are left to their next job's match).
    private func runMatch(_ arguments: MatchJobArguments) async throws {
        var readAt: Date?
        for _ in 0..<3 {
            let lists = try await runtime.catalogue.lists(inScope: arguments.scope)
            if let readAt, !lists.contains(where: { $0.fetchedAt >= readAt }) { return }
            readAt = Date()
            do {
                let summary = try await runtime.catalogue.matchScope(arguments.scope, lists: lists)
                runtime.configuration.logger.info("matched \(arguments.scope): \(summary)")
            } catch {
                throw JobFailure(error)
            }
            try Task.checkCancellation()
        }
    }

    private func client(for arguments: ListJobArguments) throws -> HotelClient {
        do {
            return try runtime.client(
                profile: try arguments.profile.load(fields: runtime.configuration.fields), endpoint: arguments.endpoint)
        } catch {
            throw JobFailure(error)
        }
    }
}

extension Worker {
    /// A worker of HotelKit's jobs on `runtime`'s shared store, through its
    /// clients and logo pipelines: what `hotels worker` runs.
    ///
    /// ```swift
    /// let runtime = try await HotelRuntime.open(.init(store: try StoreLocation("postgres://hotels@db/hotels")))
    /// let worker = try Worker(runtime: runtime, configuration: .init(concurrency: 8))
    /// try await worker.run()   // until worker.stop()
    /// await runtime.close()
    /// ```
    public convenience init(
        runtime: HotelRuntime, configuration: Configuration = Configuration(),
        observe: @escaping @Sendable (WorkerEvent) -> Void = { _ in }
    ) throws(StoreError) {
        let runner = try HotelJobRunner(runtime: runtime)
        self.init(queue: JobQueue<JobKind>(database: runner.store.database), runner: runner, configuration: configuration, observe: observe)
    }
}
