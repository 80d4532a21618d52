import Foundation
import Logging
import OfflineStore
import PostgresNIO

/// What the leader does (``/Workers/Maintenance`` runs it), each a statement
/// that waits on no row: schedules, rescue, pruning, workers gone.
extension JobQueue {
    /// Takes or keeps the leader's lease for `seconds`: true while `worker`
    /// is the leader. A row, not a session lock, so it holds behind
    /// PgBouncer in transaction mode; a leader that dies is replaced once its lease has passed.
    public func lead(as worker: String, for seconds: Double) async throws(StoreError) -> Bool {
        try await database.writing { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                INSERT INTO leader (name, holder, until) VALUES ('maintenance', \(worker), now() + make_interval(secs => \(seconds)))
                ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until,
                    elected_at = CASE WHEN leader.holder = EXCLUDED.holder THEN leader.elected_at ELSE now() END
                WHERE leader.holder = EXCLUDED.holder OR leader.until < now()
                RETURNING holder
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 } == 1
        }
    }

    /// Gives up the leader's lease, so another worker takes it at once.
    public func resign(_ worker: String) async throws(StoreError) {
        try await database.writing { [logger = database.logger] connection in
            try await connection.query("DELETE FROM leader WHERE name = 'maintenance' AND holder = \(worker)", logger: logger)
        }
    }

    /// Enqueues a run of every schedule whose time has come, through the
    /// unique key (a list never has two live jobs), whatever happened to
    /// its last run. The next run is anchored to the clock: the last
    /// scheduled time plus `every`, skipping the periods that passed while
    /// nobody ran this (a missed window enqueues once, not a burst).
    /// Returns the schedules that were due and the jobs enqueued.
    @discardableResult
    public func enqueueDue() async throws(StoreError) -> (due: Int, enqueued: Int) {
        try await database.writing { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                WITH due AS (
                    SELECT id FROM schedules WHERE next_at <= now() ORDER BY next_at FOR UPDATE SKIP LOCKED
                ), advanced AS (
                    UPDATE schedules s SET next_at = s.next_at
                        + make_interval(secs => s.every_seconds * (floor(extract(epoch FROM now() - s.next_at) / s.every_seconds) + 1))
                    FROM due WHERE s.id = due.id
                    RETURNING s.kind, s.args, s.unique_key, s.priority, s.max_attempts, s.timeout_seconds
                ), enqueued AS (
                    INSERT INTO jobs (kind, args, unique_key, priority, max_attempts, timeout_seconds)
                    SELECT kind, args, unique_key, priority, max_attempts, timeout_seconds FROM advanced
                    ON CONFLICT (unique_key) WHERE state IN ('available', 'running', 'retryable') DO NOTHING
                    RETURNING id
                )
                SELECT (SELECT count(*) FROM advanced), (SELECT count(*) FROM enqueued)
                """, logger: logger)
            for try await (due, enqueued) in rows.decode((Int, Int).self) { return (due, enqueued) }
            return (0, 0)
        }
    }

    /// What the rescuer did: jobs retryable again, and those it found dead, by kind.
    public struct Rescue: Sendable, Equatable {
        public var retryable: Int
        public var dead: [Kind]

        public init(retryable: Int, dead: [Kind]) {
            self.retryable = retryable
            self.dead = dead
        }

        public var count: Int { retryable + dead.count }
    }

    /// Returns running jobs whose lease expired to `retryable` after the
    /// same backoff as a failure (`base` doubling per attempt up to
    /// `maximum`, with jitter), or `dead` when that was their last attempt
    /// or their worker died on them `crashLimit` times in a row. The
    /// attempt stays counted. Rows another transaction holds (a stalled
    /// worker's page write) are skipped, never waited on: they are rescued
    /// on a later pass.
    public func rescue(backoffBase: Double = 5, backoffMaximum: Double = 3600, crashLimit: Int = 3) async throws(StoreError) -> Rescue {
        try await database.writing { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                WITH expired AS (
                    SELECT id FROM jobs WHERE state = 'running' AND lease_until < now() FOR UPDATE SKIP LOCKED
                ), rescued AS (
                    UPDATE jobs SET crashes = jobs.crashes + 1,
                        state = CASE WHEN jobs.attempt >= jobs.max_attempts OR jobs.crashes + 1 >= \(crashLimit) THEN 'dead' ELSE 'retryable' END,
                        finalized_at = CASE WHEN jobs.attempt >= jobs.max_attempts OR jobs.crashes + 1 >= \(crashLimit) THEN now() END,
                        last_error = CASE WHEN jobs.crashes + 1 >= \(crashLimit)
                            THEN 'its worker died on it ' || (jobs.crashes + 1) || ' times in a row (the lease of '
                                 || coalesce(jobs.worker, 'its worker') || ' expired)'
                            ELSE 'the lease of ' || coalesce(jobs.worker, 'its worker') || ' expired' END,
                        worker = NULL, lease_until = NULL,
                        scheduled_at = now() + make_interval(secs => least(\(backoffMaximum),
                            \(backoffBase) * power(2, least(greatest(jobs.attempt - 1, 0), 30))) * (0.5 + random() / 2))
                    FROM expired WHERE jobs.id = expired.id
                    RETURNING jobs.state, jobs.kind, jobs.unique_key, jobs.last_error
                ), noted AS (
                    -- The list's schedule says why its run ended, as a failure's does.
                    UPDATE schedules SET last_error = rescued.last_error, last_error_at = now() FROM rescued
                    WHERE schedules.unique_key = rescued.unique_key AND schedules.kind = rescued.kind
                )
                SELECT state, kind FROM rescued
                """, logger: logger)
            var rescue = Rescue(retryable: 0, dead: [])
            for try await (state, kind) in rows.decode((String, String).self) {
                if state == JobState.dead.rawValue, let kind = Kind(rawValue: kind) {
                    rescue.dead.append(kind)
                } else {
                    rescue.retryable += 1
                }
            }
            return rescue
        }
    }

    /// Removes workers whose last heartbeat is older than two of their
    /// leases plus `grace` seconds: killed with -9, their hosts gone. Until then `hotels jobs` shows them as gone.
    @discardableResult
    public func removeGoneWorkers(grace: Double = 3600) async throws(StoreError) -> Int {
        try await database.writing { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                DELETE FROM workers WHERE heartbeat_at < now() - make_interval(secs => 2 * lease_seconds + \(grace)) RETURNING id
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 }
        }
    }

    /// Deletes jobs that ended (completed, dead, cancelled) more than `seconds` ago; returns how many.
    @discardableResult
    public func prune(olderThan seconds: Double) async throws(StoreError) -> Int {
        try await database.writing { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                DELETE FROM jobs WHERE state IN ('completed', 'dead', 'cancelled')
                  AND finalized_at < now() - make_interval(secs => \(seconds))
                RETURNING id
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 }
        }
    }

    // MARK: What an operator does

    /// Workers claim nothing of these kinds until they are resumed; running jobs finish.
    public func pause(_ kinds: [Kind]) async throws(StoreError) {
        try await database.writing { [logger = database.logger] connection in
            try await connection.query(
                """
                INSERT INTO paused_kinds (kind) SELECT unnest(\(kinds.map(\.rawValue))) ON CONFLICT (kind) DO NOTHING
                """, logger: logger)
        }
    }

    public func resume(_ kinds: [Kind]) async throws(StoreError) {
        try await database.writing { [logger = database.logger] connection in
            try await connection.query("DELETE FROM paused_kinds WHERE kind = ANY(\(kinds.map(\.rawValue)))", logger: logger)
        }
    }

    public func pausedKinds() async throws(StoreError) -> [Kind] {
        try await database.reading { [logger = database.logger] connection in
            let rows = try await connection.query("SELECT kind FROM paused_kinds ORDER BY kind", logger: logger)
            return try await rows.decode(String.self).reduce(into: []) { kinds, kind in Kind(rawValue: kind).map { kinds.append($0) } }
        }
    }

    /// Makes a dead, cancelled or retryable job available again with fresh attempts. False when it is running, queued or missing.
    @discardableResult
    public func retry(_ id: Int64) async throws(StoreError) -> Bool {
        try await retry(where: "id = \(id)") == 1
    }

    /// What ``retryDead()`` did: jobs retried (one a list), and lists left dead because they already have a live job.
    public struct RetryDead: Sendable, Equatable {
        public var retried: Int
        public var left: Int

        public init(retried: Int, left: Int) {
            self.retried = retried
            self.left = left
        }
    }

    /// Makes dead jobs available again: the latest of each list (unique
    /// key), unless the list has a live job already, in which case the list
    /// is counted as left. A list's older dead jobs stay as they are.
    public func retryDead() async throws(StoreError) -> RetryDead {
        try await database.writing { [logger = database.logger] connection in
            let left = try await connection.query(
                """
                SELECT count(DISTINCT unique_key) FROM jobs dead WHERE state = 'dead' AND EXISTS (
                    SELECT 1 FROM jobs live WHERE live.unique_key = dead.unique_key AND live.state IN ('available', 'running', 'retryable'))
                """, logger: logger
            ).decode(Int.self).reduce(0) { $1 }
            let retried = try await Self.retry(
                where: """
                    id IN (SELECT DISTINCT ON (coalesce(unique_key, id::text)) id FROM jobs WHERE state = 'dead'
                           ORDER BY coalesce(unique_key, id::text), finalized_at DESC NULLS LAST, id DESC)
                    """, connection, logger: logger)
            return RetryDead(retried: retried, left: left)
        }
    }

    private func retry(where condition: String) async throws(StoreError) -> Int {
        try await database.writing { [logger = database.logger] connection in
            try await Self.retry(where: condition, connection, logger: logger)
        }
    }

    private static func retry(where condition: String, _ connection: PostgresConnection, logger: Logger) async throws -> Int {
        // Only where the unique key is free: a list queued again meanwhile is not queued twice.
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE jobs SET state = 'available', attempt = 0, crashes = 0, scheduled_at = now(), finalized_at = NULL
                    WHERE \(condition) AND state IN ('dead', 'cancelled', 'retryable', 'completed')
                      AND (unique_key IS NULL OR NOT EXISTS (
                          SELECT 1 FROM jobs live WHERE live.unique_key = jobs.unique_key AND live.id <> jobs.id
                            AND live.state IN ('available', 'running', 'retryable')))
                    RETURNING id
                    """), logger: logger)
        return try await rows.reduce(0) { count, _ in count + 1 }
    }

    /// Cancels a job that has not ended. A running one's worker learns it at
    /// its next heartbeat or write, and stops. False when it had ended or is missing.
    @discardableResult
    public func cancel(_ id: Int64) async throws(StoreError) -> Bool {
        try await database.writing { [logger = database.logger] connection in
            let rows = try await connection.query(
                """
                UPDATE jobs SET state = 'cancelled', finalized_at = now(), worker = NULL, lease_until = NULL
                WHERE id = \(id) AND state IN ('available', 'running', 'retryable')
                RETURNING id
                """, logger: logger)
            return try await rows.reduce(0) { count, _ in count + 1 } == 1
        }
    }
}
