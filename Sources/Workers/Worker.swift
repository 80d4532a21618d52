import Fetching
import Foundation
import Locking
import Logging
import OfflineStore
import PostgresStore
import ServiceLifecycle

/// What a worker tells its observer (a log, metrics), from any task.
public enum WorkerEvent: Sendable, Equatable {
    case claimed(JobKind, count: Int, seconds: Double)
    case claimFailed
    case completed(JobKind)
    case retried(JobKind)
    case dead(JobKind)
    /// The job's claim was taken over (or it was cancelled): the run was stopped, and nothing of it counts.
    case abandoned(JobKind)
    /// Stopped (a signal, ``Worker/stop()``, a drained queue): the runs still going get the grace period.
    case stopping(running: Int)
    case released(count: Int)
    case leasesRenewed(count: Int)
    case heartbeatFailed
    case rescued(count: Int)
    /// A completion could not be written, and is tried again while the lease holds.
    case completionRetried
    /// This worker became the leader (true) or stopped being it (false).
    case leader(Bool)
    /// Due schedules enqueued this many runs.
    case scheduled(count: Int)
    /// The fleet's freshness, as the last maintenance pass read it.
    case freshness(staleLists: Int, oldestAvailableSeconds: Double)
}

/// A worker: claims jobs from the queue and runs them, `concurrency` at once,
/// until it is stopped. Its events go to its observer and to swift-metrics (``WorkerMetrics``).
///
/// - **Claims** take as many jobs as there are free slots, in one statement;
///   between claims that find nothing it polls, backing off up to
///   ``Configuration/pollInterval``'s upper bound. No LISTEN: PgBouncer in
///   transaction mode would drop it.
/// - **Leases** are renewed by one heartbeat for all of the worker's jobs,
///   every third of a lease, however long each job runs. A job missing from
///   the heartbeat's answer was taken over: its run is cancelled and
///   abandoned. While heartbeats fail the worker claims nothing, and once a
///   whole lease has passed without one it cancels its runs, whose leases
///   have certainly expired.
/// - **Maintenance** (``Maintenance``): one worker at a time is the
///   leader. It enqueues due schedules, returns expired leases to
///   `retryable`, prunes ended jobs and removes workers gone.
/// - **Deadlines**: a heartbeat or a completion that does not land within
///   a third of a lease counts as failed, exactly like one that throws (its
///   connection is closed); a run past its job's timeout is cancelled and
///   fails as timed out. A completion that fails is tried again, its lease
///   still renewed, until it lands or the lease is known lost: a run that
///   succeeded never ends dead.
/// - **Errors**: a permanent one (``JobFailure/isPermanent``) makes the job
///   `dead`; any other retries it after ``RetryBackoff``, until its attempts
///   run out.
/// - **Drain** (``Configuration/drain``): the worker stops by itself once
///   a claim finds nothing and it runs nothing.
/// - **Stop**: ``stop()`` stops claiming, lets running jobs finish within
///   the grace period, then cancels the rest and gives them back to
///   `available` without counting the attempt.
public final class Worker: Service {
    public struct Configuration: Sendable {
        /// Unique among the workers on every host and container: a UUID by default (`host:pid` is shown beside it).
        public var id: String
        public var host: String
        public var kinds: [JobKind]
        public var concurrency: Int
        /// How long a claim holds without a heartbeat, in seconds.
        public var lease: Double
        /// The shortest and longest wait between claims that find nothing, in seconds.
        public var pollInterval: ClosedRange<Double>
        /// How long a worker with fewer than half its slots free waits after a claim for more to free, in
        /// seconds (10 ms): short jobs are claimed in batches, and a long job's slot waits for nothing it would notice.
        public var claimWindow = 0.01
        /// How often maintenance runs (the leader's work, or a follower's bid to lead), in seconds: half a lease by default.
        public var rescueInterval: Double
        /// Ended jobs older than this are pruned by the leader, in seconds (7 days by default).
        public var pruneAfter: Double
        /// How long running jobs may take to finish once the worker is stopped, in seconds.
        public var grace: Double
        public var backoff: RetryBackoff
        /// A job whose worker died on it this many times in a row is dead.
        public var crashLimit = 3
        /// Stops on its own once a claim finds nothing and nothing runs (a
        /// batch run, like PgQueuer's drain mode): what is scheduled later,
        /// or held by other workers, is left to them.
        public var drain = false
        /// How long after it is shown as gone the leader removes a worker, in seconds.
        public var goneWorkerGrace: Double = 3600

        /// How long a heartbeat, a completion or a failure's record may take before it counts as failed:
        /// a third of a lease (the heartbeat's interval), and at least a second, which a loaded host's slowest answer needs.
        public var callDeadline: Double { max(lease / 3, 1) }

        public init(
            id: String? = nil, kinds: [JobKind] = JobKind.allCases, concurrency: Int = 4, lease: Double = 30,
            pollInterval: ClosedRange<Double> = 0.05...2, rescueInterval: Double? = nil, pruneAfter: Double = 7 * 86400,
            grace: Double = 30, backoff: RetryBackoff = RetryBackoff()
        ) {
            host = ProcessInfo.processInfo.hostName
            self.id = id ?? UUID().uuidString.lowercased()
            self.kinds = kinds
            self.concurrency = max(1, concurrency)
            self.lease = lease
            self.pollInterval = pollInterval
            self.rescueInterval = rescueInterval ?? lease / 2
            self.pruneAfter = pruneAfter
            self.grace = grace
            self.backoff = backoff
        }
    }

    /// What the worker holds, under one lock.
    private struct State {
        var running: [JobLease: (kind: JobKind, task: Task<Void, Never>)] = [:]
        /// Runs cancelled because their claim is gone: their outcome is not reported.
        var lost: Set<JobLease> = []
        /// Runs cancelled by the shutdown: given back, not failed.
        var released: Set<JobLease> = []
        /// Runs that succeeded, whose completion is being written: a shutdown waits for them, and never gives them back.
        var completing: Set<JobLease> = []
        var stopping = false
        var healthy = true
        var lastHeartbeat = ContinuousClock.now
    }

    public let queue: JobQueue<JobKind>
    public let runner: any JobRunner
    public let configuration: Configuration
    private let logger: Logger
    private let observe: @Sendable (WorkerEvent) -> Void
    private let state = PosixMutex(State())
    private let wakeup = Wakeup()
    private let completer: Completer
    private var info: WorkerInfo<JobKind> {
        WorkerInfo(
            id: configuration.id, host: configuration.host, pid: Int(getpid()), kinds: configuration.kinds,
            concurrency: configuration.concurrency, lease: configuration.lease)
    }

    public init(
        queue: JobQueue<JobKind>, runner: any JobRunner, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "hotelkit.worker"), observe: @escaping @Sendable (WorkerEvent) -> Void = { _ in }
    ) {
        self.queue = queue
        self.runner = runner
        self.configuration = configuration
        self.logger = logger
        self.observe = observe
        completer = Completer(queue: queue, deadline: configuration.callDeadline)
        completer.onFlush = { [weak self] outcome in self?.completed(outcome) }
        completer.isLost = { [weak self] lease in self?.state.withLock { $0.lost.contains(lease) } ?? true }
    }

    /// The longest wait a service's `Retry-After` is granted, in seconds: an hour.
    public static let longestRetryAfter: Double = 3600

    /// The leases of the jobs running now.
    public var runningJobs: [JobLease] { state.withLock { Array($0.running.keys) } }

    /// Claims and runs jobs until ``stop()``; then drains, releases, logs out and returns.
    /// Cancelling the task that runs it, or a graceful shutdown of the
    /// `ServiceGroup` it runs in (`ProcessServices`), stops it as ``stop()``
    /// does: the shutdown is not cut short, so unfinished jobs are still given back.
    public func run() async throws {
        // The loop runs in a task of its own, which the caller's cancellation does not reach: the store's calls would fail under it.
        let running = Task { try await runUntilStopped() }
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await running.value
        } onCancelOrGracefulShutdown: {
            self.stop()
        }
    }

    private func runUntilStopped() async throws {
        try await queue.register(info)
        let heartbeats = Task { await heartbeatLoop() }
        let maintenance = Maintenance(queue: queue, worker: configuration, logger: logger, report: { [weak self] in self?.report($0) })
        let housekeeping = Task { await maintenance.run() }
        var idle = configuration.pollInterval.lowerBound
        var lastClaim = ContinuousClock.now - .seconds(configuration.pollInterval.upperBound)
        while !state.withLock({ $0.stopping }) {
            let (held, running, healthy) = state.withLock { ($0.running.count, $0.running.count - $0.completing.count, $0.healthy) }
            // A run whose completion is being written frees its slot: the next claim
            // goes out beside that write rather than after it. The leases held,
            // running or completing, stay within twice the concurrency.
            let free = max(0, min(configuration.concurrency - running, 2 * configuration.concurrency - held))
            // Less than half the slots free while others run, and a claim just made: wait a moment
            // for more to free, so that one claim fills several.
            let sinceClaim = (ContinuousClock.now - lastClaim).seconds
            if free > 0, free * 2 < configuration.concurrency, running > 0, sinceClaim < configuration.claimWindow {
                await wakeup.wait(seconds: configuration.claimWindow - sinceClaim)
                continue
            }
            if free > 0, healthy {
                lastClaim = .now
                let started = ContinuousClock.now
                do {
                    let jobs = try await queue.claim(
                        worker: configuration.id, kinds: configuration.kinds, limit: free, lease: configuration.lease)
                    let seconds = (ContinuousClock.now - started).seconds
                    for job in jobs { start(job) }
                    for (kind, claimed) in Dictionary(grouping: jobs, by: \.kind) {
                        report(.claimed(kind, count: claimed.count, seconds: seconds))
                    }
                    idle = jobs.isEmpty ? min(idle * 2, configuration.pollInterval.upperBound) : configuration.pollInterval.lowerBound
                    // Nothing held before the claim, so nothing of this worker's can bring more.
                    if configuration.drain, jobs.isEmpty, held == 0 {
                        logger.info("worker \(configuration.id): drained, nothing left to claim")
                        stop()
                    }
                    // Every free slot filled and more may wait: claim again once one frees.
                } catch {
                    logger.warning("worker \(configuration.id): claiming failed: \(error)")
                    report(.claimFailed)
                    idle = min(max(idle * 2, 0.5), configuration.pollInterval.upperBound)
                }
            }
            await wakeup.wait(seconds: idle)
        }
        await drain()
        heartbeats.cancel()
        housekeeping.cancel()
        await housekeeping.value
        await maintenance.resign()
        await runner.close()
        do {
            try await queue.unregister(configuration.id)
        } catch {
            logger.warning("worker \(configuration.id): could not sign off: \(error)")
        }
    }

    /// To the observer and to the metrics.
    private func report(_ event: WorkerEvent) {
        WorkerMetrics.record(event)
        observe(event)
    }

    /// Stops claiming; running jobs get the grace period, then are given back.
    public func stop() {
        state.withLock { $0.stopping = true }
        wakeup.signal()
    }

    private func start(_ job: ClaimedJob<JobKind>) {
        state.withLock { running in
            // Inserted under the lock the run's end takes too, so the entry is there before it can be removed.
            running.running[job.lease] = (
                job.kind,
                Task { [self] in
                    await execute(job)
                    state.withLock { state in
                        state.running[job.lease] = nil
                        state.lost.remove(job.lease)
                        state.released.remove(job.lease)
                        state.completing.remove(job.lease)
                    }
                    wakeup.signal()
                }
            )
        }
    }

    private func execute(_ job: ClaimedJob<JobKind>) async {
        do {
            try await JobDeadline.run(job.timeout) { [self] in try await runner.run(job, queue: queue) }
            try Task.checkCancellation()
            // The run stays among the running until its completion lands: its lease is renewed meanwhile.
            // Its slot is free now, so the loop may claim again.
            state.withLock { _ = $0.completing.insert(job.lease) }
            wakeup.signal()
            await completer.complete(job)
        } catch {
            let (lost, released) = state.withLock { ($0.lost.contains(job.lease), $0.released.contains(job.lease)) }
            if released { return }
            if lost || (error as? StoreError)?.kind == .leaseLost {
                return abandoned(job, why: "its claim was taken over")
            }
            await failed(job, error)
        }
    }

    /// What a completion batch did.
    private func completed(_ outcome: Completer.Outcome) {
        switch outcome {
        case .written(let jobs, let held):
            for job in jobs {
                if held.contains(job.lease) {
                    report(.completed(job.kind))
                } else {
                    abandoned(job, why: "its claim was taken over before it completed")
                }
            }
        case .retrying(let error):
            logger.warning("worker \(configuration.id): could not record completed jobs; trying again while their leases hold: \(error)")
            report(.completionRetried)
        case .givenUp(let jobs, let error):
            logger.warning(
                "worker \(configuration.id): could not record \(jobs.count) completed jobs before their leases were lost: \(error)")
            jobs.forEach { abandoned($0, why: "its completion could not be written before its lease was lost") }
        }
    }

    private func abandoned(_ job: ClaimedJob<JobKind>, why: String) {
        logger.warning("worker \(configuration.id): abandoned \(job.lease): \(why)")
        report(.abandoned(job.kind))
    }

    private func failed(_ job: ClaimedJob<JobKind>, _ error: any Error) async {
        let failure = error as? JobFailure ?? JobFailure(error)
        do {
            // What the supplier asked for (capped at an hour), or the backoff if longer; an attempt the supplier refused is not counted.
            let backoff = configuration.backoff.delay(afterAttempt: job.attempt)
            let retryIn = failure.retryAfter.map { max(backoff, min($0, Self.longestRetryAfter)) } ?? backoff
            let outcome = try await PostgresDatabase.withCallTimeout(configuration.callDeadline) {
                try await queue.fail(
                    job.lease, error: failure.description, retryIn: retryIn, permanent: failure.isPermanent,
                    countAttempt: failure.retryAfter == nil)
            }
            switch outcome {
            case .dead?:
                logger.error("worker \(configuration.id): \(job.lease) is dead after attempt \(job.attempt): \(failure.description)")
                report(.dead(job.kind))
            case .some:
                logger.warning(
                    "worker \(configuration.id): \(job.lease) failed (attempt \(job.attempt)), retried later: \(failure.description)")
                report(.retried(job.kind))
            case nil:
                abandoned(job, why: "its claim was taken over before its failure was recorded")
            }
        } catch {
            // The lease expires, and the leader's rescue counts the attempt.
            logger.warning("worker \(configuration.id): could not record the failure of \(job.lease): \(error)")
        }
    }

    /// Waits for running jobs up to the grace period, then cancels the rest
    /// and gives them back; a run whose completion is being written is waited for until it is.
    private func drain() async {
        let deadline = ContinuousClock.now + .seconds(configuration.grace)
        report(.stopping(running: state.withLock { $0.running.count }))
        while !state.withLock({ $0.running.isEmpty }), ContinuousClock.now < deadline {
            await wakeup.wait(seconds: min(0.1, max(0, (deadline - ContinuousClock.now).seconds)))
        }
        let (leases, tasks, completing) = state.withLock { state in
            let unfinished = state.running.filter { !state.completing.contains($0.key) }
            state.released.formUnion(unfinished.keys)
            return (
                Array(unfinished.keys), unfinished.values.map(\.task),
                state.running.filter { state.completing.contains($0.key) }.values.map(\.task)
            )
        }
        tasks.forEach { $0.cancel() }
        // A completion being written is waited for, however long the grace: it ends when it lands or its lease is lost.
        for task in tasks + completing { await task.value }
        guard !leases.isEmpty else { return }
        do {
            let released = try await queue.release(leases)
            report(.released(count: released))
            logger.notice("worker \(configuration.id): gave back \(released) unfinished jobs")
        } catch {
            logger.warning("worker \(configuration.id): could not give back \(leases.count) jobs; their leases expire: \(error)")
        }
    }

    private func heartbeatLoop() async {
        let interval = configuration.lease / 3
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(interval))
            // Cancelled: the worker is stopping, and its last heartbeat is not a failure.
            guard !Task.isCancelled else { return }
            let leases = state.withLock { state in
                Array(state.running.keys.filter { !state.lost.contains($0) && !state.released.contains($0) })
            }
            do {
                // A heartbeat that cannot land within its deadline fails like one that throws: a frozen connection never throws.
                let held = try await PostgresDatabase.withCallTimeout(configuration.callDeadline) {
                    try await queue.heartbeat(leases, lease: configuration.lease, worker: info)
                }
                let gone = Set(leases).subtracting(held)
                let cancelled = state.withLock { state in
                    state.healthy = true
                    state.lastHeartbeat = .now
                    state.lost.formUnion(gone)
                    return gone.compactMap { state.running[$0]?.task }
                }
                cancelled.forEach { $0.cancel() }
                report(.leasesRenewed(count: held.count))
            } catch  where Task.isCancelled {
                return
            } catch {
                report(.heartbeatFailed)
                let cancelled = state.withLock { state in
                    state.healthy = false
                    // A whole lease without a heartbeat: every claim may be another's by now.
                    guard ContinuousClock.now - state.lastHeartbeat > .seconds(configuration.lease) else { return [Task<Void, Never>]() }
                    state.lost.formUnion(state.running.keys)
                    return state.running.values.map(\.task)
                }
                let stopped = cancelled.isEmpty ? "" : "; \(cancelled.count) runs stopped, their leases expired"
                logger.warning("worker \(configuration.id): heartbeat failed, claiming nothing until one succeeds: \(error)\(stopped)")
                cancelled.forEach { $0.cancel() }
            }
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
