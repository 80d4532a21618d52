import Foundation
import HTTP
import Hotels
import Locking
import OfflineStore
import PostgresStore
import PostgresTestSupport
import Runtime
import TestSupport
import Testing
import Workers

/// The worker loop unattended, against a real PostgreSQL: schedules run by
/// the leader, deadlines on every wait, completions that are not lost.
///
/// The time limits only stop a hang: under ThreadSanitizer, beside the browser
/// tests, one was seen to wait over two minutes for its database and workers.
@Suite("A fleet unattended", .serialized, .closingStores)
struct FleetWorkerTests {
    let server: TestPostgres

    init() async throws {
        server = try await TestPostgres.shared()
    }

    func configuration(_ id: String, lease: Double = 30) -> Worker.Configuration {
        Worker.Configuration(
            id: id, concurrency: 4, lease: lease, pollInterval: 0.01...0.1, rescueInterval: 0.2, grace: 5,
            backoff: RetryBackoff(base: 0, maximum: 0))
    }

    /// A worker that records its events, running until stopped.
    final class RunningWorker: Sendable {
        final class Log: Sendable {
            let events = PosixMutex<[WorkerEvent]>([])
        }

        private let log: Log
        private let worker: Worker
        private let running: Task<Void, any Error>

        init(_ queue: JobQueue<JobKind>, _ runner: any JobRunner, _ configuration: Worker.Configuration) {
            let log = Log()
            self.log = log
            worker = Worker(
                queue: queue, runner: runner, configuration: configuration, observe: { event in log.events.withLock { $0.append(event) } })
            running = Task { [worker] in try await worker.run() }
        }

        var events: [WorkerEvent] { log.events.withLock { $0 } }

        func count(_ event: WorkerEvent) -> Int { events.filter { $0 == event }.count }

        func stop() async throws {
            worker.stop()
            try await running.value
        }
    }

    func start(_ queue: JobQueue<JobKind>, _ runner: any JobRunner, _ configuration: Worker.Configuration) -> RunningWorker {
        RunningWorker(queue, runner, configuration)
    }

    /// A queue on a new database through a proxy that can freeze its connections, with one connection in the pool.
    func frozenableQueue() async throws -> (JobQueue<JobKind>, FreezingProxy, database: String) {
        let database = TestPostgres.database(in: try await server.makeDatabase())
        let proxy = try FreezingProxy(targetPort: server.port)
        let url = server.url(database: database, port: proxy.port) + "&pool_size=1&call_timeout=60"
        do {
            return (JobQueue<JobKind>(database: try await ClosingStores.open(url)), proxy, database)
        } catch {
            proxy.close()
            throw error
        }
    }

    func psql(_ sql: String, _ database: String) async throws -> String {
        try await server.psql(sql, database: database).trimmed
    }

    @Test("a list scheduled every second is run again after each dead run, by one leader among two workers", .timeLimit(.minutes(5)))
    func scheduleOutlivesDeadRuns() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([NewJob(kind: .list, arguments: "{}", uniqueKey: "list|Paris", maxAttempts: 1, every: 1)])
        // The supplier is down: every run fails, and each job is dead after its one attempt.
        let runner = FakeRunner { _ in throw JobFailure("HTTP 503", isPermanent: false) }
        let workers = [start(queue, runner, configuration("a")), start(queue, runner, configuration("b"))]
        try await eventually("three runs, each dead, each followed by the next") {
            // At least: on a loaded machine two more may die between two looks.
            Int(try await psql("SELECT count(*) FROM jobs WHERE state = 'dead'", database)) ?? 0 >= 3
        }
        // Counted before the stop: the leader resigns as it stops, and the other may take over.
        let leaders = workers.map { $0.count(.leader(true)) }
        for worker in workers { try await worker.stop() }
        #expect(leaders.sorted() == [0, 1], "one leader: \(leaders)")
        #expect(try await psql("SELECT count(*) FROM leader", database) == "0", "the leader resigned as it stopped")
        #expect(try await psql("SELECT last_error, last_success_at IS NULL FROM schedules", database) == "HTTP 503|t")
        #expect(try await queue.freshness().stale == 1, "never refreshed in two periods: stale")
    }

    @Test("a heartbeat on a frozen connection fails at its deadline, as one that throws; the job is not run twice", .timeLimit(.minutes(5)))
    func frozenHeartbeat() async throws {
        // One connection, and nothing but heartbeats on it once the job runs: no free slot to claim for, maintenance done.
        let (queue, proxy, _) = try await frozenableQueue()
        defer { proxy.close() }
        try await queue.enqueue([NewJob(kind: .list, arguments: "{}", uniqueKey: "list|Paris")])
        let runner = FakeRunner { _ in try await untilCancelled() }
        // A lease of 10 s (calls give up after a third of it): with 3 s, a ThreadSanitizer run's heartbeats could not
        // land within their one second even before the freeze, and the lease was never seen renewed.
        var configuration = configuration("w", lease: 10)
        configuration.concurrency = 1
        configuration.rescueInterval = 3600
        let worker = start(queue, runner, configuration)
        try await eventually("the job is running and its lease renewed") {
            worker.events.contains(.leasesRenewed(count: 1))
        }
        // After a failover that sent no reset: every open connection hangs, new ones work.
        proxy.freeze()
        try await eventually("a heartbeat failed at its deadline") { worker.events.contains(.heartbeatFailed) }
        try await worker.stop()
        #expect(runner.runs.withLock { $0.values.reduce(0, +) } == 1)
    }

    @Test("a completion that fails is written again while the lease holds: a run that succeeded never ends dead", .timeLimit(.minutes(5)))
    func completionRetried() async throws {
        let (queue, database) = try await makeQueue()
        // The first two completions fail (a sequence is not rolled back with them).
        _ = try await psql(
            """
            CREATE SEQUENCE completions;
            CREATE FUNCTION refuse_completion() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.state = 'completed' AND nextval('completions') <= 2 THEN RAISE EXCEPTION 'injected failure'; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER refuse_completion BEFORE UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION refuse_completion();
            """, database)
        try await queue.enqueue([NewJob(kind: .list, arguments: "{}", uniqueKey: "list|Paris", maxAttempts: 1)])
        let runner = FakeRunner()
        // A lease long enough that a loaded machine cannot lose the claim before the refused completions are written again.
        let worker = start(queue, runner, configuration("w", lease: 30))
        try await eventually("the job completed", seconds: 240) { try await psql("SELECT state FROM jobs", database) == "completed" }
        try await worker.stop()
        // Two refused; under load a third whose answer came after its deadline is written again too (the same claim, once).
        #expect(worker.count(.completionRetried) >= 2)
        #expect(worker.events.contains(.completed(.list)) && !worker.events.contains(.dead(.list)))
        #expect(runner.runs.withLock { $0.values.reduce(0, +) } == 1)
    }

    @Test(
        "a completion on a frozen connection passes its deadline and is written again on a new one: the run is not lost",
        .timeLimit(.minutes(5)))
    func frozenCompletion() async throws {
        // One connection: the completion gets the one the run's end froze.
        let (queue, proxy, database) = try await frozenableQueue()
        defer { proxy.close() }
        try await queue.enqueue([NewJob(kind: .list, arguments: "{}", uniqueKey: "list|Paris", maxAttempts: 1)])
        // The run succeeds just as a failover freezes every open connection.
        let runner = FakeRunner { _ in proxy.freeze() }
        // A lease of 10 s (calls give up after a third of it): with 3 s, a ThreadSanitizer run once lost the lease
        // before the new connection was made, and the completion, rightly, stopped trying.
        var configuration = configuration("w", lease: 10)
        configuration.rescueInterval = 3600
        let worker = start(queue, runner, configuration)
        try await eventually("the job completed", seconds: 100) { try await psql("SELECT state FROM jobs", database) == "completed" }
        try await worker.stop()
        #expect(worker.count(.completionRetried) >= 1 && worker.events.contains(.completed(.list)))
        #expect(runner.runs.withLock { $0.values.reduce(0, +) } == 1)
    }

    @Test("the leader rescues past a row a stalled transaction holds, and counts the deaths it finds", .timeLimit(.minutes(5)))
    func rescueAroundAStalledWorker() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([
            NewJob(kind: .list, arguments: #"{"held":true}"#, uniqueKey: "held"),
            NewJob(kind: .list, arguments: "{}", uniqueKey: "free"),
            NewJob(kind: .list, arguments: "{}", uniqueKey: "last", maxAttempts: 1),
        ])
        // A stalled worker's claims: one row locked by its page transaction that never ends; their leases expire.
        let stalled = try await queue.claim(worker: "stalled", limit: 3, lease: 0.1)
        let held = try #require(stalled.first { $0.arguments.contains("held") })
        let session = try await server.holdTransaction("SELECT 1 FROM jobs WHERE id = \(held.id) FOR SHARE", database: database)
        let worker = start(queue, FakeRunner(), configuration("rescuer", lease: 2))
        try await eventually("the free job was rescued and run, within two leases of the rescuer's") {
            try await psql("SELECT state FROM jobs WHERE unique_key = 'free'", database) == "completed"
        }
        #expect(worker.events.contains(.dead(.list)), "the job on its last attempt died by the rescuer, counted")
        #expect(try await psql("SELECT state FROM jobs WHERE unique_key = 'held'", database) == "running")
        try await server.endHeldTransaction(session, database: database)
        try await eventually("the held job was rescued too, and run") {
            try await psql("SELECT state FROM jobs WHERE unique_key = 'held'", database) == "completed"
        }
        try await worker.stop()
    }

    @Test("a run past its job's timeout is cancelled and fails as timed out", .timeLimit(.minutes(5)))
    func jobTimeout() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([NewJob(kind: .list, arguments: "{}", uniqueKey: "list|Paris", maxAttempts: 1, timeout: 1)])
        let worker = start(queue, FakeRunner { _ in try await untilCancelled() }, configuration("w"))
        try await eventually("the job is dead") { try await psql("SELECT state FROM jobs", database) == "dead" }
        try await worker.stop()
        #expect(try await psql("SELECT last_error FROM jobs", database) == "timed out after 1s")
    }

    @Test(
        "a supplier's Retry-After reschedules the job no sooner than it asked, an hour at most, without using up an attempt",
        .timeLimit(.minutes(5)))
    func retryAfter() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([
            NewJob(kind: .list, arguments: #"{"after":120}"#, uniqueKey: "soon", maxAttempts: 1),
            NewJob(kind: .list, arguments: #"{"after":86400}"#, uniqueKey: "tomorrow", maxAttempts: 1),
        ])
        let runner = FakeRunner { job in
            throw JobFailure(
                TransportError.retryLater(
                    status: job.arguments.contains("120") ? 429 : 503,
                    after: job.arguments.contains("120") ? 120 : 86400, snippet: ""))
        }
        let worker = start(queue, runner, configuration("w"))
        try await eventually("both jobs were put off") {
            try await psql("SELECT count(*) FROM jobs WHERE state = 'retryable'", database) == "2"
        }
        try await worker.stop()
        // Read some time after the failures were written (a loaded machine's): within the minute before each wait ends.
        #expect(
            try await psql(
                """
                SELECT unique_key, attempt, extract(epoch FROM scheduled_at - now()) BETWEEN 60 AND 120,
                       extract(epoch FROM scheduled_at - now()) BETWEEN 3540 AND 3600
                FROM jobs ORDER BY unique_key
                """, database) == "soon|0|t|f\ntomorrow|0|f|t", "one attempt allowed, none used: retryable, not dead")
        #expect(try await psql("SELECT last_error FROM jobs WHERE unique_key = 'soon'", database) == "HTTP 429, asked to retry after 120 s")
    }

    @Test(
        "a list job whose service is unreachable fails, to be retried, rather than complete with the cached list: its list goes stale",
        .timeLimit(.minutes(5)))
    func offlineIsNoRefresh() async throws {
        let (queue, database) = try await makeQueue()
        let store = PostgresHotelStore(database: queue.database)
        let arguments = ListJobArguments(profile: try JobProfile(nameOrPath: "sample"), endpoint: "http://127.0.0.1:1/soap", city: "Paris")
        _ = try await store.mergeFirstPage(
            hotels([("A", 2), ("B", 1)]), into: arguments.key,
            checkpoint: Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil),
            now: Date())
        try await queue.enqueue([arguments.job(maxAttempts: 1, every: 3600)])
        let worker = start(queue, try HotelJobRunner(runtime: HotelRuntime(storage: store)), configuration("w"))
        try await eventually("the run ended") { try await psql("SELECT state FROM jobs", database) == "dead" }
        try await worker.stop()
        #expect(try await psql("SELECT last_success_at IS NULL, last_error LIKE 'offline%' FROM schedules", database) == "t|t")
    }
}

extension FleetWorkerTests {
    @Test(
        "a list's logos jobs name their rows by position: a refresh that puts rows at the top before they run shifts no run, so each row's logo is fetched once and none is skipped",
        .timeLimit(.minutes(5)))
    func logosRunsByPosition() async throws {
        let png = try Data(contentsOf: Samples.url("Images/png-palette8.png"))
        let service = try ScriptedHTTPServer { _, connection in
            connection.respond(status: 200, headers: ["Content-Type": "image/png"], body: Array(png))
        }
        defer { service.stop() }
        let (queue, database) = try await makeQueue()
        let store = PostgresHotelStore(database: queue.database)
        let arguments = ListJobArguments(
            profile: try JobProfile(nameOrPath: "sample"), endpoint: service.url + "/soap", city: "Paris",
            pageSize: 5, logos: true)
        func hotel(_ code: String, addtime: Int64) -> Hotel {
            Hotel(code: code, name: "Hotel \(code)", logoURL: service.url + "/logos/\(code).png", addtime: addtime)
        }
        let end = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)
        let listed = (0..<12).map { hotel("H\($0)", addtime: Int64(100 - $0)) }
        _ = try await store.mergeFirstPage(listed, into: arguments.key, checkpoint: end, now: Date())
        let list = try #require(try await store.cachedList(arguments.key))
        let bounds = try await store.runBounds(in: list, rowsPerRun: 5)
        #expect(bounds.count == 4, "12 rows in runs of 5, 5 and 2")
        try await queue.enqueue(LogosJobArguments.runs(of: arguments, between: bounds).map { $0.job() })
        // The refresh, before any logos job runs: three new rows and H0 take the top. By offset, the three jobs would
        // take N0…H7, H6…H10: N rows and H6 twice, H11 never.
        let refreshed = [hotel("N0", addtime: 300), hotel("N1", addtime: 300), hotel("N2", addtime: 300), listed[0]]
        _ = try await store.mergeFirstPage(refreshed, into: arguments.key, checkpoint: end, now: Date())
        let worker = start(queue, try HotelJobRunner(runtime: HotelRuntime(storage: store)), configuration("w"))
        try await eventually("the three logos jobs ended") {
            try await psql("SELECT count(*) FROM jobs WHERE kind = 'logos' AND state = 'completed'", database) == "3"
        }
        try await worker.stop()
        let fetched = service.requests.map(\.path).sorted()
        // H0 moved above the runs with the refresh: its logo is the refresh's own logos jobs' work.
        #expect(fetched == listed.dropFirst().map { "/logos/\($0.code).png" }.sorted())
    }
}
