import Foundation

/// A PostgreSQL server of the tests' own, from Debian's packages: made with
/// `initdb` in a temporary folder, listening on a free loopback port with
/// its socket in that folder, started once per test process and torn down
/// when the process ends, however it ends (a watchdog stops the server and
/// removes the folder once the test process is gone).
///
/// PostgreSQL refuses to run as root, and CI runs as root: then the server
/// runs as Debian's `postgres` user. Where it cannot be started, ``shared()``
/// throws the reason, and the tests that need it fail: they never skip.
public final class TestPostgres: Sendable {
    /// The superuser and its password: host connections need the password (scram-sha-256).
    public static let user = "hotelkit"
    public static let password = "pg-test-secret-7f3a"

    public let folder: URL
    public let port: Int
    let bin: URL
    let runAs: String?

    /// The process's server, started on first use.
    public static func shared() async throws -> TestPostgres {
        try await started.value
    }

    /// Started once, off Swift concurrency's threads: initdb and pg_ctl take
    /// seconds, and every test that asked meanwhile would hold a thread.
    private static let started = Task { try await onAThreadOfItsOwn { try TestPostgres() } }

    private init() throws {
        guard let bin = Self.binFolder() else {
            throw TestPostgresError("PostgreSQL is not installed: make test installs Debian's postgresql package (scripts/ensure-deps)")
        }
        self.bin = bin
        runAs = getuid() == 0 ? "postgres" : nil
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "hotelkit-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let passwordFile = folder.appendingPathComponent("password")
        try Data(Self.password.utf8).write(to: passwordFile)
        if let runAs {
            try Self.run("/bin/chown", ["-R", runAs, folder.path])
        }
        let data = folder.appendingPathComponent("data")
        try Self.runTool(
            "initdb",
            [
                "-D", data.path, "-U", Self.user, "--pwfile=\(passwordFile.path)", "--auth-local=trust",
                "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C",
            ], bin: bin, runAs: runAs)
        try? FileManager.default.removeItem(at: passwordFile)
        try Self.watchdog(bin: bin, data: data, folder: folder, runAs: runAs)
        port = try Self.start(bin: bin, data: data, folder: folder, runAs: runAs)
    }

    /// Starts the server on a free port and returns it. A port found free can be taken by another
    /// process before the server binds it (a test's child server, under load): then another is tried.
    private static func start(bin: URL, data: URL, folder: URL, runAs: String?) throws -> Int {
        let log = folder.appendingPathComponent("server.log")
        var attempt = 1
        while true {
            let port = try freePort()
            do {
                try runTool(
                    "pg_ctl",
                    [
                        "-D", data.path, "-l", log.path, "-w", "-t", "60", "-o",
                        "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=\(maxConnections)",
                        "start",
                    ], bin: bin, runAs: runAs)
                return port
            } catch {
                let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                guard said.contains("Address already in use"), attempt < 5 else { throw error }
                attempt += 1
            }
        }
    }

    /// Every suite starts at once, and each test's store and `hotels` process opens a pool of up to 10: a fresh
    /// clone's run of session 35 met "too many clients" at 200, with each test's pools closed when it ends.
    static let maxConnections = 500

    /// A new, empty database; its URL, password included.
    public func makeDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        _ = try await onAThreadOfItsOwn {
            try self.runTool("createdb", ["-h", self.folder.path, "-p", String(self.port), "-U", Self.user, name])
        }
        return url(database: name)
    }

    /// A connection may take a loaded machine's time (a sanitizer's build, every test at once): a minute, not the 10 s
    /// default. A call that gets no answer (postgres-nio loses a query written to a closing connection) is given up after
    /// 30 s, not 120, within a test's time limit. A test may append its own values (the last one counts).
    public func url(database: String, password: String? = TestPostgres.password, port: Int? = nil) -> String {
        "postgres://\(Self.user)\(password.map { ":" + $0 } ?? "")@127.0.0.1:\(port ?? self.port)/\(database)?sslmode=disable&connect_timeout=60&call_timeout=30"
    }

    /// Runs SQL as the superuser on `database` through psql's socket, for checks and faults.
    @discardableResult
    public func psql(_ sql: String, database: String) async throws -> String {
        try await onAThreadOfItsOwn { try self.psqlBlocking(sql, database: database) }
    }

    /// Runs a file of SQL (a `pg_dump`) as the superuser on `database`, stopping at the first error.
    @discardableResult
    public func psql(file: URL, database: String) async throws -> String {
        try await onAThreadOfItsOwn {
            try self.runTool(
                "psql",
                [
                    "-h", self.folder.path, "-p", String(self.port), "-U", Self.user, "-d", database, "-X", "-q",
                    "-v", "ON_ERROR_STOP=1", "-f", file.path,
                ])
        }
    }

    /// ``psql(_:database:)`` for a thread of a test's own, which may block.
    @discardableResult
    public func psqlBlocking(_ sql: String, database: String) throws -> String {
        try runTool(
            "psql",
            ["-h", folder.path, "-p", String(port), "-U", Self.user, "-d", database, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// Runs `sql` in a transaction of a session of its own that then stays
    /// open, holding its locks, as a worker stopped (SIGSTOP, a VM pause)
    /// mid-transaction does, until ``endHeldTransaction(_:database:)``.
    /// Returns once the locks are held; the session's name ends it.
    public func holdTransaction(_ sql: String, database: String) async throws -> String {
        let name = "hotelkit-held-\(UUID().uuidString.prefix(8))"
        let psqlPath = bin.appendingPathComponent("psql").path
        let arguments = [
            "-h", folder.path, "-p", String(port), "-U", Self.user, "-d", "dbname=\(database) application_name=\(name)", "-X",
            "-c", "BEGIN; \(sql); SELECT pg_sleep(3600);",
        ]
        _ = try Self.spawn((runAs.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [psqlPath] + arguments, output: "/dev/null")
        let asleep = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND wait_event = 'PgSleep'"
        let deadline = Date().addingTimeInterval(60)
        while try await psql(asleep, database: database).trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
            guard Date() < deadline else { throw TestPostgresError("the held transaction never started: \(sql)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return name
    }

    /// Ends a session ``holdTransaction(_:database:)`` left open: its transaction is rolled back.
    public func endHeldTransaction(_ name: String, database: String) async throws {
        try await psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'", database: database)
    }

    /// The database name in a URL this server made.
    public static func database(in url: String) -> String {
        URLComponents(string: url)?.path.split(separator: "/").first.map(String.init) ?? ""
    }

    @discardableResult
    func runTool(_ tool: String, _ arguments: [String]) throws -> String {
        try Self.runTool(tool, arguments, bin: bin, runAs: runAs)
    }

    @discardableResult
    private static func runTool(_ tool: String, _ arguments: [String], bin: URL, runAs: String?) throws -> String {
        let path = bin.appendingPathComponent(tool).path
        if let runAs {
            return try run("/usr/sbin/runuser", ["-u", runAs, "--", path] + arguments)
        }
        return try run(path, arguments)
    }

    /// Stops the server and removes the folder once this process is gone, whatever ends it.
    private static func watchdog(bin: URL, data: URL, folder: URL, runAs: String?) throws {
        let script = """
            while [ -e /proc/\(getpid()) ]; do sleep 1; done
            "\(bin.appendingPathComponent("pg_ctl").path)" -D "\(data.path)" -m immediate stop >/dev/null 2>&1
            rm -rf "\(folder.path)"
            """
        // Not a Foundation Process: one released while it runs upsets how Foundation reaps the next ones.
        let arguments = (runAs.map { ["/usr/sbin/runuser", "-u", $0, "--", "/bin/sh"] } ?? ["/bin/sh"]) + ["-c", script]
        _ = try spawn(arguments, output: "/dev/null")
    }

    private static func binFolder() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().lazy
            .map { root.appendingPathComponent("\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
    }

    /// A loopback port nothing listens on now: the kernel's pick for a socket bound to port 0.
    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestPostgresError("no socket for a free port") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw TestPostgresError("could not bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a program to its end. Its output goes to a file, not a pipe:
    /// `pg_ctl start` leaves a server running that would hold a pipe open.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputFile = NSTemporaryDirectory() + "hotelkit-pg-output-\(UUID().uuidString)"
        defer { unlink(outputFile) }
        let pid = try spawn([executable] + arguments, output: outputFile)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        // Exited normally with 0: WIFEXITED and WEXITSTATUS, which Swift cannot call.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw TestPostgresError(
                "\((executable as NSString).lastPathComponent) \(arguments.prefix(3).joined(separator: " ")) failed (status \(status)): \(text)"
            )
        }
        return text
    }

    /// Starts `arguments[0]` with standard input from /dev/null, its output
    /// appended to `output`, and no other descriptor of this process.
    private static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process's goes with it: a server that kept the
        // write end of a pipe another test's child writes to would keep that
        // test waiting for the pipe's end as long as the server runs. Swift
        // cannot call posix_spawn_file_actions_addclosefrom_np, so bash
        // closes them before it becomes the program.
        let closingOthers = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$@""#
        let arguments = ["/bin/bash", "-c", closingOthers, "bash"] + arguments
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard result == 0 else { throw TestPostgresError("cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        return pid
    }
}

public struct TestPostgresError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
