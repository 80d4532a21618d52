import Logging
import PostgresStore

/// One part of the fleet's maintenance, run by the leader alone on an
/// interval of its own, as river's leader runs its periodic-job enqueuer,
/// rescuer and cleaner as separate services. ``Maintenance`` runs each when
/// it is due; one that fails is logged, and the others still run.
public protocol MaintenanceService: Sendable {
    /// Named in the log when a run fails.
    var name: String { get }
    /// Seconds from one run to the next (at the first pass after that).
    var interval: Double { get }
    /// One run: what it did goes to `log`.
    func run(_ queue: JobQueue<JobKind>, log: MaintenanceLog) async throws
}

/// Where a maintenance service says what it did: the worker's log, and its events (metrics).
public struct MaintenanceLog: Sendable {
    public let worker: String
    public let logger: Logger
    public let report: @Sendable (WorkerEvent) -> Void

    public init(worker: String, logger: Logger, report: @escaping @Sendable (WorkerEvent) -> Void) {
        self.worker = worker
        self.logger = logger
        self.report = report
    }

    func notice(_ message: String) {
        logger.notice("worker \(worker): \(message)")
    }

    func warning(_ message: String) {
        logger.warning("worker \(worker): \(message)")
    }
}

/// Enqueues the runs of due schedules (``/PostgresStore/JobQueue/enqueueDue()``).
public struct DueSchedules: MaintenanceService {
    public let name = "due schedules"
    public let interval: Double

    public init(interval: Double) {
        self.interval = interval
    }

    public func run(_ queue: JobQueue<JobKind>, log: MaintenanceLog) async throws {
        let (_, enqueued) = try await queue.enqueueDue()
        guard enqueued > 0 else { return }
        log.notice("\(enqueued) scheduled runs enqueued")
        log.report(.scheduled(count: enqueued))
    }
}

/// Returns expired leases to `retryable` after a backoff, or `dead` at the
/// last attempt or the `crashLimit`-th crash in a row, never waiting on a locked row.
public struct Rescue: MaintenanceService {
    public let name = "rescue"
    public let interval: Double
    public let backoff: RetryBackoff
    public let crashLimit: Int

    public init(interval: Double, backoff: RetryBackoff = RetryBackoff(), crashLimit: Int = 3) {
        self.interval = interval
        self.backoff = backoff
        self.crashLimit = crashLimit
    }

    public func run(_ queue: JobQueue<JobKind>, log: MaintenanceLog) async throws {
        let rescue = try await queue.rescue(backoffBase: backoff.base, backoffMaximum: backoff.maximum, crashLimit: crashLimit)
        guard rescue.count > 0 else { return }
        log.notice("\(rescue.retryable) jobs whose lease expired are retryable again, \(rescue.dead.count) dead")
        log.report(.rescued(count: rescue.count))
        rescue.dead.forEach { log.report(.dead($0)) }
    }
}

/// Removes the rows of workers that stopped heartbeating `grace` seconds past two leases.
public struct GoneWorkers: MaintenanceService {
    public let name = "gone workers"
    public let interval: Double
    public let grace: Double

    public init(interval: Double, grace: Double) {
        self.interval = interval
        self.grace = grace
    }

    public func run(_ queue: JobQueue<JobKind>, log: MaintenanceLog) async throws {
        let gone = try await queue.removeGoneWorkers(grace: grace)
        if gone > 0 { log.notice("removed \(gone) workers gone") }
    }
}

/// Deletes jobs that ended (completed, dead, cancelled) more than `age` seconds ago, hourly.
public struct Pruning: MaintenanceService {
    public let name = "pruning"
    public let interval: Double = 3600
    public let age: Double

    public init(age: Double) {
        self.age = age
    }

    public func run(_ queue: JobQueue<JobKind>, log: MaintenanceLog) async throws {
        try await queue.prune(olderThan: age)
    }
}

extension Maintenance {
    /// The leader's services under `configuration`: due schedules, rescue and
    /// gone workers at every pass (``Worker/Configuration/rescueInterval``), pruning hourly.
    public static func services(_ configuration: Worker.Configuration) -> [any MaintenanceService] {
        [
            DueSchedules(interval: configuration.rescueInterval),
            Rescue(interval: configuration.rescueInterval, backoff: configuration.backoff, crashLimit: configuration.crashLimit),
            GoneWorkers(interval: configuration.rescueInterval, grace: configuration.goneWorkerGrace),
            Pruning(age: configuration.pruneAfter),
        ]
    }
}
