import Foundation
import Hotels
import Logging
import OfflineStore
import PostgresNIO

/// The shared store's schema: versioned, forward-only migrations, each a
/// list of statements run in one transaction with its version row.
///
/// Migrating takes a transaction-scoped advisory lock, so ten processes
/// starting at once against an empty database migrate it once, and so it
/// works behind PgBouncer in transaction mode (a session lock would not).
/// A database whose newest version is unknown here was written by a newer
/// HotelKit: it is refused, never altered.
public enum PostgresSchema {
    public struct Migration: Sendable {
        public var version: Int
        public var name: String
        var statements: [String]
    }

    /// The SQLSTATE of `hotelkit_refuse`: a statement that undid itself on purpose.
    static let refusedState = "HK001"

    /// The newest version this HotelKit knows.
    public static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// What a database holds: its version, and each applied migration.
    public struct Status: Sendable, Equatable {
        public var version: Int
        /// Version, name and when it was applied, oldest first.
        public var applied: [(version: Int, name: String, appliedAt: Date)]
        public var latestKnown: Int { PostgresSchema.latestVersion }
        /// Migrations this HotelKit would apply.
        public var pending: [Migration] { PostgresSchema.migrations.filter { $0.version > version } }
        /// Written by a newer HotelKit.
        public var isNewer: Bool { version > latestKnown }

        public static func == (lhs: Status, rhs: Status) -> Bool {
            lhs.version == rhs.version && lhs.applied.map(\.version) == rhs.applied.map(\.version)
        }
    }

    /// Any number, the same in every HotelKit: the lock that serialises migrations.
    static let migrationLock: Int64 = 0x486F_74656C_4B6974

    static let versionTable = """
        CREATE TABLE IF NOT EXISTS hotelkit_schema (
            version integer PRIMARY KEY,
            name text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    static func status(_ connection: PostgresConnection, logger: Logger) async throws -> Status {
        let exists = try await connection.query("SELECT to_regclass('hotelkit_schema') IS NOT NULL", logger: logger)
            .decode(Bool.self).reduce(false) { $1 }
        guard exists else { return Status(version: 0, applied: []) }
        var applied: [(Int, String, Date)] = []
        let rows = try await connection.query("SELECT version, name, applied_at FROM hotelkit_schema ORDER BY version", logger: logger)
        for try await (version, name, appliedAt) in rows.decode((Int, String, Date).self) { applied.append((version, name, appliedAt)) }
        return Status(version: applied.last?.0 ?? 0, applied: applied)
    }

    /// Applies what is missing; returns the migrations applied (none when
    /// another process got there first). Then gives `hotels` a column for any
    /// field of its table it lacks, as SQLite's store does when opened,
    /// and makes the load-more function of these fields (``LoadMoreFunction``)
    /// when missing: a new field is an entry in that table, and needs no migration.
    static func migrate(_ connection: PostgresConnection, location: String, statements: HotelStatements, logger: Logger) async throws
        -> [Migration]
    {
        let before = try await status(connection, logger: logger)
        try refuseNewer(before, location: location)
        var applied: [Migration] = []
        if !before.pending.isEmpty {
            applied = try await underMigrationLock(connection, logger: logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: versionTable), logger: logger)
                // Under the lock: what another process applied meanwhile is not applied again.
                let current = try await status(connection, logger: logger)
                try refuseNewer(current, location: location)
                for migration in current.pending {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO hotelkit_schema (version, name) VALUES (\(migration.version), \(migration.name))",
                        logger: logger)
                }
                return current.pending
            }
        }
        let additions = try await fieldTableAdditions(connection, statements, logger: logger)
        if !additions.isEmpty {
            try await underMigrationLock(connection, logger: logger) { connection in
                for statement in additions { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            }
        }
        return applied
    }

    /// What the field table needs that the schema lacks, as the statements that add it, found in one round trip:
    /// a column for each field `hotels` lacks, and the load-more function of these fields (``LoadMoreFunction``).
    static func fieldTableAdditions(_ connection: PostgresConnection, _ statements: HotelStatements, logger: Logger) async throws
        -> [String]
    {
        let rows = try await connection.query(
            """
            SELECT column_name, EXISTS (
                SELECT 1 FROM pg_proc WHERE proname = \(statements.loadMore.name) AND pronamespace = current_schema()::regnamespace
            )
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'hotels'
            """, logger: logger)
        var existing: Set<String> = []
        var hasLoadMoreFunction = false
        for try await (name, functionExists) in rows.decode((String, Bool).self) {
            existing.insert(name)
            hasLoadMoreFunction = functionExists
        }
        var additions: [String] = []
        let missing = statements.table.fields.filter { !existing.contains($0.postgresColumn) }
        if !missing.isEmpty {
            let columns = missing.map { "ADD COLUMN IF NOT EXISTS \($0.postgresColumn) \($0.type.postgresType)" }
            additions.append("ALTER TABLE hotels " + columns.joined(separator: ", "))
        }
        if !hasLoadMoreFunction { additions.append(statements.loadMore.definition) }
        return additions
    }

    /// Runs `body` in a transaction holding the migration lock, however long another process holds it.
    @discardableResult
    private static func underMigrationLock<Result: Sendable>(
        _ connection: PostgresConnection, logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await connection.withTransaction(logger: logger) { connection in
            // Waiting out another process's migration, however long it takes, is the point: the connection's deadlines do not apply.
            try await connection.query("SET LOCAL lock_timeout = 0", logger: logger)
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            return try await body(connection)
        }
    }

    private static func refuseNewer(_ status: Status, location: String) throws(StoreError) {
        guard status.isNewer else { return }
        throw StoreError(
            path: location,
            reason: """
                its schema is version \(status.version), written by a newer HotelKit (this one knows up to \(latestVersion)); \
                it was left as it is
                """, kind: .newerSchema)
    }
}
