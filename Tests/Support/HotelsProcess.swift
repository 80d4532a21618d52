import Dispatch
import Foundation
import Locking

/// Runs the built `hotels` binary, which sits beside the test bundle.
/// A cache folder for the `hotels` runs of this test process.
public let isolatedCacheHome = FileManager.default.temporaryDirectory
    .appendingPathComponent("hotelkit-tests-\(ProcessInfo.processInfo.processIdentifier)").path

public struct HotelsProcess {
    public static let executable: URL = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("hotels").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("hotels")
    }()

    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs `hotels`, or another program built beside it (an example), to its
    /// end; `environment` is added to this process's. `whileRunning` gets
    /// the running child (to send it a signal, say), on a thread of its own.
    /// A run longer than `timeLimit` seconds is killed.
    ///
    /// The output goes to files, read after the end: no pipe to drain while
    /// the child runs, and no thread of Swift concurrency's held by a wait.
    public static func run(
        _ arguments: [String], stdin: Data? = nil, program: String = "hotels", environment extra: [String: String] = [:],
        timeLimit: Int = 600, whileRunning: (@Sendable (ChildProcess) -> Void)? = nil
    ) async throws -> HotelsProcess {
        let running = try start(arguments, stdin: stdin, program: program, environment: extra)
        if let whileRunning { DispatchQueue.global().async { whileRunning(running.child) } }
        return try await running.finish(timeLimit: timeLimit)
    }

    /// Starts `hotels` (or `program` beside it, or the program at `executable`) as ``run`` does, and leaves it
    /// running: its output files can be read meanwhile, and ``Running/finish(timeLimit:)`` waits for its end.
    public static func start(
        _ arguments: [String], stdin: Data? = nil, program: String = "hotels", executable: URL? = nil,
        environment extra: [String: String] = [:]
    ) throws -> Running {
        let process = Process()
        process.executableURL = executable ?? Self.executable.deletingLastPathComponent().appendingPathComponent(program)
        process.arguments = arguments
        process.currentDirectoryURL = Samples.root.deletingLastPathComponent()
        // Never the user's own cache: each test process gets a fresh one unless it names one.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = isolatedCacheHome
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-run-\(getpid())-\(UUID().uuidString)")
        let (input, output, errors) = (
            files.appendingPathExtension("in"), files.appendingPathExtension("out"), files.appendingPathExtension("err")
        )
        try (stdin ?? Data()).write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        return Running(child: try ChildProcess(starting: process), input: input, output: output, errors: errors)
    }

    /// A started child and the files its input and output go through.
    public struct Running: Sendable {
        public let child: ChildProcess
        public let input: URL, output: URL, errors: URL

        /// Waits for the end (killing a child that outlives `timeLimit` seconds), reads the output and removes the files.
        public func finish(timeLimit: Int = 600) async throws -> HotelsProcess {
            defer { [input, output, errors].forEach { try? FileManager.default.removeItem(at: $0) } }
            // A child that outlives its limit is killed, so a hang fails its test with what the child said instead of stalling the run.
            let killed = PosixMutex(false)
            let watchdog = DispatchWorkItem {
                guard !child.hasEnded else { return }
                killed.withLock { $0 = true }
                child.signal(SIGKILL)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(timeLimit), execute: watchdog)
            let end = await child.ended()
            watchdog.cancel()
            var stderr = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
            if killed.withLock({ $0 }) {
                stderr += "\n[test harness] killed after \(timeLimit) s\n"
            }
            return HotelsProcess(
                status: end.status, stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self), stderr: stderr)
        }
    }
}
