import Foundation
import GRDB
import Locking
import Testing

@testable import OfflineStore

/// Two processes that open a new cache at once both migrate it. The CI run of
/// 2026-11-23 caught the second one failing with "table already exists".
@Suite("Migrating a store another connection is migrating")
struct MigrationRaceTests {
    @Test("a migration committed by another connection between our check and our write lock is not an error")
    func concurrentMigration() throws {
        let folder = temporaryFolder("migration-race")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("race.sqlite").path
        var migrator = DatabaseMigrator()
        migrator.registerMigration("create t") { db in try db.execute(sql: "CREATE TABLE t (x)") }

        let other = try DatabaseQueue(path: path)
        let interleaved = PosixMutex(false)
        let migrating = try DatabasePool(path: path)
        migrating.writeWithoutTransaction { db in
            // Just before our connection takes the write lock to run "create t",
            // having read that it is not applied, the other connection runs it.
            db.trace { event in
                guard case .statement(let statement) = event, statement.sql.hasPrefix("BEGIN IMMEDIATE"),
                    interleaved.withLock({ done in
                        defer { done = true }
                        return !done
                    })
                else { return }
                do {
                    try other.write { db in
                        try db.execute(sql: "CREATE TABLE t (x); INSERT INTO grdb_migrations VALUES ('create t')")
                    }
                } catch {
                    Issue.record(error, "the other connection could not migrate")
                }
            }
        }

        #expect(throws: Never.self) { try SQLiteHotelStore.migrate(migrating, with: migrator) }
        #expect(interleaved.withLock { $0 })
        #expect(try migrating.read { db in try migrator.hasCompletedMigrations(db) })
        #expect(try migrating.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 0)
    }
}
