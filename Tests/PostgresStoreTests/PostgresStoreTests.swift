import Foundation
import Hotels
import OfflineStore
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// What only the shared store has: its URL, its migrations, its failures, and processes sharing it.
@Suite("The shared PostgreSQL store", .closingStores)
struct PostgresStoreTests {
    let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Shanghai")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "100", usedCursors: ["100"], end: nil)

    @Test("a store URL is read as libpq reads it: the URL's password, else PGPASSWORD, else ~/.pgpass; never printed")
    func location() throws {
        let url = "postgres://ana:s%3Acret@db.example:6543/hotels?sslmode=disable&pool_size=4"
        let location = try PostgresLocation(url: url, environment: [:])
        #expect(location.host == "db.example" && location.port == 6543 && location.user == "ana" && location.database == "hotels")
        #expect(location.password == "s:cret" && location.tls == .disable && location.poolSize == 4)
        #expect(location.description == "postgres://ana@db.example:6543/hotels")
        #expect(!PostgresLocation.withoutPassword(url).contains("cret"))
        // Every form libpq takes: ?password=, and %40 for an @ in it.
        #expect(try PostgresLocation(url: "postgres://ana@db/h?password=p%40ss%2Fw", environment: [:]).password == "p@ss/w")
        #expect(try PostgresLocation(url: "postgres://ana:p%40ss@db/h", environment: [:]).password == "p@ss")
        #expect(
            PostgresLocation.withoutPassword("postgres://ana@db/h?sslmode=disable&password=p%40ss")
                == "postgres://ana@db/h?sslmode=disable&password=***")
        #expect(PostgresLocation.withoutPassword("postgres://ana:p@ss@db/h") == "postgres://ana:***@db/h")
        // An @ in the query's password is not the user part's end.
        let queried = PostgresLocation.withoutPassword("postgres://hotels@db:5432/hotels?sslmode=bogus&password=s3cr@tXYZ")
        #expect(queried == "postgres://hotels@db:5432/hotels?sslmode=bogus&password=***")
        // The deadlines: the server's, sent with every connection, and the client's own.
        let deadlines = try PostgresLocation(url: "postgres://ana@db/h?statement_timeout=5&lock_timeout=0&call_timeout=7", environment: [:])
        #expect(
            deadlines.statementTimeout == 5 && deadlines.lockTimeout == 0 && deadlines.idleInTransactionTimeout == 60
                && deadlines.callTimeout == 7)

        let fromEnvironment = try PostgresLocation(
            url: "postgresql:///", environment: ["PGHOST": "h", "PGUSER": "u", "PGPASSWORD": "e-pw"])
        #expect(
            fromEnvironment.host == "h" && fromEnvironment.port == 5432 && fromEnvironment.database == "u"
                && fromEnvironment.password == "e-pw")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("pgpass")
        try Data("# comment\nother:*:*:*:no\ndb:6543:*:ana:pass\\:word\n*:*:*:*:fallback\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(try PostgresLocation(url: "postgres://ana@db:6543/x", environment: [:], passwordFile: file).password == "pass:word")
        #expect(try PostgresLocation(url: "postgres://bo@elsewhere/x", environment: [:], passwordFile: file).password == "fallback")
        // A file others can read is ignored, as libpq ignores it.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(try PostgresLocation(url: "postgres://ana@db:6543/x", environment: [:], passwordFile: file).password == nil)
    }

    @Test(
        "a malformed URL is a typed error that names it without its password",
        arguments: [
            "mysql://u:topsecret@h/d", "postgres://u:topsecret@h:99999/d", "postgres://u:topsecret@h/d/e",
            "postgres://u:topsecret@h/d?sslmode=maybe",
            "postgres://u:topsecret@h/d?pool_size=0", "postgres://u:top@secret@h/d", "postgres://u@h/d?password=topsecret&pool_size=x",
            "postgres://u:topsecret@h/d?call_timeout=0", "postgres://u:topsecret@h/d?lock_timeout=-1",
        ])
    func malformed(_ url: String) {
        #expect {
            try PostgresLocation(url: url, environment: [:])
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .invalidLocation && !error.description.contains("topsecret") && !error.description.contains("secret@")
        }
    }

    @Test("ten processes opening an empty database at once migrate it once")
    func migrateOnce() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let stores = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<10 {
                group.addTask { try await ClosingStores.open(url).appliedMigrations.map(\.name) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.filter { !$0.isEmpty }.count == 1)
        #expect(
            try await server.psql("SELECT count(*) FROM hotelkit_schema", database: TestPostgres.database(in: url)).trimmed
                == "\(PostgresSchema.latestVersion)")
        let status = try await PostgresDatabase.status(try PostgresLocation(url: url))
        #expect(status.version == PostgresSchema.latestVersion && status.pending.isEmpty && !status.isNewer)
    }

    @Test("a database of an older version is brought forward on open, its lists kept")
    func upgrade() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        try await PostgresHotelStore(database: try await ClosingStores.open(url)).mergeFirstPage(
            hotels([("A", 2), ("B", 1)]), into: key,
            checkpoint: checkpoint, now: Date())
        // As version 1 left it: the per-row foreign key, no job tables, no hotelkit_refuse.
        try await server.psql(
            """
            ALTER TABLE hotels ADD CONSTRAINT hotels_list_id_fkey FOREIGN KEY (list_id) REFERENCES lists (id) ON DELETE CASCADE;
            DROP TABLE jobs, workers, schedules, paused_kinds, leader; DROP FUNCTION hotelkit_refuse; DELETE FROM hotelkit_schema WHERE version > 1
            """, database: database)
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        #expect(store.database.appliedMigrations.map(\.version) == Array(2...PostgresSchema.latestVersion))
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil).map(\.code) == ["A", "B"])
        #expect(
            try await server.psql("SELECT count(*) FROM pg_constraint WHERE conname = 'hotels_list_id_fkey'", database: database).trimmed
                == "0")
    }

    @Test("a database written by a newer HotelKit is refused (configuration) and left as it is")
    func newerSchema() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        try await store.mergeFirstPage(hotels([("A", 1)]), into: key, checkpoint: checkpoint, now: Date())
        try await server.psql("INSERT INTO hotelkit_schema (version, name) VALUES (999, 'from the future')", database: database)
        await #expect {
            try await ClosingStores.open(url)
        } throws: { error in
            (error as? StoreError)?.kind == .newerSchema && "\(error)".contains("999")
        }
        #expect(try await server.psql("SELECT count(*) FROM hotels", database: database).trimmed == "1")
        let result = try await HotelsProcess.run(["store", "status", "--store", url])
        #expect(result.status == 78 && result.stdout.contains("newer HotelKit"))
        let fetch = try await HotelsProcess.run(["list", "--city", "Shanghai", "--store", url])
        #expect(fetch.status == 78, "\(fetch.stderr)")
    }

    @Test("failures have a kind and name the server, never the password: refused login, no server, no database")
    func failures() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let wrong = server.url(database: database, password: "wrong-secret-pw")
        await #expect { try await PostgresDatabase.open(try PostgresLocation(url: wrong)) } throws: { error in
            (error as? StoreError)?.kind == .authentication && !"\(error)".contains("wrong-secret-pw")
        }
        let port = try TestPostgres.freePort()
        let closed = server.url(database: database, port: port)
        // In plain words, as the operating system says it: no dump of NIO's error types (SingleConnectionFailure(target: …)).
        await #expect { try await PostgresDatabase.open(try PostgresLocation(url: closed)) } throws: { error in
            (error as? StoreError)?.kind == .unavailable
                && (error as? StoreError)?.reason == "cannot connect to 127.0.0.1:\(port): connection refused"
                && !"\(error)".contains(TestPostgres.password)
        }
        await #expect { try await PostgresDatabase.open(try PostgresLocation(url: server.url(database: "no_such_db"))) } throws: {
            error in
            (error as? StoreError)?.kind == .configuration
        }
        for (url, status) in [(wrong, Int32(77)), (closed, 69), ("postgres://x:pw-in-url@h/d?sslmode=nope", 64)] {
            let result = try await HotelsProcess.run(["list", "--city", "Paris", "--store", url])
            #expect(result.status == status, "\(result.stderr)")
            #expect(
                !result.stderr.contains("wrong-secret-pw") && !result.stderr.contains(TestPostgres.password)
                    && !result.stderr.contains("pw-in-url"))
            #expect(!result.stderr.contains("Error(") && !result.stderr.contains("Failure("), "\(result.stderr)")
        }
    }

    @Test("a statement the server refuses is a server error (74) with its SQLSTATE, not a file's")
    func refusedStatement() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        try await server.psql("ALTER TABLE lists DROP COLUMN hotel_count", database: TestPostgres.database(in: url))
        await #expect { try await store.cachedList(key) } throws: { error in
            (error as? StoreError)?.kind == .server && "\(error)".contains("SQLSTATE 42703")
        }
        let result = try await HotelsProcess.run(["list", "--city", "Shanghai", "--store", url])
        #expect(
            result.status == 74 && result.stderr.contains("hotels store status") && !result.stderr.contains("--cache"), "\(result.stderr)")
    }

    // Once in about six full runs (session 14, a CI rehearsal) the write after the drop never returned, and the
    // run hung with nothing running: the limit makes that a named failure. The cause is not known yet.
    // Session 21's ThreadSanitizer run found another way it failed: the pool handed the one-statement page a
    // connection the server had closed, and that page gave up rather than go the general way, which tries again.
    @Test(
        "a connection the server drops between transactions costs nothing: the next write goes through on a new one",
        // Hangs are what it catches; a sanitized build on a loaded machine takes its time.
        .timeLimit(.minutes(10)))
    func droppedConnection() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let store = PostgresHotelStore(database: try await ClosingStores.open(url))
        try await store.mergeFirstPage(hotels([("A", 3)]), into: key, checkpoint: checkpoint, now: Date())
        try await server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
            database: TestPostgres.database(in: url))
        #expect(try await store.appendPage(hotels([("B", 2), ("C", 1)]), to: key, checkpoint: checkpoint, now: Date()) == 2)
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil).map(\.code) == ["A", "B", "C"])
    }

    @Test(
        "while the database refuses connections a call ends at the connect timeout, or at once when cancelled, and writes nothing later",
        // Far below the patient store's hour, with a loaded machine's slack: every suite at once under a sanitizer took a
        // simple test of this suite past three minutes.
        .timeLimit(.minutes(10)))
    func refusedConnections() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        // Opening connects under the same 1 s limit, which a loaded machine can miss for a working server (5 tries in a
        // row missed it with AddressSanitizer and a CI rehearsal on 2 cores): tried until it opens, within the time limit.
        var opened: PostgresHotelStore?
        for _ in 0..<100 where opened == nil {
            opened = try? await PostgresHotelStore(database: ClosingStores.open(url + "&connect_timeout=1"))
        }
        let quick = try #require(opened)
        let patient = PostgresHotelStore(database: try await ClosingStores.open(url + "&connect_timeout=3600"))
        try await patient.mergeFirstPage(hotels([("A", 3)]), into: key, checkpoint: checkpoint, now: Date())
        try await server.psql("ALTER DATABASE \(database) WITH ALLOW_CONNECTIONS false", database: "postgres")
        try await server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'", database: "postgres")
        await #expect { try await quick.appendPage(hotels([("B", 2)]), to: key, checkpoint: checkpoint, now: Date()) } throws: { error in
            (error as? StoreError)?.kind == .unavailable
        }
        // An hour to connect, but the caller gives up: the pool's reconnection backoff is not waited for (the time limit says so).
        let waiting = Task { try await patient.cachedList(key) }
        waiting.cancel()
        await #expect(throws: (any Error).self) { try await waiting.value }
        try await server.psql("ALTER DATABASE \(database) WITH ALLOW_CONNECTIONS true", database: "postgres")
        let list = try #require(try await patient.cachedList(key))
        #expect(try await patient.hotels(in: list, limit: nil).map(\.code) == ["A"], "the abandoned page never lands")
    }

    @Test(
        "a call on a connection frozen mid-way (a failover that sent no reset) fails at the call timeout and gives the connection up; the next call works",
        // Hangs are what it catches; a sanitized build on a loaded machine takes its time.
        .timeLimit(.minutes(10)))
    func frozenConnection() async throws {
        let server = try await TestPostgres.shared()
        let database = TestPostgres.database(in: try await server.makeDatabase())
        let proxy = try FreezingProxy(targetPort: server.port)
        defer { proxy.close() }
        // The URL's deadline for every call, a caller's tighter one for the call that meets the frozen connection:
        // the call after it, on a new connection, may take a loaded machine's time.
        let url = server.url(database: database, port: proxy.port) + "&pool_size=1&call_timeout=30"
        let queue = JobQueue<TestKind>(database: try await ClosingStores.open(url))
        try await queue.enqueue([NewJob(kind: .list, arguments: "{}", uniqueKey: "Paris")])
        // The pool's one connection stops answering, and is never closed: without a deadline of the client's own, the call waits for ever.
        proxy.freeze()
        await #expect {
            try await PostgresDatabase.withCallTimeout(1) { try await queue.counts() }
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .unavailable && error.reason.hasPrefix("no answer from ")
                && error.reason.contains(" within 1 s; the connection was closed")
                && !error.description.contains(TestPostgres.password)
        }
        #expect(try await queue.counts()[.list]?[.available] == 1, "a new connection, through the proxy, which forwards new ones")
        await queue.database.close()
    }

    @Test(
        "every connection carries the server's deadlines: a write that meets a row locked by a stalled transaction gives up at lock_timeout",
        // Hangs are what it catches; a sanitized build on a loaded machine takes its time.
        .timeLimit(.minutes(10)))
    func serverDeadlines() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase() + "&lock_timeout=1"
        let database = TestPostgres.database(in: url)
        let queue = JobQueue<TestKind>(database: try await ClosingStores.open(url))
        try await queue.enqueue([NewJob(kind: .list, arguments: "{}", uniqueKey: "Paris")])
        let session = try await server.holdTransaction("SELECT 1 FROM jobs FOR UPDATE", database: database)
        await #expect {
            try await queue.cancel(1)
        } throws: { error in
            (error as? StoreError)?.kind == .server && (error as? StoreError)?.reason.contains("55P03") == true
        }
        try await server.endHeldTransaction(session, database: database)
        #expect(try await queue.cancel(1))
        await queue.database.close()
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
