import Foundation
import Hotels
import OfflineStore
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import PostgresStore

/// The kinds these tests queue. The queue knows none of its own (the Workers library's `JobKind` is HotelKit's);
/// these are HotelKit's names, which the schema's check allows.
enum TestKind: String, JobQueueKind {
    case list, logos, match
}

/// The job queue's state changes, each against a real PostgreSQL.
@Suite("The job queue", .closingStores)
struct JobQueueTests {
    let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Paris")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil)

    /// A queue on a new database, with the database's name for psql.
    func makeQueue() async throws -> (JobQueue<TestKind>, database: String) {
        let url = try await TestPostgres.shared().makeDatabase()
        return (
            JobQueue<TestKind>(database: try await ClosingStores.open(url)), TestPostgres.database(in: url)
        )
    }

    func listJob(_ city: String, priority: Int = 0, maxAttempts: Int = 5, every: Double? = nil) -> NewJob<TestKind> {
        NewJob(
            kind: .list, arguments: #"{"city":"\#(city)"}"#, uniqueKey: "sample|http://127.0.0.1:1/soap|\(city)", priority: priority,
            maxAttempts: maxAttempts, every: every)
    }

    @discardableResult
    func psql(_ sql: String, _ database: String) async throws -> String {
        try await TestPostgres.shared().psql(sql, database: database).trimmed
    }

    @Test("enqueue inserts in one statement and skips lists already queued, also when two enqueue the same lists at once")
    func enqueue() async throws {
        let (queue, database) = try await makeQueue()
        #expect(try await queue.enqueue(["Paris", "Rome", "Oslo"].map { listJob($0) }) == EnqueueResult(new: 3, alreadyQueued: 0))
        #expect(try await queue.enqueue(["Paris", "Rome", "Oslo", "Lima"].map { listJob($0) }) == EnqueueResult(new: 1, alreadyQueued: 3))
        let cities = (0..<40).map { "City \($0)" }
        let results = try await withThrowingTaskGroup(of: EnqueueResult.self) { group in
            for _ in 0..<2 { group.addTask { try await queue.enqueue(cities.map { listJob($0) }) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.map(\.new).reduce(0, +) == 40 && results.map(\.alreadyQueued).reduce(0, +) == 40)
        #expect(try await psql("SELECT count(*), count(DISTINCT unique_key) FROM jobs", database) == "44|44")
        #expect(try await queue.counts()[.list]?[.available] == 44)
    }

    @Test("claims by priority, each job once across concurrent claimers, with a new fencing token each time")
    func claim() async throws {
        let (queue, _) = try await makeQueue()
        try await queue.enqueue([listJob("Low", priority: 0), listJob("High", priority: 9)] + (0..<30).map { listJob("C\($0)") })
        let first = try await queue.claim(worker: "w0", limit: 1, lease: 30)
        #expect(first.map(\.arguments) == [#"{"city": "High"}"#] && first.first?.attempt == 1 && first.first?.fence == 1)
        let claims = try await withThrowingTaskGroup(of: [ClaimedJob<TestKind>].self) { group in
            for worker in 1...4 { group.addTask { try await queue.claim(worker: "w\(worker)", limit: 10, lease: 30) } }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(claims.count == 31 && Set(claims.map(\.id)).count == 31)
        #expect(try await queue.claim(worker: "w5", limit: 10, lease: 30).isEmpty)
        #expect(try await queue.claim(worker: "w5", kinds: [.logos], limit: 10, lease: 30).isEmpty)
    }

    @Test("complete and fail hold only under the claim's fence; retries back off, then the job is dead with its last error")
    func completeAndFail() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris", maxAttempts: 2), listJob("Rome")])
        let jobs = try await queue.claim(worker: "w", limit: 2, lease: 30)
        let (paris, rome) = (jobs[0], jobs[1])
        #expect(try await queue.complete(JobLease(job: rome.id, fence: rome.fence + 1)) == false)
        #expect(try await queue.complete(rome.lease))
        #expect(try await queue.complete(rome.lease), "a completion whose answer was lost is written again under the same claim")
        #expect(try await psql("SELECT count(*) FROM jobs WHERE state = 'completed'", database) == "1")

        #expect(try await queue.fail(paris.lease, error: "HTTP 503", retryIn: 0) == .retryable)
        #expect(try await queue.fail(paris.lease, error: "again", retryIn: 0) == nil, "the claim ended with the failure")
        let again = try #require(try await queue.claim(worker: "w", limit: 1, lease: 30).first)
        #expect(again.id == paris.id && again.attempt == 2 && again.fence == paris.fence + 1)
        #expect(try await queue.fail(again.lease, error: "HTTP 503 again", retryIn: 0) == .dead)
        #expect(try await psql("SELECT state, attempt, last_error FROM jobs WHERE id = \(paris.id)", database) == "dead|2|HTTP 503 again")

        // A later retry is scheduled later: not claimable before its time.
        try await queue.enqueue([listJob("Oslo")])
        let oslo = try #require(try await queue.claim(worker: "w", limit: 1, lease: 30).first)
        #expect(try await queue.fail(oslo.lease, error: "slow", retryIn: 3600) == .retryable)
        #expect(try await queue.claim(worker: "w", limit: 1, lease: 30).isEmpty)
        // A permanent error (bad credentials, a bad profile) is dead at once.
        try await queue.enqueue([listJob("Lima")])
        let lima = try #require(try await queue.claim(worker: "w", limit: 1, lease: 30).first)
        #expect(try await queue.fail(lima.lease, error: "login refused", retryIn: 0, permanent: true) == .dead)
    }

    @Test("heartbeats renew leases in one statement and tell a worker which claims it lost; the rescuer returns expired ones")
    func leases() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris"), listJob("Rome", maxAttempts: 1)])
        let jobs = try await queue.claim(worker: "stalled", limit: 2, lease: 30)
        #expect(try await queue.heartbeat(jobs.map(\.lease), lease: 60) == Set(jobs.map(\.lease)))
        // Against the claim's own time, not the clock now: under load, seconds may pass before psql reads the rows.
        // A claim of 30 s not renewed would be 30 s past its claim; renewed for 60 s, it is 60 s past the heartbeat.
        #expect(try await psql("SELECT count(*) FROM jobs WHERE lease_until >= attempted_at + interval '60 seconds'", database) == "2")
        #expect(try await queue.rescue().count == 0)

        try await psql("UPDATE jobs SET lease_until = now() - interval '1 second'", database)
        #expect(try await queue.rescue(backoffBase: 0) == JobQueue<TestKind>.Rescue(retryable: 1, dead: [.list]))
        #expect(
            try await psql("SELECT state, attempt, last_error FROM jobs ORDER BY id", database)
                == "retryable|1|the lease of stalled expired\ndead|1|the lease of stalled expired")
        let taken = try #require(try await queue.claim(worker: "successor", limit: 2, lease: 30).first)
        #expect(taken.id == jobs[0].id && taken.attempt == 2)
        // The stalled worker's heartbeat no longer holds either job.
        #expect(try await queue.heartbeat(jobs.map(\.lease), lease: 60).isEmpty)
        #expect(try await queue.heartbeat([taken.lease], lease: 60) == [taken.lease])
    }

    @Test("a fenced write lands under the job's current claim and is refused, changing nothing, under a superseded one")
    func fencedWrites() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris")])
        let stalled = try #require(try await queue.claim(worker: "stalled", limit: 1, lease: 30).first)
        let store = PostgresHotelStore(database: queue.database)
        _ = try await store.fenced(by: stalled.lease).mergeFirstPage(
            hotels([("A", 3), ("B", 2)]), into: key, checkpoint: checkpoint, now: Date())

        try await psql("UPDATE jobs SET lease_until = now() - interval '1 second'", database)
        #expect(try await queue.rescue(backoffBase: 0).count == 1)
        let successor = try #require(try await queue.claim(worker: "successor", limit: 1, lease: 30).first)
        #expect(
            try await store.fenced(by: successor.lease).appendPage(hotels([("C", 1)]), to: key, checkpoint: checkpoint, now: Date()) == 1)

        await #expect {
            try await store.fenced(by: stalled.lease).appendPage(hotels([("Z", 0)]), to: key, checkpoint: checkpoint, now: Date())
        } throws: { error in
            (error as? StoreError)?.kind == .leaseLost
        }
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil).map(\.code) == ["A", "B", "C"])
        // A cancelled job's writes are refused too.
        #expect(try await queue.cancel(successor.id))
        await #expect {
            try await store.fenced(by: successor.lease).appendPage(hotels([("Y", 0)]), to: key, checkpoint: checkpoint, now: Date())
        } throws: { error in
            (error as? StoreError)?.kind == .leaseLost
        }
        #expect(try await psql("SELECT count(*) FROM hotels", database) == "3")
    }

    @Test("release gives jobs back uncounted; cancel, retry of one or all dead jobs, and prune of ended ones")
    func operatorActions() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris"), listJob("Rome", maxAttempts: 1), listJob("Oslo")])
        let jobs = try await queue.claim(worker: "w", limit: 3, lease: 30)
        #expect(try await queue.release([jobs[0].lease]) == 1)
        #expect(try await psql("SELECT state, attempt FROM jobs WHERE id = \(jobs[0].id)", database) == "available|0")
        #expect(try await queue.fail(jobs[1].lease, error: "boom", retryIn: 0) == .dead)
        #expect(try await queue.complete(jobs[2].lease))

        #expect(try await queue.cancel(jobs[0].id))
        #expect(try await queue.cancel(jobs[0].id) == false)
        #expect(try await queue.retry(jobs[0].id))
        #expect(try await queue.retryDead() == JobQueue<TestKind>.RetryDead(retried: 1, left: 0))
        #expect(try await psql("SELECT state, attempt FROM jobs ORDER BY id", database) == "available|0\navailable|0\ncompleted|1")
        // A list queued again meanwhile is not queued twice by a retry.
        try await queue.enqueue([listJob("Oslo")])
        #expect(try await queue.retry(jobs[2].id) == false)

        #expect(try await queue.prune(olderThan: 3600) == 0)
        try await psql("UPDATE jobs SET finalized_at = now() - interval '8 days' WHERE state = 'completed'", database)
        #expect(try await queue.prune(olderThan: 7 * 86400) == 1)
        #expect(try await queue.counts()[.list] == [.available: 3])
    }
    @Test("a claim reads the ready index in order and stops at its limit, also in a burst after the table was pruned and vacuumed empty")
    func claimPlan() async throws {
        let (queue, database) = try await makeQueue()
        // A fleet's quiet hour: its jobs ended and pruned, and (auto)vacuum left an empty table behind. Then a burst.
        try await queue.enqueue((0..<50).map { listJob("Done \($0)") })
        _ = try await queue.complete(try await queue.claim(worker: "w", limit: 50, lease: 30).map(\.lease))
        #expect(try await queue.prune(olderThan: 0) == 50)
        try await psql("VACUUM ANALYZE jobs", database)
        // Statistics that say the table is empty are the hazard: an autovacuum's ANALYZE of the burst would hide it.
        try await psql("ALTER TABLE jobs SET (autovacuum_enabled = false)", database)
        try await psql("INSERT INTO jobs (kind, args) SELECT 'list', jsonb_build_object('n', g) FROM generate_series(1, 5000) g", database)

        /// The claim (`hotelkit_claim`) under auto_explain, in a transaction that is rolled back: the plan of the
        /// function's own statement, as its node types and the rows the ready index gave. `asDeclared` false
        /// takes the function's `SET enable_sort = off` away first, in the same transaction.
        func plan(asDeclared: Bool) async throws -> (nodes: [String], readyRows: Int?) {
            let output = try await psql(
                """
                BEGIN;
                \(asDeclared ? "" : "ALTER FUNCTION hotelkit_claim(text, text[], bigint, double precision) RESET enable_sort;")
                LOAD 'auto_explain';
                -- Costs that favour reading the whole table and sorting it, as stale statistics can: the same for both
                -- plans, so the function's own setting is all that differs (left to the statistics alone, a loaded
                -- full run once planned the index scan anyway, and this negative control failed).
                SET LOCAL random_page_cost = 1000;
                SET LOCAL auto_explain.log_min_duration = 0; SET LOCAL auto_explain.log_nested_statements = on;
                SET LOCAL auto_explain.log_analyze = on; SET LOCAL auto_explain.log_format = json;
                SET LOCAL auto_explain.log_level = notice; SET LOCAL client_min_messages = notice;
                SELECT count(*) FROM hotelkit_claim('w', ARRAY['list', 'logos'], 10, 30);
                ROLLBACK;
                """, database)
            // Each plan is a notice among psql's output: "… plan:", then a JSON object up to a line that is its closing brace.
            let plans = output.components(separatedBy: "plan:\n").dropFirst().compactMap { text -> [String: Any]? in
                let lines = text.components(separatedBy: "\n")
                guard let end = lines.firstIndex(of: "}") else { return nil }
                return try? JSONSerialization.jsonObject(with: Data(lines[...end].joined(separator: "\n").utf8)) as? [String: Any]
            }
            let claim = try #require(plans.first { ($0["Query Text"] as? String)?.contains("SKIP LOCKED") == true }, "\(output)")
            var nodes: [String] = []
            var readyRows: Int?
            func walk(_ node: [String: Any]) {
                nodes.append(node["Node Type"] as? String ?? "?")
                if node["Index Name"] as? String == "jobs_ready" { readyRows = node["Actual Rows"] as? Int }
                for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child) }
            }
            walk(try #require(claim["Plan"] as? [String: Any]))
            return (nodes, readyRows)
        }
        // Without the function's setting, the planner sorts every ready job for each claim: the hazard this guards against.
        #expect(try await plan(asDeclared: false).nodes.contains("Sort"))
        let claimPlan = try await plan(asDeclared: true)
        #expect(!claimPlan.nodes.contains("Sort"), "\(claimPlan.nodes)")
        #expect(claimPlan.readyRows == 10, "\(claimPlan.nodes)")
        #expect(try await queue.claim(worker: "w", limit: 10, lease: 30).count == 10)
    }
}
