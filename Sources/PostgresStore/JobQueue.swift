import Foundation
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// What a queue's jobs are kinds of: an enum of strings, each kind stored
/// as its raw value, as river stores a job's kind. The queue knows no kind
/// of its own: HotelKit's are the Workers library's `JobKind` (`list`,
/// `logos`, `match`), beside the worker that runs them, and its queue is a
/// `JobQueue<JobKind>`. The schema checks each job's kind against those three
/// (``PostgresSchema``), so kinds of other names need a migration that widens the check.
public protocol JobQueueKind: RawRepresentable<String>, CaseIterable, Hashable, Sendable {}

/// Where a job stands. A job is claimed from `available` or `retryable`
/// (once its time has come), is `running` while a worker holds its lease,
/// and ends `completed`, `dead` (out of attempts, or an error no retry
/// mends) or `cancelled`.
public enum JobState: String, Sendable, Codable, CaseIterable {
    case available, running, retryable, completed, dead, cancelled

    /// The states in which a job still counts as queued: its unique key is taken.
    public static let live: [JobState] = [.available, .running, .retryable]
}

/// A job to insert.
public struct NewJob<Kind: JobQueueKind>: Sendable, Equatable {
    public var kind: Kind
    /// The job's arguments, a JSON object, stored as they are.
    public var arguments: String
    /// At most one live job per key: for a list job, its profile, endpoint and list.
    public var uniqueKey: String?
    /// Higher runs first.
    public var priority: Int
    public var maxAttempts: Int
    /// With a unique key: the list's schedule, a run every this many
    /// seconds (at least 1) from now on, whatever happens to each run
    /// (``JobQueue/enqueueDue()``). Enqueuing it again updates the schedule.
    public var every: Double?
    /// Not before; now by default.
    public var scheduledAt: Date?
    /// How long a run may take, in seconds: past it, it is cancelled and fails as timed out. Nil for no limit.
    public var timeout: Double?

    public init(
        kind: Kind, arguments: String, uniqueKey: String? = nil, priority: Int = 0, maxAttempts: Int = 5,
        every: Double? = nil, scheduledAt: Date? = nil, timeout: Double? = nil
    ) {
        self.kind = kind
        self.arguments = arguments
        self.uniqueKey = uniqueKey
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.every = every
        self.scheduledAt = scheduledAt
        self.timeout = timeout
    }
}

/// A worker's claim on a job: the job and the fencing token its claim was
/// given. Every claim of a job gives it a larger token, so a write made
/// under an older one (a worker that stalled past its lease) is refused.
public struct JobLease: Sendable, Hashable, CustomStringConvertible {
    public var job: Int64
    public var fence: Int64

    public init(job: Int64, fence: Int64) {
        self.job = job
        self.fence = fence
    }

    public var description: String { "job \(job) (fence \(fence))" }
}

/// A worker as `hotels jobs` lists it.
public struct WorkerInfo<Kind: JobQueueKind>: Sendable, Equatable {
    /// Unique among workers on every host and in every container (a UUID by
    /// default); `host:pid` is for people, and collides where every worker is pid 1.
    public var id: String
    public var host: String
    public var pid: Int
    public var kinds: [Kind]
    public var concurrency: Int
    /// Its lease, in seconds: a heartbeat older than two is a worker gone.
    public var lease: Double

    public init(id: String, host: String, pid: Int, kinds: [Kind], concurrency: Int, lease: Double = 30) {
        self.id = id
        self.host = host
        self.pid = pid
        self.kinds = kinds
        self.concurrency = concurrency
        self.lease = lease
    }
}

/// A job as a claim hands it to a worker.
public struct ClaimedJob<Kind: JobQueueKind>: Sendable, Equatable {
    public var id: Int64
    public var kind: Kind
    public var arguments: String
    /// This run's attempt, from 1.
    public var attempt: Int
    public var maxAttempts: Int
    public var fence: Int64
    /// How long the run may take, in seconds; nil for no limit.
    public var timeout: Double?

    public var lease: JobLease { JobLease(job: id, fence: fence) }
}

/// How many jobs were inserted, how many were already queued under their
/// unique key, and how many schedules were made or updated.
public struct EnqueueResult: Sendable, Equatable {
    public var new: Int
    public var alreadyQueued: Int
    public var scheduled: Int

    public init(new: Int, alreadyQueued: Int, scheduled: Int = 0) {
        self.new = new
        self.alreadyQueued = alreadyQueued
        self.scheduled = scheduled
    }
}

/// The job queue in the shared store, the way the best PostgreSQL queues
/// (river, graphile-worker, Que) keep one: each state change is one SQL
/// statement, claims take `FOR UPDATE SKIP LOCKED` so workers never wait on
/// each other, and leases are times on the server's clock, so the hosts'
/// clocks do not matter.
///
/// ```swift
/// let queue = JobQueue<JobKind>(database: database)   // the store's database: one pool for both
/// let jobs = try await queue.claim(worker: "host-1:4242", kinds: [.list], limit: 4, lease: 30)
/// for job in jobs {
///     // … run it through store.fenced(by: job.lease), which refuses writes once the claim is taken over …
///     try await queue.complete(job.lease)
/// }
/// ```
///
/// Every call works behind PgBouncer in transaction mode: no session state,
/// no LISTEN, no session advisory lock (the leader holds a lease row:
/// ``lead(as:for:)``).
public struct JobQueue<Kind: JobQueueKind>: Sendable {
    /// The database the jobs live in, whose pool and deadlines the queue's calls go through.
    public let database: PostgresDatabase

    /// The queue in `database`, which was migrated when it was opened.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// Inserts the jobs in one statement; a job whose unique key a live job
    /// holds is skipped. A job with `every` makes its list's schedule, or
    /// updates it, in the same transaction: its next run is `every` after this one.
    @discardableResult
    public func enqueue(_ jobs: [NewJob<Kind>]) async throws(StoreError) -> EnqueueResult {
        guard !jobs.isEmpty else { return EnqueueResult(new: 0, alreadyQueued: 0) }
        let rows = jobs.map { job in
            JobRow(
                kind: job.kind.rawValue, args: job.arguments, unique_key: job.uniqueKey, priority: job.priority,
                max_attempts: job.maxAttempts,
                every_seconds: job.every.map { max(1, $0) }, scheduled_at: job.scheduledAt?.timeIntervalSince1970,
                timeout_seconds: job.timeout)
        }
        let json = String(decoding: (try? JSONEncoder().encode(rows)) ?? Data("[]".utf8), as: UTF8.self)
        let (new, scheduled) = try await database.writing { [logger = database.logger] connection in
            let inserted = try await connection.query(
                """
                INSERT INTO jobs (kind, args, unique_key, priority, max_attempts, timeout_seconds, scheduled_at)
                SELECT r.kind, r.args::jsonb, r.unique_key, r.priority, r.max_attempts, r.timeout_seconds,
                       coalesce(to_timestamp(r.scheduled_at), now())
                FROM json_to_recordset(\(json)::json) AS \(unescaped: Self.recordColumns)
                ON CONFLICT (unique_key) WHERE state IN ('available', 'running', 'retryable') DO NOTHING
                RETURNING id
                """, logger: logger)
            let new = try await inserted.reduce(0) { count, _ in count + 1 }
            let schedules = try await connection.query(
                """
                INSERT INTO schedules (kind, args, unique_key, priority, max_attempts, timeout_seconds, every_seconds, next_at)
                SELECT DISTINCT ON (r.unique_key)
                       r.kind, r.args::jsonb, r.unique_key, r.priority, r.max_attempts, r.timeout_seconds, r.every_seconds,
                       coalesce(to_timestamp(r.scheduled_at), now()) + make_interval(secs => r.every_seconds)
                FROM json_to_recordset(\(json)::json) AS \(unescaped: Self.recordColumns)
                WHERE r.every_seconds IS NOT NULL AND r.unique_key IS NOT NULL
                ON CONFLICT (unique_key) DO UPDATE SET args = EXCLUDED.args, priority = EXCLUDED.priority,
                    max_attempts = EXCLUDED.max_attempts, timeout_seconds = EXCLUDED.timeout_seconds, every_seconds = EXCLUDED.every_seconds,
                    -- A new period starts from now; the same period keeps its anchor.
                    next_at = CASE WHEN schedules.every_seconds = EXCLUDED.every_seconds THEN schedules.next_at ELSE EXCLUDED.next_at END
                RETURNING id
                """, logger: logger)
            return (new, try await schedules.reduce(0) { count, _ in count + 1 })
        }
        return EnqueueResult(new: new, alreadyQueued: jobs.count - new, scheduled: scheduled)
    }

    /// Claims up to `limit` jobs whose time has come, highest priority first,
    /// and marks them running under `worker` in the same statement: a new
    /// fencing token each, the attempt counted, the lease `lease` seconds long.
    ///
    /// The statement is `hotelkit_claim` (schema version 6), one round trip.
    /// It reads `jobs_ready` in its order and stops after `limit` rows. Left
    /// to its statistics, the planner picks a bitmap scan and a sort of
    /// every ready job whenever they say few are ready: a fresh table, or
    /// one that the leader pruned and vacuum left empty before a burst of
    /// enqueues (a fleet's quiet hour). Each claim then costs as much as the
    /// whole backlog (16 ms at 20,000 ready, a drain at half the rate). No
    /// plan but the index's order avoids the sort, so the function turns
    /// sorts off for its own run (`SET enable_sort = off` on the function:
    /// PgBouncer-safe), which makes the plan the same on every server,
    /// whatever ANALYZE last saw.
    public func claim(worker: String, kinds: [Kind] = Array(Kind.allCases), limit: Int, lease: Double) async throws(StoreError)
        -> [ClaimedJob<Kind>]
    {
        guard limit > 0 else { return [] }
        return try await database.writingOneStatement { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                SELECT id, kind, args, attempt, max_attempts, fence, timeout_seconds
                FROM hotelkit_claim(\(worker), \(kinds.map(\.rawValue)), \(limit), \(lease))
                """, logger: logger)
            var claimed: [ClaimedJob<Kind>] = []
            for try await (id, kind, arguments, attempt, maxAttempts, fence, timeout)
                in rows.decode((Int64, String, String, Int, Int, Int64, Double?).self)
            {
                guard let kind = Kind(rawValue: kind) else { continue }
                claimed.append(
                    ClaimedJob(
                        id: id, kind: kind, arguments: arguments, attempt: attempt, maxAttempts: maxAttempts,
                        fence: fence, timeout: timeout))
            }
            return claimed.sorted { $0.id < $1.id }
        }
    }

    /// Marks the job completed, and its list's schedule as refreshed now.
    /// False when the claim was taken over: the job is no longer this worker's.
    @discardableResult
    public func complete(_ lease: JobLease) async throws(StoreError) -> Bool {
        try await complete([lease]).contains(lease)
    }

    /// Completes many jobs in one statement (a worker batches what its runs
    /// finish meanwhile); returns the leases that still held. A completion
    /// already written under the same claim holds again, so one whose
    /// answer was lost can be retried.
    public func complete(_ leases: [JobLease]) async throws(StoreError) -> Set<JobLease> {
        guard !leases.isEmpty else { return [] }
        return try await database.writingOneStatement { [logger = database.logger] connection in
            let completed = try await connection.query(
                """
                WITH done AS (
                    UPDATE jobs SET state = 'completed', finalized_at = coalesce(finalized_at, now()), worker = NULL, lease_until = NULL,
                        crashes = 0
                    FROM unnest(\(leases.map(\.job)), \(leases.map(\.fence))) AS l (id, fence)
                    WHERE jobs.id = l.id AND jobs.fence = l.fence AND jobs.state IN ('running', 'completed')
                    RETURNING jobs.id, jobs.fence, jobs.kind, jobs.unique_key
                ), refreshed AS (
                    UPDATE schedules SET last_success_at = now() FROM done
                    WHERE schedules.unique_key = done.unique_key AND schedules.kind = done.kind
                )
                SELECT id, fence FROM done
                """, logger: logger)
            var held: Set<JobLease> = []
            for try await (id, fence) in completed.decode((Int64, Int64).self) { held.insert(JobLease(job: id, fence: fence)) }
            return held
        }
    }

    /// Records a failed attempt: `retryable` again after `retryIn` seconds,
    /// or `dead` when `permanent` or out of attempts; its list's schedule
    /// keeps the error. `countAttempt` false gives the attempt back (the
    /// supplier asked to be called later: HTTP 429 or 503 with
    /// `Retry-After`). Nil when the claim was taken over; otherwise the state the job is left in.
    @discardableResult
    public func fail(
        _ lease: JobLease, error: String, retryIn: Double, permanent: Bool = false,
        countAttempt: Bool = true
    ) async throws(StoreError) -> JobState? {
        try await database.writingOneStatement { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                WITH failed AS (
                    UPDATE jobs SET
                        attempt = CASE WHEN \(countAttempt) THEN attempt ELSE greatest(attempt - 1, 0) END,
                        state = CASE WHEN \(permanent) OR (\(countAttempt) AND attempt >= max_attempts) THEN 'dead' ELSE 'retryable' END,
                        finalized_at = CASE WHEN \(permanent) OR (\(countAttempt) AND attempt >= max_attempts) THEN now() END,
                        scheduled_at = now() + make_interval(secs => \(retryIn)),
                        last_error = \(error), worker = NULL, lease_until = NULL, crashes = 0
                    WHERE id = \(lease.job) AND fence = \(lease.fence) AND state = 'running'
                    RETURNING state, kind, unique_key
                ), noted AS (
                    UPDATE schedules SET last_error = \(error), last_error_at = now() FROM failed
                    WHERE schedules.unique_key = failed.unique_key AND schedules.kind = failed.kind
                )
                SELECT state FROM failed
                """, logger: logger)
            for try await state in rows.decode(String.self) { return JobState(rawValue: state) }
            return nil
        }
    }

    /// Puts jobs back to `available` without counting the attempt: a worker
    /// shutting down gives back what it could not finish. Returns how many it still held.
    @discardableResult
    public func release(_ leases: [JobLease]) async throws(StoreError) -> Int {
        guard !leases.isEmpty else { return 0 }
        return try await database.writingOneStatement { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                UPDATE jobs SET state = 'available', attempt = greatest(attempt - 1, 0), worker = NULL, lease_until = NULL
                FROM unnest(\(leases.map(\.job)), \(leases.map(\.fence))) AS l (id, fence)
                WHERE jobs.id = l.id AND jobs.fence = l.fence AND jobs.state = 'running'
                RETURNING jobs.id
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 }
        }
    }

    /// Renews the leases of the jobs a worker runs, all in one statement,
    /// however long each job takes, and the worker's own heartbeat. Returns
    /// the leases it still holds: a job missing from the answer was taken
    /// over or cancelled, and its run must stop.
    /// A worker the leader removed as gone (stopped past two leases, then
    /// resumed) is registered again.
    public func heartbeat(_ leases: [JobLease], lease: Double, worker: WorkerInfo<Kind>? = nil) async throws(StoreError) -> Set<JobLease> {
        try await database.writing { [logger = database.logger] connection in
            if let worker {
                try await Self.upsert(worker, starting: false, connection, logger: logger)
            }
            guard !leases.isEmpty else { return [] }
            let rows = try await connection.query(
                """
                UPDATE jobs SET lease_until = now() + make_interval(secs => \(lease))
                FROM unnest(\(leases.map(\.job)), \(leases.map(\.fence))) AS l (id, fence)
                WHERE jobs.id = l.id AND jobs.fence = l.fence AND jobs.state = 'running'
                RETURNING jobs.id, jobs.fence
                """, logger: logger)
            var held: Set<JobLease> = []
            for try await (id, fence) in rows.decode((Int64, Int64).self) { held.insert(JobLease(job: id, fence: fence)) }
            return held
        }
    }

    /// Records a worker as started (or started again under the same id), for `hotels jobs`.
    public func register(_ worker: WorkerInfo<Kind>) async throws(StoreError) {
        try await database.writing { [logger = database.logger] connection in
            try await Self.upsert(worker, starting: true, connection, logger: logger)
        }
    }

    /// The worker's row as it is now, its heartbeat now; `starting`, its start too.
    private static func upsert(_ worker: WorkerInfo<Kind>, starting: Bool, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO workers (id, host, pid, kinds, concurrency, lease_seconds) VALUES
                (\(worker.id), \(worker.host), \(worker.pid), \(worker.kinds.map(\.rawValue)), \(worker.concurrency), \(worker.lease))
            ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, kinds = EXCLUDED.kinds,
                concurrency = EXCLUDED.concurrency, lease_seconds = EXCLUDED.lease_seconds, heartbeat_at = now(),
                started_at = CASE WHEN \(starting) THEN now() ELSE workers.started_at END
            """, logger: logger)
    }

    /// Forgets a worker that stopped.
    public func unregister(_ id: String) async throws(StoreError) {
        try await database.writing { [logger = database.logger] connection in
            try await connection.query("DELETE FROM workers WHERE id = \(id)", logger: logger)
        }
    }

    /// A job as `enqueue` sends it, keyed as `json_to_recordset` reads it.
    private struct JobRow: Encodable {
        var kind: String
        var args: String
        var unique_key: String?
        var priority: Int
        var max_attempts: Int
        var every_seconds: Double?
        var scheduled_at: Double?
        var timeout_seconds: Double?
    }

    /// The columns of ``JobRow`` as `json_to_recordset` names them.
    private static var recordColumns: String {
        """
        r (kind text, args text, unique_key text, priority int, max_attempts int, every_seconds float8, scheduled_at float8, timeout_seconds float8)
        """
    }
}

extension PostgresHotelStore {
    /// Runs the lease's check in a write transaction: the job is still
    /// running under this fencing token, and it stays so until the
    /// transaction ends (the row is locked against a claim or a cancel).
    /// A claim taken over fails with ``/OfflineStore/StoreError/Kind-swift.enum/leaseLost``.
    static func checkLease(_ lease: JobLease, _ connection: PostgresConnection, logger: Logger, location: String) async throws {
        let rows = try await connection.query(
            """
            SELECT 1 FROM jobs WHERE id = \(lease.job) AND fence = \(lease.fence) AND state = 'running' FOR SHARE
            """, logger: logger)
        guard try await rows.reduce(0, { count, _ in count + 1 }) == 1 else {
            throw StoreError(
                path: location, reason: "\(lease) was taken over or cancelled: this worker's write was refused", kind: .leaseLost)
        }
    }
}
