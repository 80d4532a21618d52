import Foundation
import Hotels
import Locking
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import OfflineStore
import PostgresNIO

/// One PostgreSQL database as HotelKit uses it: the connection pool, the
/// deadlines on every call, and the schema's migrations. What works on it
/// takes it, as GRDB's `DatabaseWriter` and river's driver stand apart from
/// their users: ``PostgresHotelStore`` (the lists, the logo index, the
/// catalogue) and ``JobQueue`` (the jobs) share one pool.
///
/// ```swift
/// let database = try await PostgresDatabase.open(try PostgresLocation(url: "postgres://hotels@db:5432/hotels"))
/// let store = PostgresHotelStore(database: database)
/// let queue = JobQueue<JobKind>(database: database)   // the Workers library's kinds
/// // …
/// await database.close()
/// ```
///
/// - Opening checks the server once (unreachable: `unavailable`, naming the
///   host and port; a refused password: `authentication`), then migrates
///   (``PostgresSchema``, under its lock) and starts a pool of `pool_size` connections.
/// - The deadlines: the server's (`statement_timeout`, `lock_timeout`,
///   `idle_in_transaction_session_timeout`) are set on every connection; the
///   client's `call_timeout` bounds every call, and a tighter one holds inside
///   ``withCallTimeout(_:_:)``; the connect timeout bounds every wait for a
///   pooled connection.
/// - Every call is plain SQL with bound parameters, one transaction a
///   write, with no session state kept between transactions and no named
///   prepared statement: it works behind PgBouncer in transaction mode.
/// - A connection lost mid-transaction rolls it back; it is tried again on
///   another connection for as long as the connect timeout, then reported.
///   Every error is said as a ``/OfflineStore/StoreError``.
public final class PostgresDatabase: Sendable {
    /// The server's URL without its password.
    public let location: String
    /// What the first open applied, for `hotels store migrate`.
    public let appliedMigrations: [PostgresSchema.Migration]
    /// The fields its `hotels` table keeps, each in a column of its own.
    public var fields: HotelFieldTable { statements.table }
    let statements: HotelStatements
    let client: PostgresClient
    let logger: Logger
    /// How long a call waits for a pooled connection, and how long a lost connection's call is tried again, in seconds.
    let connectTimeout: Int
    /// The URL's `call_timeout`: how long one call may take, in seconds.
    let callTimeout: Int
    /// The pool's run: cancelled, it closes every connection. It starts at ``open(_:fields:logger:)``, not as a
    /// service of a group: the schema is read and migrated, and one-shot commands run, with no group.
    private let running: Task<Void, Never>

    /// A tighter deadline for the calls made inside ``withCallTimeout(_:_:)``, in seconds.
    @TaskLocal static var callTimeoutOverride: Double?

    private init(
        location: String, client: PostgresClient, running: Task<Void, Never>, logger: Logger, connectTimeout: Int,
        callTimeout: Int, applied: [PostgresSchema.Migration], statements: HotelStatements
    ) {
        self.statements = statements
        self.location = location
        self.client = client
        self.running = running
        self.logger = logger
        self.connectTimeout = connectTimeout
        self.callTimeout = callTimeout
        appliedMigrations = applied
    }

    /// Runs `body` with every call in it, to any database, the store's and
    /// the queue's alike, given up after `seconds` (and its connection closed),
    /// where the URL's `call_timeout` would wait longer: a heartbeat that
    /// cannot land within a third of a lease is as good as failed.
    public static func withCallTimeout<Result>(_ seconds: Double, _ body: () async throws -> Result) async rethrows -> Result {
        try await $callTimeoutOverride.withValue(seconds, operation: body)
    }

    deinit { running.cancel() }

    /// Connects, migrates, and opens the pool. The store keeps `fields`: a column missing for one is added in place.
    public static func open(
        _ location: PostgresLocation, fields: HotelFieldTable = .standard, logger: Logger = Logger(label: "hotelkit.store")
    ) async throws(StoreError) -> PostgresDatabase {
        let shown = location.description
        let statements = fields == .standard ? HotelStatements.standard : HotelStatements(fields)
        do {
            let tls = try tls(location.tls)
            var configuration = PostgresClient.Configuration(
                host: location.host, port: location.port, username: location.user,
                password: location.password, database: location.database,
                tls: tls.client)
            configuration.options.maximumConnections = location.poolSize
            configuration.options.connectTimeout = .seconds(Int64(location.connectTimeout))
            configuration.options.additionalStartupParameters = location.serverDeadlines
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger.plainErrors)
            let running = running(client)
            // The pool's first connection is made while the probe below checks the schema, not after it:
            // a cold `hotels list` waits for one connection's start-up, not two in a row. It stays idle in the pool.
            let warming = Task { try? await client.withConnection { _ in } }
            do {
                // One connection of its own: a server that is down, or a refused password, is said at once, and the schema is readied.
                let applied = try await withConnection(to: location, tls: tls.connection, logger: logger) { connection in
                    try await PostgresSchema.migrate(connection, location: shown, statements: statements, logger: logger)
                }
                return PostgresDatabase(
                    location: shown, client: client, running: running, logger: logger,
                    connectTimeout: location.connectTimeout, callTimeout: location.callTimeout, applied: applied, statements: statements)
            } catch {
                warming.cancel()
                running.cancel()
                throw error
            }
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }

    /// Runs the pool, started at once on this thread up to its first wait, so
    /// that it counts as running before anyone asks it for a connection. A
    /// plain `Task` could start after the warming lease in ``open(_:fields:logger:)``,
    /// and postgres-nio then warns that `PostgresClient.run()` hasn't been
    /// called yet: in CI's logs, and a user's.
    static func running(_ client: PostgresClient) -> Task<Void, Never> {
        Task.immediate { await client.run() }
    }

    /// The schema's state, without changing it: for `hotels store status`.
    public static func status(_ location: PostgresLocation, logger: Logger = Logger(label: "hotelkit.store")) async throws(StoreError)
        -> PostgresSchema.Status
    {
        do {
            return try await withConnection(to: location, tls: try tls(location.tls).connection, logger: logger) {
                try await PostgresSchema.status($0, logger: logger)
            }
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }

    /// Runs `body` on a connection of its own, closed after it whatever happens.
    private static func withConnection<Result: Sendable>(
        to location: PostgresLocation, tls: PostgresConnection.Configuration.TLS,
        logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user,
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

    /// Ends the pool's connections: the store's and the queue's calls fail after it. Call it once, at the end;
    /// in a long-lived process, Runtime's `ProcessServices` does, through the runtime, after every service has stopped.
    ///
    /// The pool is waited for as long as a call may take, at most: postgres-nio's pool stops once every task it runs
    /// has ended, and a query written to a closing connection is never failed (see PoolWait), so a pool can wait for
    /// its end forever. A process told to stop would then never exit: a ThreadSanitizer rehearsal's test waited
    /// for a close with no connection left open, until the step's time ran out.
    public func close() async {
        running.cancel()
        if !(await Self.waited(for: running, atMost: .seconds(callTimeout))) {
            logger.warning(
                "store \(location): the connection pool had not stopped \(callTimeout) s after it was closed; left to stop by itself")
        }
    }

    /// Whether `task` ended within `limit`; one that has not is left as it is.
    static func waited(for task: Task<Void, Never>, atMost limit: Duration) async -> Bool {
        let waiter = PosixMutex<CheckedContinuation<Bool, Never>?>(nil)
        let answer = { @Sendable (ended: Bool) in waiter.withLock { $0.take() }?.resume(returning: ended) }
        return await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            let deadline = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                answer(false)
            }
            Task {
                await task.value
                deadline.cancel()
                answer(true)
            }
        }
    }

    private static func tls(_ mode: PostgresLocation.TLSMode) throws -> (
        connection: PostgresConnection.Configuration.TLS, client: PostgresClient.Configuration.TLS
    ) {
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
}
