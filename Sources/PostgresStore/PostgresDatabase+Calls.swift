import Foundation
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// Running statements: on a pooled connection, within the deadlines, tried
/// again on another when the connection was lost, every error a ``/OfflineStore/StoreError``.
extension PostgresDatabase {
    /// Runs `body` on a pooled connection. The wait for one is bounded by
    /// the connect timeout, and ends at once when the task is cancelled:
    /// the pool would otherwise wait for a server that is gone for as long
    /// as it is gone, through its own reconnection backoff. A connection
    /// handed out after the wait was given up is given back unused, so a
    /// write reported as failed never happens later. The call itself is
    /// bounded by the call timeout: past it, its connection is closed (a
    /// frozen one would never answer, nor fail) and the call fails.
    func withConnection<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let callTimeout = Self.callTimeoutOverride ?? Double(callTimeout)
        // A tighter deadline bounds the wait for a connection too: a heartbeat queued behind a frozen call has failed as surely.
        let waitTimeout = min(Double(connectTimeout), Self.callTimeoutOverride ?? .infinity)
        let wait = PoolWait<Result>(
            timeout: StoreFailure.noConnection(after: waitTimeout),
            callTimeout: callTimeout, noAnswer: StoreFailure.noAnswer(after: callTimeout))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // The continuation is held before the work starts: a pool that answers at once must find it.
                wait.begin(continuation)
                wait.track(
                    pooled: Task { [client] in
                        do {
                            wait.finish(
                                .success(
                                    try await client.withConnection { connection in
                                        guard wait.lease(connection) else { throw CancellationError() }
                                        // Handed out closed, it would lose the query (PoolWait.lease says how); another is asked for.
                                        // Closed again here, so that its close completes and the pool hears of it, rather than hand it out again.
                                        guard !connection.isClosed else {
                                            try? await connection.close()
                                            throw StoreFailure.closedUnanswered
                                        }
                                        return try await body(connection)
                                    }))
                        } catch {
                            wait.finish(.failure(error))
                        }
                    },
                    deadline: Task {
                        try? await Task.sleep(for: .seconds(waitTimeout))
                        wait.giveUp(cancelled: false)
                    })
            }
        } onCancel: {
            wait.giveUp(cancelled: true)
        }
    }

    /// Runs `body` in a transaction; one lost to a dropped connection is
    /// tried again on another: after a server restart or a
    /// `pg_terminate_backend`, the pool may hand out more than one connection that is already dead.
    func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await retryingLostConnections("mid-transaction (rolled back)") { try await self.attempt(body) }
    }

    /// Runs `call`, and again on another connection when its connection was
    /// lost under it (or a deadlock aborted it), for as long as the connect
    /// timeout: 50 ms apart, doubling to a second, which gives the pool time
    /// to hear of its closed connections (after a restart, every one of
    /// them) and open new ones.
    private func retryingLostConnections<Result>(_ when: String, _ call: () async throws -> Result) async throws -> Result {
        let deadline = ContinuousClock.now + .seconds(connectTimeout)
        var pause = Duration.milliseconds(50)
        while true {
            do {
                return try await call()
            } catch  where StoreFailure.isRetriable(error) && ContinuousClock.now + pause < deadline {
                logger.warning("store \(location): the connection was lost \(when); trying again")
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(1))
            }
        }
    }

    private func attempt<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await withConnection { [logger] connection in
                try await connection.withTransaction(logger: logger) { try await body($0) }
            }
        } catch let error as PostgresTransactionError {
            // The closure's or the commit's error says what happened; a failed rollback adds nothing.
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }

    /// Runs a read, with every error said as a ``/OfflineStore/StoreError``.
    func reading<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError)
        -> Result
    {
        try await outsideTransaction("under a read", body)
    }

    /// Runs a write transaction, with every error said as a ``/OfflineStore/StoreError``.
    @discardableResult
    func writing<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError)
        -> Result
    {
        do {
            return try await transaction(body)
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }

    /// Runs a write that `body` makes in one statement, which is a
    /// transaction of its own: one round trip, where ``writing(_:)`` adds
    /// `BEGIN` and `COMMIT`. For the fleet's busiest calls (a claim, a batch of
    /// completions), whose client and server share the CPU with the jobs.
    /// One lost to a dropped connection is tried again, as a transaction is,
    /// so the statement must hold when it landed before the loss (a
    /// completion holds again; a claim's jobs are rescued when its lease ends).
    @discardableResult
    func writingOneStatement<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result)
        async throws(StoreError) -> Result
    {
        try await outsideTransaction("under a write (one statement)", body)
    }

    private func outsideTransaction<Result: Sendable>(
        _ when: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    )
        async throws(StoreError) -> Result
    {
        do {
            return try await retryingLostConnections(when) { try await self.withConnection(body) }
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }
}
