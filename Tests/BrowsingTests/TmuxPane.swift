import Foundation
import TestSupport

/// A tmux server of the test's own (its own socket, no configuration file)
/// with one pane running bash: keys go in with `send-keys`, the screen
/// comes out with `capture-pane`. The server is killed when the pane goes.
/// tmux must be installed: `make test` installs it, and without it the
/// tests fail rather than skip.
final class TmuxPane: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The shell's prompt, as capture-pane shows it (without its trailing space).
    static let prompt = "hk$"
    let folder: URL
    private let socket: String
    /// The tmux server's process, killed when the pane goes.
    private let server: pid_t

    init(columns: Int = 100, rows: Int = 30) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        socket = folder.appendingPathComponent("socket").path
        // A shell without rc files and with a prompt the tests know; UTF-8, so wide names are cells of their own.
        let shell = "env PS1='\(Self.prompt) ' LANG=C.UTF-8 bash --norc --noprofile"
        _ = try await Self.start([
            "-u", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y", String(rows), "-s", "test", shell,
        ])
        server =
            pid_t(try await Self.start(["-S", socket, "display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
        _ = try await waitFor("the shell's prompt") { $0.contains(Self.prompt) }
    }

    /// Before `server` is known: tmux on a thread of its own.
    private static func start(_ arguments: [String]) async throws -> String {
        try await onAThreadOfItsOwn { try run(arguments) }
    }

    deinit {
        if server > 0 { kill(server, SIGTERM) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs tmux with this pane's socket; its output. Throws when tmux fails.
    @discardableResult
    func tmux(_ arguments: [String]) async throws -> String {
        let socket = socket
        return try await onAThreadOfItsOwn { try Self.run(["-u", "-S", socket] + arguments) }
    }

    /// Runs tmux to its end with posix_spawn, its output in files. Not
    /// Foundation's Process: the server that new-session starts would
    /// inherit the descriptor Process watches for the child's end, and the
    /// wait would last as long as the server. Nor any other of ours: a
    /// server holding a child's pipe would hide that child's end too.
    private static func run(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-out-\(UUID().uuidString)").path
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-err-\(UUID().uuidString)").path
        defer {
            unlink(output)
            unlink(errors)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Every other descriptor is closed before tmux starts, so its server holds none of this process's.
        let closeAndRun =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null; exec /usr/bin/tmux "$@""#
        let argv = (["bash", "-c", closeAndRun, "tmux"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // A clean signal mask and default actions: a thread of Swift's blocks most signals, and a
        // tmux server that inherited that mask (and the shells and views under it) ignored SIGTERM and SIGHUP.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start tmux: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure(
                description: "tmux \(arguments.joined(separator: " ")): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        }
        return text
    }

    /// Types `line` at the prompt and presses Enter.
    func run(_ line: String) async throws {
        try await tmux(["send-keys", "-t", "test", "-l", line])
        try await tmux(["send-keys", "-t", "test", "Enter"])
    }

    /// Presses keys by tmux's names: `Down`, `PageDown`, `q`, `C-z`.
    func press(_ keys: String...) async throws {
        try await tmux(["send-keys", "-t", "test"] + keys)
    }

    /// The screen as text; with `escapes`, with its colours as SGR sequences.
    func screen(escapes: Bool = false) async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", "test"] + (escapes ? ["-e"] : []))
    }

    /// A tmux format of the pane, such as `#{alternate_on}`.
    func format(_ format: String) async throws -> String {
        try await tmux(["display-message", "-p", "-t", "test", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func resize(columns: Int, rows: Int) async throws {
        try await tmux(["resize-window", "-t", "test", "-x", String(columns), "-y", String(rows)])
    }

    /// Polls the screen until `isDone` holds; throws with the last screen
    /// when `timeout` passes. A wait for the program, not a timing assert.
    func waitFor(_ what: String, timeout: Duration = .seconds(60), _ isDone: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try await screen()
            if isDone(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "no \(what) on the screen in \(timeout); it shows:\n\(last)")
    }

    /// The process the shell runs in the foreground (`hotels browse`), if any.
    func foregroundProcess() async throws -> pid_t? {
        let shell = try await format("#{pane_pid}")
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// Whether the terminal is as the shell left it: the main screen, the
    /// cursor shown, no mouse reporting, and the line discipline cooked with echo.
    func checkRestored() async throws -> [String] {
        var problems: [String] = []
        if try await format("#{alternate_on}") != "0" { problems.append("still on the alternate screen") }
        if try await format("#{cursor_flag}") != "1" { problems.append("the cursor is hidden") }
        if try await format("#{mouse_any_flag}") != "0" { problems.append("mouse reporting is on") }
        let stty = folder.appendingPathComponent("stty-\(UUID().uuidString)").path
        try await run("stty -a > \(stty)")
        let deadline = ContinuousClock.now + .seconds(20)
        var settings = ""
        while settings.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            settings = (try? String(contentsOfFile: stty, encoding: .utf8)) ?? ""
        }
        let words = Set(settings.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        for setting in ["icanon", "echo", "isig", "icrnl", "opost"] where !words.contains(setting) {
            problems.append("stty shows -\(setting): \(words.contains("-" + setting) ? "off" : "not found")")
        }
        return problems
    }
}
