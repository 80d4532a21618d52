import Foundation
import OfflineStore
import PostgresNIO

/// A list's schedule: a run every `every` seconds, anchored to the clock.
public struct JobSchedule<Kind: JobQueueKind>: Sendable, Equatable {
    public var id: Int64
    public var kind: Kind
    /// The runs' arguments, a JSON object (for a list: its profile, endpoint, city…).
    public var arguments: String
    public var every: Double
    public var next: Date
    public var createdAt: Date
    public var lastSuccess: Date?
    public var lastError: String?
    public var lastErrorAt: Date?

    /// Not refreshed for more than two periods: the list shown is older than anyone expects.
    public var stale: Bool
    /// Since when the list has not been refreshed: its last success, or the schedule's start when it never was.
    public var staleSince: Date { lastSuccess ?? createdAt }
}

/// The queue at a glance, for `hotels jobs`.
public struct JobsOverview<Kind: JobQueueKind>: Sendable {
    public struct Worker: Sendable {
        public var info: WorkerInfo<Kind>
        public var startedAt: Date
        public var heartbeatAt: Date
        /// Jobs it holds now.
        public var running: Int
        /// Its heartbeat is older than two of its leases: killed, or its host is gone. The leader removes it later.
        public var gone: Bool
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
    public var byKind: [Kind: [JobState: Int]]
    public var workers: [Worker] = []
    /// Jobs completed in the last minute: the queue's throughput.
    public var completedLastMinute = 0
    /// How long the oldest job that could run has waited, in seconds; nil when none waits.
    public var oldestAvailableSeconds: Double?
    /// The most recent dead jobs, with their last error.
    public var dead: [DeadJob] = []
    /// Kinds that workers do not claim now.
    public var paused: [Kind] = []
    /// Scheduled lists not refreshed for more than two periods, the longest first.
    public var stale: [JobSchedule<Kind>] = []

    /// Jobs by state, every kind together; every state is present.
    public var counts: [JobState: Int] {
        var counts = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0, 0) })
        for states in byKind.values { counts.merge(states, uniquingKeysWith: +) }
        return counts
    }
}

extension JobQueue {
    /// Every schedule, stale ones first, then by next run.
    public func schedules() async throws(StoreError) -> [JobSchedule<Kind>] {
        try await schedules(where: "true")
    }

    /// Deletes a schedule: its list is no longer refreshed (a live run finishes). False when there was none.
    @discardableResult
    public func removeSchedule(_ id: Int64) async throws(StoreError) -> Bool {
        try await database.writing { [logger = database.logger] connection in
            try await connection.query("DELETE FROM schedules WHERE id = \(id) RETURNING id", logger: logger).reduce(0) { count, _ in
                count + 1
            } == 1
        }
    }

    /// How many scheduled lists are stale, and how long the oldest job that could run has waited (the fleet's gauges).
    public func freshness() async throws(StoreError) -> (stale: Int, oldestAvailableSeconds: Double) {
        try await database.reading { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                SELECT (SELECT count(*) FROM schedules WHERE \(unescaped: Self.staleCondition)),
                       coalesce(\(unescaped: Self.oldestAvailable), 0)
                """, logger: logger)
            for try await (stale, oldest) in rows.decode((Int, Double).self) { return (stale, oldest) }
            return (0, 0)
        }
    }

    /// How many jobs are in each state, by kind.
    public func counts() async throws(StoreError) -> [Kind: [JobState: Int]] {
        try await database.reading { [logger = database.logger] connection in
            let rows = try await connection.query("SELECT kind, state, count(*) FROM jobs GROUP BY kind, state", logger: logger)
            var counts: [Kind: [JobState: Int]] = [:]
            for try await (kind, state, count) in rows.decode((String, String, Int).self) {
                guard let kind = Kind(rawValue: kind), let state = JobState(rawValue: state) else { continue }
                counts[kind, default: [:]][state] = count
            }
            return counts
        }
    }

    /// What `hotels jobs` shows: counts, workers, throughput, the oldest wait, dead jobs, paused kinds, stale lists.
    public func overview(deadLimit: Int = 20) async throws(StoreError) -> JobsOverview<Kind> {
        var overview = JobsOverview(byKind: try await counts())
        overview.paused = try await pausedKinds()
        overview.stale = try await schedules(where: Self.staleCondition)
        return try await database.reading { [overview, logger = database.logger] connection in
            var overview = overview
            let workers = try await connection.query(
                """
                SELECT w.id, w.host, w.pid, w.kinds, w.concurrency, w.lease_seconds, extract(epoch FROM w.started_at)::float8,
                       extract(epoch FROM w.heartbeat_at)::float8, w.heartbeat_at < now() - make_interval(secs => 2 * w.lease_seconds), count(j.id)
                FROM workers w LEFT JOIN jobs j ON j.worker = w.id AND j.state = 'running'
                GROUP BY w.id ORDER BY w.started_at
                """, logger: logger)
            for try await (id, host, pid, kinds, concurrency, lease, started, heartbeat, gone, running)
                in workers.decode((String, String, Int, [String], Int, Double, Double, Double, Bool, Int).self)
            {
                overview.workers.append(
                    JobsOverview.Worker(
                        info: WorkerInfo(
                            id: id, host: host, pid: pid, kinds: kinds.compactMap(Kind.init(rawValue:)), concurrency: concurrency,
                            lease: lease),
                        startedAt: Date(timeIntervalSince1970: started), heartbeatAt: Date(timeIntervalSince1970: heartbeat),
                        running: running,
                        gone: gone))
            }
            let recent = try await connection.query(
                """
                SELECT (SELECT count(*) FROM jobs WHERE state = 'completed' AND finalized_at > now() - interval '1 minute'),
                       \(unescaped: Self.oldestAvailable)
                """, logger: logger)
            for try await (completed, oldest) in recent.decode((Int, Double?).self) {
                overview.completedLastMinute = completed
                overview.oldestAvailableSeconds = oldest
            }
            let dead = try await connection.query(
                """
                SELECT id, kind, args::text, attempt, coalesce(last_error, ''), extract(epoch FROM finalized_at)::float8
                FROM jobs WHERE state = 'dead' ORDER BY finalized_at DESC LIMIT \(deadLimit)
                """, logger: logger)
            for try await (id, kind, arguments, attempt, error, finalized) in dead.decode(
                (Int64, String, String, Int, String, Double?).self)
            {
                overview.dead.append(
                    JobsOverview.DeadJob(
                        id: id, kind: kind, arguments: arguments, attempts: attempt, lastError: error,
                        diedAt: finalized.map(Date.init(timeIntervalSince1970:))))
            }
            return overview
        }
    }

    /// How long the oldest job that could run has waited, in seconds; null when none waits.
    static var oldestAvailable: String {
        """
        (SELECT extract(epoch FROM now() - min(scheduled_at))::float8 FROM jobs WHERE state = 'available' AND scheduled_at <= now())
        """
    }

    /// A schedule whose list was last refreshed (or, never refreshed, made) more than two periods ago.
    static var staleCondition: String { "coalesce(last_success_at, created_at) < now() - make_interval(secs => 2 * every_seconds)" }

    private func schedules(where condition: String) async throws(StoreError) -> [JobSchedule<Kind>] {
        try await database.reading { [logger = database.logger] connection in
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT id, kind, args::text, every_seconds, extract(epoch FROM next_at)::float8, extract(epoch FROM created_at)::float8,
                               extract(epoch FROM last_success_at)::float8, last_error, extract(epoch FROM last_error_at)::float8,
                               \(Self.staleCondition)
                        FROM schedules WHERE \(condition)
                        ORDER BY \(Self.staleCondition) DESC, coalesce(last_success_at, created_at), next_at, id
                        """), logger: logger)
            var schedules: [JobSchedule<Kind>] = []
            let date = { (seconds: Double?) in seconds.map(Date.init(timeIntervalSince1970:)) }
            for try await (id, kind, arguments, every, next, created, success, error, errorAt, stale)
                in rows.decode((Int64, String, String, Double, Double, Double, Double?, String?, Double?, Bool).self)
            {
                guard let kind = Kind(rawValue: kind) else { continue }
                schedules.append(
                    JobSchedule(
                        id: id, kind: kind, arguments: arguments, every: every, next: Date(timeIntervalSince1970: next),
                        createdAt: Date(timeIntervalSince1970: created), lastSuccess: date(success), lastError: error,
                        lastErrorAt: date(errorAt), stale: stale))
            }
            return schedules
        }
    }
}
