import Foundation
import Hotels
import Imaging
import Locking
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import OfflineStore
import PostgresNIO

/// The shared store: the same lists, checkpoints and logo index as
/// ``/OfflineStore/SQLiteHotelStore``, in PostgreSQL, for many processes on many machines.
///
/// ```swift
/// let store = try await PostgresHotelStore.open(try PostgresLocation(url: "postgres://hotels@db:5432/hotels"))
/// defer { Task { await store.close() } }
/// let job = ListJob(client: client, storage: store, city: "Paris")
/// ```
///
/// - Opening checks the server once (unreachable: `unavailable`, naming the
///   host and port; a refused password: `authentication`), then migrates
///   (``PostgresSchema``) and starts a pool of `pool_size` connections.
/// - Every call is plain SQL with bound parameters, one transaction a
///   write, with no session state kept between transactions and no named
///   prepared statement: it works behind PgBouncer in transaction mode.
/// - A page and its checkpoint are written together: a load-more page in
///   one statement, anything else in one transaction. A connection lost
///   mid-transaction rolls it back; it is tried again on another
///   connection for as long as the connect timeout, then reported.
/// - Its logo index keeps each logo's bytes with its validators
///   (``/Imaging/SharedImageIndex``): a Logos `LogoPipeline` given the
///   store as its index serves the logos another machine processed, or
///   revalidates them with a 304, instead of downloading them again.
/// - Jobs live here too: ``JobQueue``, and ``fenced(by:)`` for a job's writes.
public final class PostgresHotelStore: HotelStorage, SharedImageIndex {
    /// The server's URL without its password.
    public let location: String
    /// What the first open applied, for `hotels store migrate`.
    public let appliedMigrations: [PostgresSchema.Migration]
    let client: PostgresClient
    let logger: Logger
    private let connectTimeout: Int
    private let callTimeout: Int
    private let running: Task<Void, Never>

    /// A tighter deadline for the calls made inside ``withCallTimeout(_:_:)``, in seconds.
    @TaskLocal private static var callTimeoutOverride: Double?

    private init(location: String, client: PostgresClient, running: Task<Void, Never>, logger: Logger, connectTimeout: Int,
                 callTimeout: Int, applied: [PostgresSchema.Migration]) {
        self.location = location
        self.client = client
        self.running = running
        self.logger = logger
        self.connectTimeout = connectTimeout
        self.callTimeout = callTimeout
        appliedMigrations = applied
    }

    /// Runs `body` with every store call in it given up after `seconds`
    /// (and its connection closed), where the URL's `call_timeout` would
    /// wait longer: a heartbeat that cannot land within a third of a lease
    /// is as good as failed.
    public static func withCallTimeout<Result>(_ seconds: Double, _ body: () async throws -> Result) async rethrows -> Result {
        try await $callTimeoutOverride.withValue(seconds, operation: body)
    }

    deinit { running.cancel() }

    /// Connects, migrates, and opens the pool.
    public static func open(_ location: PostgresLocation, logger: Logger = Logger(label: "hotelkit.store")) async throws(StoreError) -> PostgresHotelStore {
        let shown = location.description
        do {
            let tls = try tls(location.tls)
            var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                             password: location.password, database: location.database,
                                                             tls: tls.client)
            configuration.options.maximumConnections = location.poolSize
            configuration.options.connectTimeout = .seconds(Int64(location.connectTimeout))
            configuration.options.additionalStartupParameters = location.serverDeadlines
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger.plainErrors)
            let running = Task { await client.run() }
            // The pool's first connection is made while the probe below checks the schema, not after it:
            // a cold `hotels list` waits for one connection's start-up, not two in a row. It stays idle in the pool.
            let warming = Task { try? await client.withConnection { _ in } }
            do {
                // One connection of its own: a server that is down, or a refused password, is said at once, and the schema is readied.
                let applied = try await withConnection(to: location, tls: tls.connection, logger: logger) { connection in
                    try await PostgresSchema.migrate(connection, location: shown, logger: logger)
                }
                return PostgresHotelStore(location: shown, client: client, running: running, logger: logger,
                                          connectTimeout: location.connectTimeout, callTimeout: location.callTimeout, applied: applied)
            } catch {
                warming.cancel()
                running.cancel()
                throw error
            }
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }

    /// The schema's state, without changing it: for `hotels store status`.
    public static func status(_ location: PostgresLocation, logger: Logger = Logger(label: "hotelkit.store")) async throws(StoreError) -> PostgresSchema.Status {
        do {
            return try await withConnection(to: location, tls: try tls(location.tls).connection, logger: logger) {
                try await PostgresSchema.status($0, logger: logger)
            }
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }

    /// Runs `body` on a connection of its own, closed after it whatever happens.
    private static func withConnection<Result: Sendable>(to location: PostgresLocation, tls: PostgresConnection.Configuration.TLS,
                                                         logger: Logger,
                                                         _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        var configuration = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                              password: location.password, database: location.database, tls: tls)
        configuration.options.connectTimeout = .seconds(Int64(location.connectTimeout))
        configuration.options.additionalStartupParameters = location.serverDeadlines
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger.plainErrors)
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Ends the pool's connections.
    public func close() async {
        running.cancel()
        _ = await running.value
    }

    private static func tls(_ mode: PostgresLocation.TLSMode) throws -> (connection: PostgresConnection.Configuration.TLS, client: PostgresClient.Configuration.TLS) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable:
            return (.disable, .disable)
        case .prefer, .require:
            // libpq's prefer and require encrypt without checking the certificate.
            configuration.certificateVerification = .none
            let context = try NIOSSLContext(configuration: configuration)
            return mode == .prefer ? (.prefer(context), .prefer(configuration)) : (.require(context), .require(configuration))
        case .verifyFull:
            return (.require(try NIOSSLContext(configuration: configuration)), .require(configuration))
        }
    }

    // MARK: Running statements

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
        let wait = PoolWait<Result>(timeout: StoreFailure.noConnection(after: waitTimeout),
                                    callTimeout: callTimeout, noAnswer: StoreFailure.noAnswer(after: callTimeout))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // The continuation is held before the work starts: a pool that answers at once must find it.
                wait.begin(continuation)
                wait.track(pooled: Task { [client] in
                    do {
                        wait.finish(.success(try await client.withConnection { connection in
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
                }, deadline: Task {
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
            } catch where StoreFailure.isRetriable(error) && ContinuousClock.now + pause < deadline {
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
    func reading<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
        try await outsideTransaction("under a read", body)
    }

    /// Runs a write transaction, with every error said as a ``/OfflineStore/StoreError``.
    @discardableResult
    func writing<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
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
    func writingOneStatement<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
        try await outsideTransaction("under a write (one statement)", body)
    }

    private func outsideTransaction<Result: Sendable>(_ when: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result)
        async throws(StoreError) -> Result {
        do {
            return try await retryingLostConnections(when) { try await self.withConnection(body) }
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }
}

/// One bounded wait for a pooled connection: whichever comes first of the
/// connection, the deadline and the caller's cancellation decides, once.
private final class PoolWait<Result: Sendable>: Sendable {
    private enum Phase {
        case waiting
        /// Handed a connection: only the body's own end (or its cancellation) counts now.
        case leased
        /// Resumed: what comes later is dropped.
        case ended
    }

    private struct State {
        var phase = Phase.waiting
        var continuation: CheckedContinuation<Result, any Error>?
        var pooled: Task<Void, Never>?
        var deadline: Task<Void, Never>?
        /// The call's own deadline, from the lease on.
        var callDeadline: Task<Void, Never>?
        /// A cancellation that came before ``begin``.
        var cancelledEarly = false
    }

    private let state = PosixMutex(State())
    private let timeout: any Error
    private let callTimeout: Double
    private let noAnswer: any Error

    init(timeout: any Error, callTimeout: Double, noAnswer: any Error) {
        self.timeout = timeout
        self.callTimeout = callTimeout
        self.noAnswer = noAnswer
    }

    func begin(_ continuation: CheckedContinuation<Result, any Error>) {
        let cancelledEarly = state.withLock { state in
            state.continuation = continuation
            return state.cancelledEarly
        }
        if cancelledEarly { giveUp(cancelled: true) }
    }

    /// The pooled call and the deadline, once started: what has ended by then is not waited for.
    func track(pooled: Task<Void, Never>, deadline: Task<Void, Never>) {
        let phase = state.withLock { state in
            state.pooled = pooled
            state.deadline = deadline
            return state.phase
        }
        if phase != .waiting { deadline.cancel() }
        if phase == .ended { pooled.cancel() }
    }

    /// Called with a connection in hand: false when the wait was given up,
    /// and the connection must go back unused. From now on the call's
    /// deadline runs: past it the connection is closed and the call fails.
    ///
    /// A connection that closes while the call runs ends it too, a moment
    /// later. postgres-nio writes a query to its channel without a promise,
    /// so a query written to a connection already closing (the pool can hand
    /// one out before it hears of the close: a terminated backend, or one
    /// this wait closed) is lost, never answered and never failed; nothing
    /// of it reached the server, so the call can be tried again on another.
    func lease(_ connection: PostgresConnection) -> Bool {
        // Looked at every quarter second rather than told by the connection's
        // closeFuture, which would keep a callback for every call a long-lived connection serves.
        let callDeadline = Task { [callTimeout] in
            let deadline = ContinuousClock.now + .seconds(callTimeout)
            while ContinuousClock.now < deadline {
                guard (try? await Task.sleep(for: min(.milliseconds(250), deadline - ContinuousClock.now))) != nil else { return }
                if connection.isClosed {
                    // Whatever the closed connection still owed is failed by now, unless it was lost.
                    guard (try? await Task.sleep(for: .seconds(Self.closedGrace))) != nil else { return }
                    return self.closedUnanswered()
                }
            }
            self.callExpired(connection)
        }
        let deadline = state.withLock { state -> Task<Void, Never>?? in
            guard state.phase == .waiting else { return .none }
            state.phase = .leased
            state.callDeadline = callDeadline
            return .some(state.deadline)
        }
        guard let deadline else {
            callDeadline.cancel()
            return false
        }
        deadline?.cancel()
        return true
    }

    /// How long a call may go on once its connection has closed, in seconds: its answer, had it one, came long before.
    static var closedGrace: Double { 0.5 }

    private func closedUnanswered() {
        endLease()?.resume(throwing: StoreFailure.closedUnanswered)
    }

    /// The call ran past its deadline: it fails now, and its connection is
    /// closed, which ends whatever still waits on it and keeps the pool from handing it out again.
    private func callExpired(_ connection: PostgresConnection) {
        guard let continuation = endLease() else { return }
        // The caller hears of it once the connection is closed, not before: its next call could otherwise be handed
        // this connection while the close is still on its way, and lose its query.
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { [noAnswer] _ in continuation.resume(throwing: noAnswer) }
    }

    /// Ends a call that holds a connection, once: the caller's continuation, or nil when the call had ended already.
    private func endLease() -> CheckedContinuation<Result, any Error>? {
        state.withLock { state in
            guard state.phase == .leased else { return nil }
            state.phase = .ended
            defer { state.continuation = nil }
            return state.continuation
        }
    }

    func finish(_ result: Swift.Result<Result, any Error>) {
        let ending = state.withLock { state -> (CheckedContinuation<Result, any Error>?, [Task<Void, Never>]) in
            let deadlines = [state.deadline, state.callDeadline].compactMap { $0 }
            guard state.phase != .ended else { return (nil, deadlines) }
            state.phase = .ended
            defer { state.continuation = nil }
            return (state.continuation, deadlines)
        }
        ending.1.forEach { $0.cancel() }
        ending.0?.resume(with: result)
    }

    /// The deadline passed, or the caller was cancelled. Still waiting, the
    /// wait ends now with the reason; with a connection leased, a
    /// cancellation goes on to the body and the deadline is ignored.
    func giveUp(cancelled: Bool) {
        let (continuation, pooled) = state.withLock { state -> (CheckedContinuation<Result, any Error>?, Task<Void, Never>?) in
            switch state.phase {
            case .waiting:
                guard let continuation = state.continuation else {
                    state.cancelledEarly = state.cancelledEarly || cancelled
                    return (nil, nil)
                }
                state.phase = .ended
                state.continuation = nil
                return (continuation, state.pooled)
            case .leased:
                return (nil, cancelled ? state.pooled : nil)
            case .ended:
                return (nil, nil)
            }
        }
        pooled?.cancel()
        continuation?.resume(throwing: cancelled ? CancellationError() : timeout)
    }
}
