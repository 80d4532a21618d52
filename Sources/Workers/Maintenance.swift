import Foundation
import Locking
import Logging
import OfflineStore
import PostgresStore

/// The fleet's maintenance, run by one elected worker at a time, as river's
/// leader runs its periodic jobs, rescuer and cleaner. Every worker runs a
/// `Maintenance`; each pass, it bids for (or keeps) the leader's lease, and
/// the leader alone:
/// - enqueues the runs of due schedules (``/PostgresStore/JobQueue/enqueueDue()``);
/// - returns expired leases to `retryable` after a backoff, or `dead` at the
///   last attempt or the third crash in a row, never waiting on a locked row;
/// - removes workers gone, and prunes ended jobs hourly.
///
/// Every worker reads the fleet's freshness for its metrics
/// (`hotelkit_lists_stale`, `hotelkit_oldest_available_seconds`), so
/// whichever one is scraped tells it. Each pass has a lease as its deadline.
public final class Maintenance: Sendable {
    private let queue: JobQueue
    private let worker: Worker.Configuration
    private let logger: Logger
    private let report: @Sendable (WorkerEvent) -> Void
    /// Whether this worker held the lead at its last bid.
    private let leading = PosixMutex(false)

    public init(queue: JobQueue, worker: Worker.Configuration, logger: Logger = Logger(label: "hotelkit.maintenance"),
                report: @escaping @Sendable (WorkerEvent) -> Void = { _ in }) {
        self.queue = queue
        self.worker = worker
        self.logger = logger
        self.report = report
    }

    /// Runs passes every ``Worker/Configuration/rescueInterval`` until
    /// cancelled. A pass that fails is logged, and the next one runs as usual.
    public func run() async {
        var lastPrune = ContinuousClock.now - .seconds(3600)
        while !Task.isCancelled {
            do {
                try await PostgresHotelStore.withCallTimeout(worker.lease) {
                    guard try await lead() else { return }
                    let prunes = ContinuousClock.now - lastPrune > .seconds(3600)
                    try await pass(prune: prunes)
                    if prunes { lastPrune = .now }
                }
            } catch where Task.isCancelled {
                break
            } catch {
                logger.warning("worker \(worker.id): maintenance failed: \(error)")
            }
            // Read whether the pass failed or not: the gauges matter most when something is wrong.
            do {
                let freshness = try await PostgresHotelStore.withCallTimeout(worker.lease) { try await queue.freshness() }
                report(.freshness(staleLists: freshness.stale, oldestAvailableSeconds: freshness.oldestAvailableSeconds))
            } catch where Task.isCancelled {
                break
            } catch {
                logger.warning("worker \(worker.id): could not read the fleet's freshness: \(error)")
            }
            try? await Task.sleep(for: .seconds(worker.rescueInterval))
        }
    }

    /// Gives up the lead, if this worker holds it, so another takes it at its next pass rather than a lease later.
    /// Called once ``run()`` has ended, from a task that is not cancelled.
    public func resign() async {
        guard leading.withLock({ $0 }) else { return }
        do {
            try await PostgresHotelStore.withCallTimeout(worker.callDeadline) { try await queue.resign(worker.id) }
            leading.withLock { $0 = false }
        } catch {
            logger.warning("worker \(worker.id): could not resign the lead, which lapses in a lease: \(error)")
        }
    }

    /// Bids for the lead, or keeps it; says when that changes.
    private func lead() async throws -> Bool {
        let leads = try await queue.lead(as: worker.id, for: worker.lease)
        let changed = leading.withLock { leading in
            defer { leading = leads }
            return leading != leads
        }
        if changed {
            logger.notice("worker \(worker.id): \(leads ? "leads" : "no longer leads") the fleet's maintenance")
            report(.leader(leads))
        }
        return leads
    }

    /// The leader's work: schedules, rescue, the workers gone, and, when `prune`, pruning.
    private func pass(prune: Bool) async throws {
        let (_, enqueued) = try await queue.enqueueDue()
        if enqueued > 0 {
            logger.notice("worker \(worker.id): \(enqueued) scheduled runs enqueued")
            report(.scheduled(count: enqueued))
        }
        let rescue = try await queue.rescue(backoffBase: worker.backoff.base, backoffMaximum: worker.backoff.maximum,
                                            crashLimit: worker.crashLimit)
        if rescue.count > 0 {
            logger.notice("worker \(worker.id): \(rescue.retryable) jobs whose lease expired are retryable again, \(rescue.dead.count) dead")
            report(.rescued(count: rescue.count))
            rescue.dead.forEach { report(.dead($0)) }
        }
        let gone = try await queue.removeGoneWorkers(grace: worker.goneWorkerGrace)
        if gone > 0 { logger.notice("worker \(worker.id): removed \(gone) workers gone") }
        if prune { try await queue.prune(olderThan: worker.pruneAfter) }
    }
}
