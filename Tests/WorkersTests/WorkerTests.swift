import Foundation
import Locking
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing
import Workers

/// A runner that does what each test says, and counts its runs.
final class FakeRunner: JobRunner {
    let runs = PosixMutex<[Int64: Int]>([:])
    let closed = PosixMutex(false)
    let behaviour: @Sendable (ClaimedJob<JobKind>) async throws -> Void

    init(_ behaviour: @escaping @Sendable (ClaimedJob<JobKind>) async throws -> Void = { _ in }) {
        self.behaviour = behaviour
    }

    func run(_ job: ClaimedJob<JobKind>, queue: JobQueue<JobKind>) async throws {
        runs.withLock { $0[job.id, default: 0] += 1 }
        try await behaviour(job)
    }

    func close() async { closed.withLock { $0 = true } }
}

/// Blocks a run until it is cancelled.
func untilCancelled() async throws {
    while true { try await Task.sleep(for: .seconds(3600)) }
}

/// A queue on a new database of the test server, with the database's name for psql.
func makeQueue() async throws -> (JobQueue<JobKind>, database: String) {
    let url = try await TestPostgres.shared().makeDatabase()
    return (JobQueue<JobKind>(database: try await ClosingStores.open(url)), TestPostgres.database(in: url))
}

/// Waits for `condition`, at most `seconds`; the test fails if it never holds.
func eventually(_ what: Comment, seconds: Double = 60, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try await !condition() {
        guard Date() < deadline else {
            Issue.record("never: \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// The worker loop against a real PostgreSQL, with fake runs.
@Suite("A worker", .serialized, .closingStores)
struct WorkerTests {
    func jobs(_ count: Int, maxAttempts: Int = 5) -> [NewJob<JobKind>] {
        (0..<count).map { NewJob(kind: .list, arguments: #"{"n":\#($0)}"#, uniqueKey: "job \($0)", maxAttempts: maxAttempts) }
    }

    func configuration(_ id: String, concurrency: Int = 4, lease: Double = 30, grace: Double = 30) -> Worker.Configuration {
        Worker.Configuration(
            id: id, concurrency: concurrency, lease: lease, pollInterval: 0.01...0.1, rescueInterval: 0.2, grace: grace,
            backoff: RetryBackoff(base: 0, maximum: 0))
    }

    func counts(_ queue: JobQueue<JobKind>) async throws -> [JobState: Int] {
        try await queue.counts()[.list] ?? [:]
    }

    @Test("two workers run every job exactly once, then stop, sign off and close their runner")
    func runsEveryJobOnce() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue(jobs(60))
        let runners = [FakeRunner(), FakeRunner()]
        let workers = runners.enumerated().map { Worker(queue: queue, runner: $1, configuration: configuration("w\($0)")) }
        let running = workers.map { worker in Task { try await worker.run() } }
        try await eventually("every job completed") { try await counts(queue)[.completed] == 60 }
        workers.forEach { $0.stop() }
        for task in running { try await task.value }
        let runs = runners[0].runs.withLock { $0 }.merging(runners[1].runs.withLock { $0 }, uniquingKeysWith: +)
        #expect(runs.count == 60 && runs.values.allSatisfy { $0 == 1 })
        #expect(runners.allSatisfy { $0.closed.withLock { $0 } })
        #expect(try await TestPostgres.shared().psql("SELECT count(*) FROM workers", database: database).trimmed == "0")
    }

    @Test("draining, two workers run every job once and return by themselves, their completions written; a job scheduled later is left")
    func drains() async throws {
        let (queue, _) = try await makeQueue()
        try await queue.enqueue(
            jobs(30) + [NewJob(kind: .list, arguments: "{}", uniqueKey: "later", scheduledAt: Date().addingTimeInterval(3600))])
        let runner = FakeRunner()
        let workers = (0..<2).map { index in
            var draining = configuration("w\(index)", concurrency: 3)
            draining.drain = true
            return Worker(queue: queue, runner: runner, configuration: draining)
        }
        // Never stopped: each returns once a claim of its finds nothing while it runs nothing.
        let ended = Locked(0)
        for worker in workers {
            Task {
                try await worker.run()
                ended.withLock { $0 += 1 }
            }
        }
        try await eventually("both workers returned") { ended.withLock { $0 } == 2 }
        workers.forEach { $0.stop() }  // the test ends either way
        #expect(try await counts(queue) == [.completed: 30, .available: 1])
        #expect(runner.runs.withLock { $0 }.count == 30)
    }

    @Test(
        "cancelling the task that runs a worker stops it as stop() does: its runs end within the grace and are given back, and it signs off"
    )
    func cancelledTask() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue(jobs(2))
        let worker = Worker(
            queue: queue, runner: FakeRunner { _ in try await untilCancelled() },
            configuration: configuration("w", concurrency: 2, grace: 0.2))
        let ended = Locked(false)
        let running = Task {
            try await worker.run()
            ended.withLock { $0 = true }
        }
        try await eventually("both jobs running") { try await counts(queue)[.running] == 2 }
        running.cancel()
        try await eventually("the cancelled worker returned") { ended.withLock { $0 } }
        worker.stop()  // the test ends either way
        #expect(try await counts(queue) == [.available: 2])
        #expect(try await TestPostgres.shared().psql("SELECT count(*) FROM workers", database: database).trimmed == "0")
    }

    @Test("a failure is retried after its backoff until attempts run out; a permanent one is dead at once, with its error")
    func failures() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([
            NewJob(kind: .list, arguments: #"{"fail":"transient"}"#, uniqueKey: "t", maxAttempts: 3),
            NewJob(kind: .list, arguments: #"{"fail":"permanent"}"#, uniqueKey: "p", maxAttempts: 3),
        ])
        let runner = FakeRunner { job in
            throw JobFailure(
                job.arguments.contains("permanent") ? "login refused" : "HTTP 503", isPermanent: job.arguments.contains("permanent"))
        }
        let worker = Worker(queue: queue, runner: runner, configuration: configuration("w"))
        let running = Task { try await worker.run() }
        try await eventually("both jobs dead") { try await counts(queue)[.dead] == 2 }
        worker.stop()
        try await running.value
        #expect(runner.runs.withLock { $0.values.sorted() } == [1, 3])
        #expect(
            try await TestPostgres.shared().psql("SELECT attempt, last_error FROM jobs ORDER BY attempt", database: database).trimmed
                == "1|login refused\n3|HTTP 503")
    }

    @Test("a run whose claim another worker took over is cancelled at the next heartbeat, and nothing of it is recorded")
    func takenOver() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue(jobs(1))
        let runner = FakeRunner { _ in try await untilCancelled() }
        let events = PosixMutex<[WorkerEvent]>([])
        let worker = Worker(
            queue: queue, runner: runner, configuration: configuration("stalled", lease: 0.6),
            observe: { event in events.withLock { $0.append(event) } })
        let running = Task { try await worker.run() }
        try await eventually("the job is running") { try await counts(queue)[.running] == 1 }
        // As a successor's claim would: a new fencing token, and a lease of its own (the rescuer leaves it alone).
        try await TestPostgres.shared().psql(
            "UPDATE jobs SET fence = fence + 1, worker = 'successor', lease_until = now() + interval '1 hour'",
            database: database)
        try await eventually("the run was abandoned") { events.withLock { $0.contains(.abandoned(.list)) } }
        worker.stop()
        try await running.value
        #expect(
            try await TestPostgres.shared().psql("SELECT state, worker, attempt FROM jobs", database: database).trimmed
                == "running|successor|1")
    }

    @Test("stopped, a worker lets runs finish within the grace period, then gives the rest back without counting the attempt")
    func gracefulStop() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([
            NewJob(kind: .list, arguments: #"{"slow":false}"#, uniqueKey: "quick"),
            NewJob(kind: .list, arguments: #"{"slow":true}"#, uniqueKey: "stuck"),
        ])
        let release = AsyncStream<Void>.makeStream()
        let runner = FakeRunner { job in
            if job.arguments.contains("true") { try await untilCancelled() }
            for await _ in release.stream { return }
        }
        let worker = Worker(queue: queue, runner: runner, configuration: configuration("w", grace: 1))
        let running = Task { try await worker.run() }
        try await eventually("both jobs are running") { try await counts(queue)[.running] == 2 }
        worker.stop()
        release.continuation.yield()
        try await running.value
        #expect(
            try await TestPostgres.shared().psql("SELECT unique_key, state, attempt FROM jobs ORDER BY unique_key", database: database)
                .trimmed
                == "quick|completed|1\nstuck|available|0")
    }

    @Test(
        "while its heartbeats fail a worker claims nothing, stops its runs once a lease has passed, and stops when asked",
        .timeLimit(.minutes(10)))
    func heartbeatsFail() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase() + "&connect_timeout=2"
        let database = TestPostgres.database(in: url)
        let queue = JobQueue<JobKind>(database: try await ClosingStores.open(url))
        try await queue.enqueue(jobs(1))
        let stopped = PosixMutex(0)
        let attempts = PosixMutex(0)
        // The first run waits until it is stopped; the next one completes.
        let runner = FakeRunner { job in
            guard
                attempts.withLock({
                    $0 += 1
                    return $0
                }) == 1
            else { return }
            do {
                try await untilCancelled()
            } catch {
                stopped.withLock { $0 += 1 }
                throw error
            }
        }
        let events = PosixMutex<[WorkerEvent]>([])
        let worker = Worker(
            queue: queue, runner: runner, configuration: configuration("w", lease: 1),
            observe: { event in events.withLock { $0.append(event) } })
        let running = Task { try await worker.run() }
        try await eventually("the job is running") { try await counts(queue)[.running] == 1 }
        try await server.psql("ALTER DATABASE \(database) WITH ALLOW_CONNECTIONS false", database: "postgres")
        try await server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'", database: "postgres")
        // A lease of 1 s, but on a loaded machine the failing heartbeats' connection timeouts run late.
        try await eventually("heartbeats failed and the run was stopped", seconds: 75) {
            events.withLock { $0.contains(.heartbeatFailed) } && stopped.withLock { $0 } == 1
        }
        #expect(
            events.withLock { $0.filter { if case .claimed = $0 { true } else { false } }.count } == 1, "no claim while heartbeats failed")
        try await server.psql("ALTER DATABASE \(database) WITH ALLOW_CONNECTIONS true", database: "postgres")
        // Taking the job again once the database is back waits on postgres-nio's reconnection backoff, which
        // after a long outage on a loaded machine passed a minute: scripts/workers restart measures that instead.
        worker.stop()
        try await running.value
        #expect(events.withLock { $0.contains(.abandoned(.list)) })
    }

    @Test(
        "stopping never counts the heartbeat it cancels as failed (ten workers stopped mid-heartbeat once said so)",
        .timeLimit(.minutes(10))
    )
    func stopIsNoHeartbeatFailure() async throws {
        let (queue, _) = try await makeQueue()
        let events = PosixMutex<[WorkerEvent]>([])
        // A heartbeat every 20 ms: the stop lands on one in flight.
        let workers = (0..<3).map { index in
            var configuration = configuration("w\(index)", lease: 0.06)
            configuration.rescueInterval = 1
            return Worker(
                queue: queue, runner: FakeRunner(), configuration: configuration, observe: { event in events.withLock { $0.append(event) } }
            )
        }
        let running = workers.map { worker in Task { try await worker.run() } }
        try await eventually("every worker heartbeats") { events.withLock { $0.filter { $0 == .leasesRenewed(count: 0) }.count } >= 20 }
        workers.forEach { $0.stop() }
        for task in running { try await task.value }
        #expect(!events.withLock { $0.contains(.heartbeatFailed) })
    }

    /// Session 20: a run kept its slot until its completion landed, so a
    /// worker of short jobs claimed, waited for the completion's write, and
    /// only then claimed again. The next claim now goes out beside the write.
    @Test(
        "a run's slot frees while its completion is written: the next claim goes out beside it, and at most twice the concurrency is held",
        .timeLimit(.minutes(10)))
    func claimsBesideCompletions() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue(jobs(6))
        let locked = PosixMutex(false)
        let runner = FakeRunner { job in
            // The first two runs end once the test holds their rows, so that their completion waits.
            let arguments = job.arguments.filter { !$0.isWhitespace }
            guard arguments == #"{"n":0}"# || arguments == #"{"n":1}"# else { return }
            while !locked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        }
        let tally = PosixMutex((claimed: 0, held: 0, mostHeld: 0))
        let worker = Worker(
            queue: queue, runner: runner, configuration: configuration("w", concurrency: 2),
            observe: { event in
                tally.withLock { tally in
                    switch event {
                    case .claimed(_, let count, _):
                        tally.claimed += count
                        tally.held += count
                    case .completed:
                        tally.held -= 1
                    default:
                        break
                    }
                    tally.mostHeld = max(tally.mostHeld, tally.held)
                }
            })
        let running = Task { try await worker.run() }
        try await eventually("the first two jobs are running") { try await counts(queue)[.running] == 2 }
        let session = try await TestPostgres.shared().holdTransaction(
            "SELECT 1 FROM jobs WHERE unique_key IN ('job 0', 'job 1') FOR SHARE", database: database)
        locked.withLock { $0 = true }
        try await eventually("two more claimed while the first two completions wait", seconds: 30) {
            tally.withLock { $0.claimed } == 4
        }
        #expect(try await counts(queue)[.completed] == nil, "the first completions were held by the lock")
        try await TestPostgres.shared().endHeldTransaction(session, database: database)
        try await eventually("every job completed") { try await counts(queue)[.completed] == 6 }
        worker.stop()
        try await running.value
        #expect(tally.withLock { $0.mostHeld } <= 4, "never more leases than twice the concurrency")
    }

    @Test("backoff doubles from its base up to its maximum, with jitter between half and all of it")
    func backoff() {
        let backoff = RetryBackoff(base: 5, maximum: 60)
        #expect(backoff.delay(afterAttempt: 1, random: 1) == 5 && backoff.delay(afterAttempt: 1, random: 0) == 2.5)
        #expect(backoff.delay(afterAttempt: 3, random: 1) == 20)
        #expect(backoff.delay(afterAttempt: 10, random: 1) == 60 && backoff.delay(afterAttempt: 1000, random: 0) == 30)
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
