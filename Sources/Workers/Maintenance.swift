import Foundation
import Locking
import Logging
import OfflineStore
import PostgresStore

/// The fleet's maintenance, run by one elected worker at a time, as river's
/// leader runs its periodic jobs, rescuer and cleaner. Every worker runs a
/// `Maintenance`; each pass, it bids for (or keeps) the leader's lease, and
/// the leader alone runs each of its ``MaintenanceService``s that is due
/// (``services(_:)``):
/// - ``DueSchedules`` enqueues the runs of due schedules;
/// - ``Rescue`` returns expired leases to `retryable` after a backoff, or
///   `dead` at the last attempt or the third crash in a row;
/// - ``GoneWorkers`` removes workers gone, and ``Pruning`` prunes ended jobs hourly.
///
/// Each service's run has a lease as its deadline, and one that fails does
/// not hold the others back. Every worker reads the fleet's freshness for
/// its metrics (`hotelkit_lists_stale`, `hotelkit_oldest_available_seconds`),
/// so whichever one is scraped tells it.
public final class Maintenance: Sendable {
    private let queue: JobQueue<JobKind>
    private let worker: Worker.Configuration
    private let services: [any MaintenanceService]
    private let log: MaintenanceLog
    /// Whether this worker held the lead at its last bid.
    private let leading = PosixMutex(false)

    public init(
        queue: JobQueue<JobKind>, worker: Worker.Configuration, services: [any MaintenanceService]? = nil,
        logger: Logger = Logger(label: "hotelkit.maintenance"), report: @escaping @Sendable (WorkerEvent) -> Void = { _ in }
    ) {
        self.queue = queue
        self.worker = worker
        self.services = services ?? Self.services(worker)
        log = MaintenanceLog(worker: worker.id, logger: logger, report: report)
    }

    /// Runs passes every ``Worker/Configuration/rescueInterval`` until
    /// cancelled. A service that fails is logged, and runs again at the next pass.
    public func run() async {
        // When each service last ran to its end; one that never did is due.
        var lastRuns: [ContinuousClock.Instant?] = Array(repeating: nil, count: services.count)
        while !Task.isCancelled {
            do {
                if try await PostgresDatabase.withCallTimeout(worker.lease, { try await self.lead() }) {
                    for (index, service) in services.enumerated() {
                        if let last = lastRuns[index], ContinuousClock.now - last < .seconds(service.interval) { continue }
                        do {
                            try await PostgresDatabase.withCallTimeout(worker.lease) { try await service.run(queue, log: log) }
                            lastRuns[index] = .now
                        } catch  where Task.isCancelled {
                            return
                        } catch {
                            log.warning("maintenance (\(service.name)) failed: \(error)")
                        }
                    }
                }
            } catch  where Task.isCancelled {
                break
            } catch {
                log.warning("maintenance failed: \(error)")
            }
            // Read whether the pass failed or not: the gauges matter most when something is wrong.
            do {
                let freshness = try await PostgresDatabase.withCallTimeout(worker.lease) { try await queue.freshness() }
                log.report(.freshness(staleLists: freshness.stale, oldestAvailableSeconds: freshness.oldestAvailableSeconds))
            } catch  where Task.isCancelled {
                break
            } catch {
                log.warning("could not read the fleet's freshness: \(error)")
            }
            try? await Task.sleep(for: .seconds(worker.rescueInterval))
        }
    }

    /// Gives up the lead, if this worker holds it, so another takes it at its next pass rather than a lease later.
    /// Called once ``run()`` has ended, from a task that is not cancelled.
    public func resign() async {
        guard leading.withLock({ $0 }) else { return }
        do {
            try await PostgresDatabase.withCallTimeout(worker.callDeadline) { try await queue.resign(worker.id) }
            leading.withLock { $0 = false }
        } catch {
            log.warning("could not resign the lead, which lapses in a lease: \(error)")
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
            log.notice(leads ? "leads the fleet's maintenance" : "no longer leads the fleet's maintenance")
            log.report(.leader(leads))
        }
        return leads
    }
}
