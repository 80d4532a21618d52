import Foundation
import OfflineStore
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// What keeps the fleet unattended, at the queue: schedules, the rescuer
/// that waits on nothing, retry of the dead, pause, the leader, workers gone.
@Suite("The job queue unattended", .closingStores)
struct FleetQueueTests {
    func makeQueue(_ parameters: String = "") async throws -> (JobQueue<TestKind>, database: String) {
        let url = try await TestPostgres.shared().makeDatabase() + parameters
        return (
            JobQueue<TestKind>(database: try await ClosingStores.open(url)), TestPostgres.database(in: url)
        )
    }

    func listJob(_ city: String, maxAttempts: Int = 5, every: Double? = nil) -> NewJob<TestKind> {
        NewJob(kind: .list, arguments: #"{"city":"\#(city)"}"#, uniqueKey: "list|\(city)", maxAttempts: maxAttempts, every: every)
    }

    @discardableResult
    func psql(_ sql: String, _ database: String) async throws -> String {
        try await TestPostgres.shared().psql(sql, database: database).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("enqueue with every makes the list's schedule, also for a list already queued, and updates it when enqueued again")
    func schedulesAreMade() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris")])
        // The list was queued already: before schedules, it never became recurring.
        #expect(try await queue.enqueue([listJob("Paris", every: 6 * 3600)]) == EnqueueResult(new: 0, alreadyQueued: 1, scheduled: 1))
        #expect(try await queue.enqueue([listJob("Rome", every: 3600)]) == EnqueueResult(new: 1, alreadyQueued: 0, scheduled: 1))
        #expect(
            try await psql(
                "SELECT unique_key, every_seconds, round(extract(epoch FROM next_at - now()) / 60) FROM schedules ORDER BY id", database)
                == "list|Paris|21600|360\nlist|Rome|3600|60")
        // A new period for Rome: updated, not doubled.
        #expect(try await queue.enqueue([listJob("Rome", every: 7200)]).scheduled == 1)
        let schedules = try await queue.schedules()
        #expect(schedules.map(\.every).sorted() == [7200, 21600] && schedules.allSatisfy { !$0.stale && $0.lastSuccess == nil })
        #expect(try await queue.removeSchedule(schedules[0].id))
        #expect(try await queue.removeSchedule(schedules[0].id) == false)
        #expect(try await queue.schedules().count == 1)
    }

    @Test("a due schedule enqueues its run whatever happened to the last (dead here), once after downtime, anchored to the clock")
    func dueRunsAreAnchored() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris", maxAttempts: 1, every: 600)])
        let first = try #require(try await queue.claim(worker: "w", limit: 1, lease: 30).first)
        #expect(try await queue.fail(first.lease, error: "HTTP 503", retryIn: 0) == .dead)
        #expect(try await queue.enqueueDue() == (due: 0, enqueued: 0), "not due yet")
        // The fleet was down for 2.5 periods: one run, not three, and the next is on the period's grid.
        try await psql("UPDATE schedules SET next_at = now() - interval '1500 seconds'", database)
        let anchor = try await psql("SELECT extract(epoch FROM next_at)::bigint FROM schedules", database)
        #expect(try await queue.enqueueDue() == (due: 1, enqueued: 1))
        #expect(try await queue.enqueueDue() == (due: 0, enqueued: 0))
        #expect(try await psql("SELECT (extract(epoch FROM next_at)::bigint - \(anchor)) FROM schedules", database) == "1800")
        #expect(try await psql("SELECT state, count(*) FROM jobs GROUP BY state ORDER BY state", database) == "available|1\ndead|1")
        // Due again while its run is still queued: the list never has two live jobs.
        try await psql("UPDATE schedules SET next_at = now()", database)
        #expect(try await queue.enqueueDue() == (due: 1, enqueued: 0))
        #expect(try await psql("SELECT schedules.last_error FROM schedules", database) == "HTTP 503")
    }

    @Test("a scheduled list not refreshed for two periods is stale, in the overview and the gauges; a completion freshens it")
    func staleness() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Paris", every: 60), listJob("Rome", every: 60)])
        #expect(try await queue.overview().stale.isEmpty)
        try await psql("UPDATE schedules SET created_at = now() - interval '3 minutes'", database)
        #expect(try await queue.overview().stale.count == 2)
        #expect(try await queue.freshness().stale == 2)
        let paris = try #require(try await queue.claim(worker: "w", limit: 2, lease: 30).first { $0.arguments.contains("Paris") })
        #expect(try await queue.complete(paris.lease))
        let stale = try await queue.overview().stale
        #expect(
            stale.map(\.arguments) == [#"{"city": "Rome"}"#] && stale.first?.staleSince ?? .distantFuture < Date().addingTimeInterval(-170))
        #expect(try await queue.schedules().first?.stale == true, "stale ones first")
    }

    @Test("the rescuer skips a row another transaction holds (a stalled worker mid-page) and rescues the rest at once")
    func rescueWaitsOnNothing() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Held"), listJob("Free")])
        let jobs = try await queue.claim(worker: "stalled", limit: 2, lease: 30)
        let held = try #require(jobs.first { $0.arguments.contains("Held") })
        try await psql("UPDATE jobs SET lease_until = now() - interval '1 second'", database)
        // As a page write holds it: FOR SHARE under the job's fence, in a transaction that never ends.
        let server = try await TestPostgres.shared()
        let session = try await server.holdTransaction("SELECT 1 FROM jobs WHERE id = \(held.id) FOR SHARE", database: database)
        #expect(try await queue.rescue(backoffBase: 0) == JobQueue<TestKind>.Rescue(retryable: 1, dead: []))
        #expect(try await psql("SELECT unique_key, state FROM jobs ORDER BY id", database) == "list|Held|running\nlist|Free|retryable")
        try await server.endHeldTransaction(session, database: database)
        #expect(try await queue.rescue(backoffBase: 0).retryable == 1, "rescued once the row is free")
    }

    @Test("a rescued job waits out a backoff; one whose worker died on it three times in a row is dead with that reason")
    func rescueBacksOff() async throws {
        let (queue, database) = try await makeQueue()
        try await queue.enqueue([listJob("Crashy", maxAttempts: 10, every: 3600)])
        for round in 1...3 {
            try await psql("UPDATE jobs SET scheduled_at = now()", database)
            #expect(try await queue.claim(worker: "w\(round)", limit: 1, lease: 30).count == 1)
            try await psql("UPDATE jobs SET lease_until = now() - interval '1 second'", database)
            let rescue = try await queue.rescue(backoffBase: 60, backoffMaximum: 3600)
            #expect(rescue == JobQueue<TestKind>.Rescue(retryable: round < 3 ? 1 : 0, dead: round < 3 ? [] : [.list]))
            if round < 3 {
                // 60 s doubling per attempt, with jitter between half and all of it: never at once (20 s for a loaded machine's delays).
                let wait = Double(try await psql("SELECT extract(epoch FROM scheduled_at - now()) FROM jobs", database)) ?? 0
                #expect(wait > 60 * pow(2, Double(round - 1)) / 2 - 20)
                #expect(try await queue.claim(worker: "next", limit: 1, lease: 30).isEmpty)
            }
        }
        #expect(
            try await psql("SELECT state, last_error FROM jobs", database)
                == "dead|its worker died on it 3 times in a row (the lease of w3 expired)")
        #expect(
            try await psql("SELECT last_error FROM schedules", database)
                == "its worker died on it 3 times in a row (the lease of w3 expired)",
            "the list's schedule says why")
        // A run that ends on its own in between resets the count.
        try await queue.enqueue([listJob("Flaky", maxAttempts: 10)])
        let flaky = try #require(try await queue.claim(worker: "w", limit: 1, lease: 30).first)
        try await psql("UPDATE jobs SET crashes = 2 WHERE id = \(flaky.id)", database)
        #expect(try await queue.fail(flaky.lease, error: "HTTP 500", retryIn: 0) == .retryable)
        #expect(try await psql("SELECT crashes FROM jobs WHERE id = \(flaky.id)", database) == "0")
    }

    @Test("retry --dead retries one job per list and reports the others")
    func retryDeadOnePerList() async throws {
        let (queue, database) = try await makeQueue()
        for _ in 0..<2 {
            try await queue.enqueue([listJob("Paris", maxAttempts: 1), listJob("Rome", maxAttempts: 1)])
            for job in try await queue.claim(worker: "w", limit: 2, lease: 30) {
                #expect(try await queue.fail(job.lease, error: "boom", retryIn: 0) == .dead)
            }
        }
        try await queue.enqueue([listJob("Oslo", maxAttempts: 1)])
        let oslo = try #require(try await queue.claim(worker: "w", limit: 1, lease: 30).first)
        try await queue.fail(oslo.lease, error: "boom", retryIn: 0)
        try await queue.enqueue([listJob("Oslo")])
        // Paris and Rome once each (their older dead jobs stay as they are); Oslo, queued again meanwhile, is left.
        #expect(try await queue.retryDead() == JobQueue<TestKind>.RetryDead(retried: 2, left: 1))
        #expect(
            try await psql("SELECT unique_key, count(*) FROM jobs WHERE state = 'available' GROUP BY 1 ORDER BY 1", database)
                == "list|Oslo|1\nlist|Paris|1\nlist|Rome|1")
    }

    @Test("a paused kind is not claimed until resumed; the other kind is")
    func pause() async throws {
        let (queue, _) = try await makeQueue()
        try await queue.enqueue([listJob("Paris"), NewJob(kind: .logos, arguments: "{}", uniqueKey: "logos|Paris")])
        try await queue.pause([.list])
        try await queue.pause([.list])
        #expect(try await queue.pausedKinds() == [.list])
        #expect(try await queue.overview().paused == [.list])
        #expect(try await queue.claim(worker: "w", limit: 2, lease: 30).map(\.kind) == [.logos])
        try await queue.resume([.list])
        #expect(try await queue.claim(worker: "w", limit: 2, lease: 30).map(\.kind) == [.list])
        #expect(try await queue.pausedKinds().isEmpty)
    }

    @Test("one leader at a time; its lease passes to another when it lapses or is resigned")
    func leader() async throws {
        let (queue, database) = try await makeQueue()
        #expect(try await queue.lead(as: "a", for: 30))
        #expect(try await queue.lead(as: "b", for: 30) == false)
        #expect(try await queue.lead(as: "a", for: 30), "renewed")
        try await psql("UPDATE leader SET until = now() - interval '1 second'", database)
        #expect(try await queue.lead(as: "b", for: 30))
        #expect(try await queue.lead(as: "a", for: 30) == false)
        try await queue.resign("b")
        #expect(try await queue.lead(as: "a", for: 30))
    }

    @Test("a worker silent for two leases is shown as gone, then removed; one that comes back is listed again by its heartbeat")
    func goneWorkers() async throws {
        let (queue, database) = try await makeQueue()
        // Ten minutes' lease: gone when the test sets its heartbeat back, never because a loaded machine took 20 s
        // between the registration and the overview (a 10 s lease did, in a full run beside other builds).
        let worker = WorkerInfo<TestKind>(id: UUID().uuidString, host: "host-a", pid: 1, kinds: [.list], concurrency: 2, lease: 600)
        // An hour's lease: however slow the machine, it cannot go silent for two of them while the test runs.
        let other = WorkerInfo<TestKind>(id: UUID().uuidString, host: "host-a", pid: 1, kinds: [.list], concurrency: 2, lease: 3600)
        try await queue.register(worker)
        try await queue.register(other)
        #expect(try await queue.overview().workers.map(\.gone) == [false, false], "pid 1 on one host twice: two workers")
        try await psql("UPDATE workers SET heartbeat_at = now() - interval '1201 seconds' WHERE id = '\(worker.id)'", database)
        #expect(try await queue.overview().workers.map(\.gone) == [true, false])
        #expect(try await queue.removeGoneWorkers(grace: 3600) == 0)
        #expect(try await queue.removeGoneWorkers(grace: 0) == 1)
        _ = try await queue.heartbeat([], lease: 600, worker: worker)
        #expect(try await queue.overview().workers.count == 2)
    }
}
