import Foundation
import Locking
import Logging
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing
import Workers

/// Each of the leader's maintenance services on its own, against a real
/// PostgreSQL; and ``Maintenance``, which runs them, going on past one that fails.
@Suite("The leader's maintenance services", .closingStores)
struct MaintenanceServiceTests {
    /// What a service reported.
    final class Reports: Sendable {
        let events = PosixMutex<[WorkerEvent]>([])
        var log: MaintenanceLog {
            MaintenanceLog(worker: "w", logger: Logger(label: "test"), report: { [self] event in events.withLock { $0.append(event) } })
        }
        var all: [WorkerEvent] { events.withLock { $0 } }
    }

    func psql(_ sql: String, _ database: String) async throws -> String {
        try await TestPostgres.shared().psql(sql, database: database).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func listJob(_ city: String, every: Double? = nil) -> NewJob<JobKind> {
        NewJob(kind: .list, arguments: #"{"city":"\#(city)"}"#, uniqueKey: "list|\(city)", maxAttempts: 3, every: every)
    }

    @Test("due schedules: a schedule whose time has come enqueues its run, once, and says so")
    func dueSchedules() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris", every: 600)])
        let claimed = try #require(try await queue.claim(worker: "w", limit: 1, lease: 30).first)
        #expect(try await queue.complete(claimed.lease))
        let reports = Reports()
        try await DueSchedules(interval: 1).run(queue, log: reports.log)
        #expect(reports.all.isEmpty, "not due yet")
        _ = try await psql("UPDATE schedules SET next_at = now() - interval '1 second'", database)
        try await DueSchedules(interval: 1).run(queue, log: reports.log)
        try await DueSchedules(interval: 1).run(queue, log: reports.log)
        #expect(reports.all == [.scheduled(count: 1)])
        #expect(try await psql("SELECT state, count(*) FROM jobs GROUP BY state ORDER BY state", database) == "available|1\ncompleted|1")
    }

    @Test("rescue: an expired lease makes its job retryable; at the crash limit, dead")
    func rescue() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris"), listJob("Rome")])
        _ = try await queue.claim(worker: "w", limit: 2, lease: 30)
        _ = try await psql(
            "UPDATE jobs SET lease_until = now() - interval '1 second', crashes = CASE WHEN unique_key = 'list|Rome' THEN 1 ELSE 0 END",
            database)
        let reports = Reports()
        try await Rescue(interval: 1, backoff: RetryBackoff(base: 0, maximum: 0), crashLimit: 2).run(queue, log: reports.log)
        #expect(reports.all == [.rescued(count: 2), .dead(.list)])
        #expect(
            try await psql("SELECT unique_key, state FROM jobs ORDER BY unique_key", database) == "list|Paris|retryable\nlist|Rome|dead")
    }

    @Test("gone workers: a worker silent past two leases and the grace is removed; one heartbeating is kept")
    func goneWorkers() async throws {
        let (queue, database) = try await makeQueue()
        _ = try await psql(
            """
            INSERT INTO workers (id, host, pid, kinds, concurrency, heartbeat_at, lease_seconds)
            VALUES ('gone', 'h', 1, '{list}', 1, now() - interval '2 hours', 30), ('here', 'h', 2, '{list}', 1, now(), 30)
            """, database)
        try await GoneWorkers(interval: 1, grace: 3600).run(queue, log: Reports().log)
        #expect(try await psql("SELECT id FROM workers", database) == "here")
    }

    @Test("pruning: jobs that ended longer ago than the age are deleted; a recent one and a live one stay")
    func pruning() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris"), listJob("Rome"), listJob("Oslo")])
        for job in try await queue.claim(worker: "w", limit: 2, lease: 30) { #expect(try await queue.complete(job.lease)) }
        _ = try await psql("UPDATE jobs SET finalized_at = now() - interval '2 days' WHERE unique_key = 'list|Paris'", database)
        try await Pruning(age: 86400).run(queue, log: Reports().log)
        #expect(
            try await psql("SELECT unique_key, state FROM jobs ORDER BY unique_key", database) == "list|Oslo|available\nlist|Rome|completed"
        )
    }

    /// A service that always fails.
    struct Failing: MaintenanceService {
        let name = "failing"
        let interval: Double = 0
        func run(_ queue: JobQueue<JobKind>, log: MaintenanceLog) async throws { throw JobFailure("broken", isPermanent: false) }
    }

    /// A service that counts its runs.
    final class Counting: MaintenanceService {
        let name = "counting"
        let interval: Double = 0
        let runs = PosixMutex(0)
        func run(_ queue: JobQueue<JobKind>, log: MaintenanceLog) async throws { runs.withLock { $0 += 1 } }
    }

    @Test("the leader runs every service at each pass when due: one that fails holds none of the others back")
    func failingServiceHoldsNoneBack() async throws {
        let (queue, _) = try await makeQueue()
        let counting = Counting()
        let configuration = Worker.Configuration(
            id: "leader", concurrency: 1, lease: 30, pollInterval: 0.01...0.1, rescueInterval: 0.05,
            grace: 1, backoff: RetryBackoff(base: 0, maximum: 0))
        let maintenance = Maintenance(queue: queue, worker: configuration, services: [Failing(), counting])
        let running = Task { await maintenance.run() }
        try await eventually("the service after the failing one ran at three passes") { counting.runs.withLock { $0 } >= 3 }
        running.cancel()
        await running.value
        await maintenance.resign()
    }
}
