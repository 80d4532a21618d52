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
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("hotels")
    }()

    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs `hotels`, or another program built beside it (an example), to its end.
    /// `environment` is added to this process's; `whileRunning` gets the
    /// running process (to send it a signal, say) before its output is read.
    /// A run longer than `timeLimit` seconds is killed.
    public static func run(_ arguments: [String], stdin: Data? = nil, program: String = "hotels", environment extra: [String: String] = [:],
                           timeLimit: Int = 600, whileRunning: ((Process) -> Void)? = nil) throws -> HotelsProcess {
        let process = Process()
        process.executableURL = executable.deletingLastPathComponent().appendingPathComponent(program)
        process.arguments = arguments
        process.currentDirectoryURL = Samples.root.deletingLastPathComponent()
        // Never the user's own cache: each test process gets a fresh one unless it names one.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = isolatedCacheHome
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        whileRunning?(process)
        // A child that outlives its limit is killed, so a hang fails its test with what the child said instead of stalling the run.
        let killed = PosixMutex(false)
        let watchdog = DispatchWorkItem { [process] in
            guard process.isRunning else { return }
            killed.withLock { $0 = true }
            kill(process.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(timeLimit), execute: watchdog)
        defer { watchdog.cancel() }
        // Both pipes are read at once: a child that fills one (a sanitizer's
        // report on stderr, say) while the other is read to its end would wait forever.
        let err = PosixMutex(Data())
        let stderrRead = DispatchGroup()
        DispatchQueue.global().async(group: stderrRead) { err.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        stderrRead.wait()
        process.waitUntilExit()
        var stderr = String(decoding: err.withLock { $0 }, as: UTF8.self)
        if killed.withLock({ $0 }) {
            stderr += "\n[test harness] killed after \(timeLimit) s\n"
        }
        return HotelsProcess(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: stderr)
    }
}

