import Foundation
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// What a job does.
public enum JobKind: String, Sendable, Codable, CaseIterable {
    /// A whole list: its pages into the store (the list job).
    case list
    /// A page of a list's rows: their logos processed into the store's logo index.
    case logos
}

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
public struct NewJob: Sendable, Equatable {
    public var kind: JobKind
    /// The job's arguments, a JSON object, stored as they are.
    public var arguments: String
    /// At most one live job per key: for a list job, its profile, endpoint and list.
    public var uniqueKey: String?
    /// Higher runs first.
    public var priority: Int
    public var maxAttempts: Int
    /// Completed, the job is queued again this many seconds later: "keep it fresh".
    public var every: Double?
    /// Not before; now by default.
    public var scheduledAt: Date?

    public init(kind: JobKind, arguments: String, uniqueKey: String? = nil, priority: Int = 0, maxAttempts: Int = 5,
                every: Double? = nil, scheduledAt: Date? = nil) {
        self.kind = kind
        self.arguments = arguments
        self.uniqueKey = uniqueKey
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.every = every
        self.scheduledAt = scheduledAt
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
public struct WorkerInfo: Sendable, Equatable {
    /// Unique among workers: `host:pid`.
    public var id: String
    public var host: String
    public var pid: Int
    public var kinds: [JobKind]
    public var concurrency: Int

    public init(id: String, host: String, pid: Int, kinds: [JobKind], concurrency: Int) {
        self.id = id
        self.host = host
        self.pid = pid
        self.kinds = kinds
        self.concurrency = concurrency
    }
}

/// A job as a claim hands it to a worker.
public struct ClaimedJob: Sendable, Equatable {
    public var id: Int64
    public var kind: JobKind
    public var arguments: String
    /// This run's attempt, from 1.
    public var attempt: Int
    public var maxAttempts: Int
    public var fence: Int64
    public var every: Double?

    public var lease: JobLease { JobLease(job: id, fence: fence) }
}

/// How many jobs were inserted, and how many were already queued under their unique key.
public struct EnqueueResult: Sendable, Equatable {
    public var new: Int
    public var alreadyQueued: Int

    public init(new: Int, alreadyQueued: Int) {
        self.new = new
        self.alreadyQueued = alreadyQueued
    }
}

/// The job queue in the shared store, the way the best PostgreSQL queues
/// (river, graphile-worker, Que) keep one: each state change is one SQL
/// statement, claims take `FOR UPDATE SKIP LOCKED` so workers never wait on
/// each other, and leases are times on the server's clock, so the hosts'
/// clocks do not matter.
///
/// ```swift
/// let queue = JobQueue(store: store)
/// let jobs = try await queue.claim(worker: "host-1:4242", kinds: [.list], limit: 4, lease: 30)
/// for job in jobs {
///     // … run it through store.fenced(job.lease), which refuses writes once the claim is taken over …
///     try await queue.complete(job.lease)
/// }
/// ```
///
/// Every call works behind PgBouncer in transaction mode: no session state,
/// no LISTEN, no session advisory lock (the rescuer's is transaction-scoped).
public struct JobQueue: Sendable {
    public let store: PostgresHotelStore

    public init(store: PostgresHotelStore) {
        self.store = store
    }

    /// Inserts the jobs in one statement; a job whose unique key a live job holds is skipped.
    @discardableResult
    public func enqueue(_ jobs: [NewJob]) async throws(StoreError) -> EnqueueResult {
        guard !jobs.isEmpty else { return EnqueueResult(new: 0, alreadyQueued: 0) }
        let rows = jobs.map { job in
            JobRow(kind: job.kind.rawValue, args: job.arguments, unique_key: job.uniqueKey, priority: job.priority, max_attempts: job.maxAttempts,
                   every_seconds: job.every, scheduled_at: job.scheduledAt?.timeIntervalSince1970)
        }
        let json = String(decoding: (try? JSONEncoder().encode(rows)) ?? Data("[]".utf8), as: UTF8.self)
        let new = try await store.writing { [logger = store.logger] connection in
            let inserted = try await connection.query("""
                INSERT INTO jobs (kind, args, unique_key, priority, max_attempts, every_seconds, scheduled_at)
                SELECT r.kind, r.args::jsonb, r.unique_key, r.priority, r.max_attempts, r.every_seconds,
                       coalesce(to_timestamp(r.scheduled_at), now())
                FROM json_to_recordset(\(json)::json) AS r (kind text, args text, unique_key text, priority int, max_attempts int,
                                                            every_seconds float8, scheduled_at float8)
                ON CONFLICT (unique_key) WHERE state IN ('available', 'running', 'retryable') DO NOTHING
                RETURNING id
                """, logger: logger)
            return try await inserted.reduce(0) { count, _ in count + 1 }
        }
        return EnqueueResult(new: new, alreadyQueued: jobs.count - new)
    }

    /// Claims up to `limit` jobs whose time has come, highest priority first,
    /// and marks them running under `worker` in the same statement: a new
    /// fencing token each, the attempt counted, the lease `lease` seconds long.
    public func claim(worker: String, kinds: [JobKind] = JobKind.allCases, limit: Int, lease: Double) async throws(StoreError) -> [ClaimedJob] {
        guard limit > 0 else { return [] }
        return try await store.writing { [logger = store.logger] connection in
            let rows = try await connection.query("""
                WITH ready AS (
                    SELECT id FROM jobs
                    WHERE state IN ('available', 'retryable') AND scheduled_at <= now() AND kind = ANY(\(kinds.map(\.rawValue)))
                    ORDER BY priority DESC, scheduled_at, id
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE jobs SET state = 'running', attempt = jobs.attempt + 1, attempted_at = now(), worker = \(worker),
                    lease_until = now() + make_interval(secs => \(lease)), fence = jobs.fence + 1
                FROM ready WHERE jobs.id = ready.id
                RETURNING jobs.id, jobs.kind, jobs.args::text, jobs.attempt, jobs.max_attempts, jobs.fence, jobs.every_seconds
                """, logger: logger)
            var claimed: [ClaimedJob] = []
            for try await (id, kind, arguments, attempt, maxAttempts, fence, every)
                in rows.decode((Int64, String, String, Int, Int, Int64, Double?).self) {
                guard let kind = JobKind(rawValue: kind) else { continue }
                claimed.append(ClaimedJob(id: id, kind: kind, arguments: arguments, attempt: attempt, maxAttempts: maxAttempts,
                                          fence: fence, every: every))
            }
            return claimed.sorted { $0.id < $1.id }
        }
    }

    /// Marks the job completed; one with `every` is queued again for then,
    /// in the same transaction. False when the claim was taken over: the
    /// job is no longer this worker's.
    @discardableResult
    public func complete(_ lease: JobLease) async throws(StoreError) -> Bool {
        try await complete([lease]).contains(lease)
    }

    /// Completes many jobs in one statement (a worker batches what its runs
    /// finish meanwhile); returns the leases that still held. Jobs with
    /// `every` are queued again in the same transaction.
    public func complete(_ leases: [JobLease]) async throws(StoreError) -> Set<JobLease> {
        guard !leases.isEmpty else { return [] }
        return try await store.writing { [logger = store.logger] connection in
            let completed = try await connection.query("""
                UPDATE jobs SET state = 'completed', finalized_at = now(), worker = NULL, lease_until = NULL
                FROM unnest(\(leases.map(\.job)), \(leases.map(\.fence))) AS l (id, fence)
                WHERE jobs.id = l.id AND jobs.fence = l.fence AND jobs.state = 'running'
                RETURNING jobs.id, jobs.fence, jobs.every_seconds IS NOT NULL
                """, logger: logger)
            var held: Set<JobLease> = []
            var again: [Int64] = []
            for try await (id, fence, repeats) in completed.decode((Int64, Int64, Bool).self) {
                held.insert(JobLease(job: id, fence: fence))
                if repeats { again.append(id) }
            }
            if !again.isEmpty {
                try await connection.query("""
                    INSERT INTO jobs (kind, args, unique_key, priority, max_attempts, every_seconds, scheduled_at)
                    SELECT kind, args, unique_key, priority, max_attempts, every_seconds, now() + make_interval(secs => every_seconds)
                    FROM jobs WHERE id = ANY(\(again))
                    ON CONFLICT (unique_key) WHERE state IN ('available', 'running', 'retryable') DO NOTHING
                    """, logger: logger)
            }
            return held
        }
    }

    /// Records a failed attempt: `retryable` again after `retryIn` seconds,
    /// or `dead` when `permanent` or out of attempts. Nil when the claim
    /// was taken over; otherwise the state the job is left in.
    @discardableResult
    public func fail(_ lease: JobLease, error: String, retryIn: Double, permanent: Bool = false) async throws(StoreError) -> JobState? {
        try await store.writing { [logger = store.logger] connection in
            let rows = try await connection.query("""
                UPDATE jobs SET
                    state = CASE WHEN \(permanent) OR attempt >= max_attempts THEN 'dead' ELSE 'retryable' END,
                    finalized_at = CASE WHEN \(permanent) OR attempt >= max_attempts THEN now() END,
                    scheduled_at = now() + make_interval(secs => \(retryIn)),
                    last_error = \(error), worker = NULL, lease_until = NULL
                WHERE id = \(lease.job) AND fence = \(lease.fence) AND state = 'running'
                RETURNING state
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
        return try await store.writing { [logger = store.logger] connection in
            let rows = try await connection.query("""
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
    public func heartbeat(_ leases: [JobLease], lease: Double, worker: String? = nil) async throws(StoreError) -> Set<JobLease> {
        try await store.writing { [logger = store.logger] connection in
            if let worker {
                try await connection.query("UPDATE workers SET heartbeat_at = now() WHERE id = \(worker)", logger: logger)
            }
            guard !leases.isEmpty else { return [] }
            let rows = try await connection.query("""
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
    public func register(_ worker: WorkerInfo) async throws(StoreError) {
        try await store.writing { [logger = store.logger] connection in
            try await connection.query("""
                INSERT INTO workers (id, host, pid, kinds, concurrency) VALUES
                    (\(worker.id), \(worker.host), \(worker.pid), \(worker.kinds.map(\.rawValue)), \(worker.concurrency))
                ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, kinds = EXCLUDED.kinds,
                    concurrency = EXCLUDED.concurrency, started_at = now(), heartbeat_at = now()
                """, logger: logger)
        }
    }

    /// Forgets a worker that stopped.
    public func unregister(_ id: String) async throws(StoreError) {
        try await store.writing { [logger = store.logger] connection in
            try await connection.query("DELETE FROM workers WHERE id = \(id)", logger: logger)
        }
    }

    /// Returns running jobs whose lease expired to `retryable` (or `dead`
    /// when that was their last attempt); the attempt stays counted. Run by
    /// whichever caller takes the rescuer's lock first; the others return
    /// nil at once.
    public func rescue() async throws(StoreError) -> Int? {
        try await store.writing { [logger = store.logger] connection in
            let leader = try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.rescuerLock))", logger: logger)
                .decode(Bool.self).reduce(false) { $1 }
            guard leader else { return nil }
            let rows = try await connection.query("""
                UPDATE jobs SET
                    state = CASE WHEN attempt >= max_attempts THEN 'dead' ELSE 'retryable' END,
                    finalized_at = CASE WHEN attempt >= max_attempts THEN now() END,
                    last_error = 'the lease of ' || coalesce(worker, 'its worker') || ' expired', worker = NULL, lease_until = NULL,
                    scheduled_at = now()
                WHERE state = 'running' AND lease_until < now()
                RETURNING id
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 }
        }
    }

    /// Makes a dead, cancelled or retryable job available again with fresh attempts. False when it is running, queued or missing.
    @discardableResult
    public func retry(_ id: Int64) async throws(StoreError) -> Bool {
        try await retry(where: "id = \(id)") == 1
    }

    /// Makes every dead job available again; returns how many.
    @discardableResult
    public func retryDead() async throws(StoreError) -> Int {
        try await retry(where: "state = 'dead'")
    }

    private func retry(where condition: String) async throws(StoreError) -> Int {
        try await store.writing { [logger = store.logger] connection in
            // Only where the unique key is free: a list queued again meanwhile is not queued twice.
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                UPDATE jobs SET state = 'available', attempt = 0, scheduled_at = now(), finalized_at = NULL
                WHERE \(condition) AND state IN ('dead', 'cancelled', 'retryable', 'completed')
                  AND (unique_key IS NULL OR NOT EXISTS (
                      SELECT 1 FROM jobs live WHERE live.unique_key = jobs.unique_key AND live.id <> jobs.id
                        AND live.state IN ('available', 'running', 'retryable')))
                RETURNING id
                """), logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 }
        }
    }

    /// Cancels a job that has not ended. A running one's worker learns it at
    /// its next heartbeat or write, and stops. False when it had ended or is missing.
    @discardableResult
    public func cancel(_ id: Int64) async throws(StoreError) -> Bool {
        try await store.writing { [logger = store.logger] connection in
            let rows = try await connection.query("""
                UPDATE jobs SET state = 'cancelled', finalized_at = now(), worker = NULL, lease_until = NULL
                WHERE id = \(id) AND state IN ('available', 'running', 'retryable')
                RETURNING id
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 } == 1
        }
    }

    /// Deletes jobs that ended (completed, dead, cancelled) more than `seconds` ago; returns how many.
    @discardableResult
    public func prune(olderThan seconds: Double) async throws(StoreError) -> Int {
        try await store.writing { [logger = store.logger] connection in
            let rows = try await connection.query("""
                DELETE FROM jobs WHERE state IN ('completed', 'dead', 'cancelled')
                  AND finalized_at < now() - make_interval(secs => \(seconds))
                RETURNING id
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 }
        }
    }

    /// How many jobs are in each state, by kind.
    public func counts() async throws(StoreError) -> [JobKind: [JobState: Int]] {
        try await store.reading { [logger = store.logger] connection in
            let rows = try await connection.query("SELECT kind, state, count(*) FROM jobs GROUP BY kind, state", logger: logger)
            var counts: [JobKind: [JobState: Int]] = [:]
            for try await (kind, state, count) in rows.decode((String, String, Int).self) {
                guard let kind = JobKind(rawValue: kind), let state = JobState(rawValue: state) else { continue }
                counts[kind, default: [:]][state] = count
            }
            return counts
        }
    }

    /// What `hotels jobs` shows: counts, workers, throughput, the oldest wait, dead jobs.
    public func overview(deadLimit: Int = 20) async throws(StoreError) -> JobsOverview {
        let counts = try await counts()
        return try await store.reading { [logger = store.logger] connection in
            var overview = JobsOverview(byKind: counts)
            let workers = try await connection.query("""
                SELECT w.id, w.host, w.pid, w.kinds, w.concurrency, extract(epoch FROM w.started_at)::float8,
                       extract(epoch FROM w.heartbeat_at)::float8, count(j.id)
                FROM workers w LEFT JOIN jobs j ON j.worker = w.id AND j.state = 'running'
                GROUP BY w.id ORDER BY w.started_at
                """, logger: logger)
            for try await (id, host, pid, kinds, concurrency, started, heartbeat, running)
                in workers.decode((String, String, Int, [String], Int, Double, Double, Int).self) {
                overview.workers.append(JobsOverview.Worker(
                    info: WorkerInfo(id: id, host: host, pid: pid, kinds: kinds.compactMap(JobKind.init(rawValue:)), concurrency: concurrency),
                    startedAt: Date(timeIntervalSince1970: started), heartbeatAt: Date(timeIntervalSince1970: heartbeat), running: running))
            }
            let recent = try await connection.query("""
                SELECT count(*) FILTER (WHERE state = 'completed' AND finalized_at > now() - interval '1 minute'),
                       extract(epoch FROM now() - min(scheduled_at) FILTER (WHERE state = 'available' AND scheduled_at <= now()))::float8
                FROM jobs
                """, logger: logger)
            for try await (completed, oldest) in recent.decode((Int, Double?).self) {
                overview.completedLastMinute = completed
                overview.oldestAvailableSeconds = oldest
            }
            let dead = try await connection.query("""
                SELECT id, kind, args::text, attempt, coalesce(last_error, ''), extract(epoch FROM finalized_at)::float8
                FROM jobs WHERE state = 'dead' ORDER BY finalized_at DESC LIMIT \(deadLimit)
                """, logger: logger)
            for try await (id, kind, arguments, attempt, error, finalized) in dead.decode((Int64, String, String, Int, String, Double?).self) {
                overview.dead.append(JobsOverview.DeadJob(id: id, kind: kind, arguments: arguments, attempts: attempt, lastError: error,
                                                          diedAt: finalized.map(Date.init(timeIntervalSince1970:))))
            }
            return overview
        }
    }

    /// Any number, the same in every HotelKit: the lock whose holder rescues expired leases.
    static let rescuerLock: Int64 = 0x486F_7465_6C52_6573

    /// A job as `enqueue` sends it, keyed as `json_to_recordset` reads it.
    private struct JobRow: Encodable {
        var kind: String
        var args: String
        var unique_key: String?
        var priority: Int
        var max_attempts: Int
        var every_seconds: Double?
        var scheduled_at: Double?
    }
}

extension PostgresHotelStore {
    /// Runs the lease's check in a write transaction: the job is still
    /// running under this fencing token, and it stays so until the
    /// transaction ends (the row is locked against a claim or a cancel).
    /// A claim taken over fails with ``/OfflineStore/StoreError/Kind-swift.enum/leaseLost``.
    static func checkLease(_ lease: JobLease, _ connection: PostgresConnection, logger: Logger, location: String) async throws {
        let rows = try await connection.query("""
            SELECT 1 FROM jobs WHERE id = \(lease.job) AND fence = \(lease.fence) AND state = 'running' FOR SHARE
            """, logger: logger)
        guard try await rows.reduce(0, { count, _ in count + 1 }) == 1 else {
            throw StoreError(path: location, reason: "\(lease) was taken over or cancelled: this worker's write was refused", kind: .leaseLost)
        }
    }
}

/// The queue at a glance, for `hotels jobs`.
public struct JobsOverview: Sendable {
    public struct Worker: Sendable {
        public var info: WorkerInfo
        public var startedAt: Date
        public var heartbeatAt: Date
        /// Jobs it holds now.
        public var running: Int
    }

    public struct DeadJob: Sendable {
        public var id: Int64
        public var kind: String
        public var arguments: String
        public var attempts: Int
        public var lastError: String
        public var diedAt: Date?
    }

    /// Jobs by kind and state.
    public var byKind: [JobKind: [JobState: Int]]
    public var workers: [Worker] = []
    /// Jobs completed in the last minute: the queue's throughput.
    public var completedLastMinute = 0
    /// How long the oldest job that could run has waited, in seconds; nil when none waits.
    public var oldestAvailableSeconds: Double?
    /// The most recent dead jobs, with their last error.
    public var dead: [DeadJob] = []

    /// Jobs by state, every kind together; every state is present.
    public var counts: [JobState: Int] {
        var counts = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0, 0) })
        for states in byKind.values { counts.merge(states, uniquingKeysWith: +) }
        return counts
    }
}
