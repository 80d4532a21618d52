import Foundation

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
    public static func run(_ arguments: [String], stdin: Data? = nil, program: String = "hotels", environment extra: [String: String] = [:],
                           whileRunning: ((Process) -> Void)? = nil) throws -> HotelsProcess {
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
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return HotelsProcess(status: process.terminationStatus,
                             stdout: String(decoding: out, as: UTF8.self),
                             stderr: String(decoding: err, as: UTF8.self))
    }
}

