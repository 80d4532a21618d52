import Foundation

/// `hotels serve --port 0` as a child process, stopped when released.
public final class ServeProcess: Sendable {
    private let child: ChildProcess
    /// The SOAP endpoint, e.g. http://127.0.0.1:41234/soap.
    public let endpoint: String

    /// Starts `hotels serve` (`executable` stands in for `hotels` in the
    /// harness's own test). A child that has not said its endpoint after
    /// `startLimit` seconds is killed, and the test fails naming it rather than hanging:
    /// a wait on a thread of its own ends with no test's time limit.
    public init(_ arguments: [String] = [], startLimit: TimeInterval = 600, executable: URL = HotelsProcess.executable)
        async throws
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let child = try ChildProcess(starting: process)
        // The child takes a loaded machine's time to start: its first line is awaited off Swift concurrency's threads.
        let reader = output.fileHandleForReading
        let stuck = DispatchWorkItem { child.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + startLimit, execute: stuck)
        defer { stuck.cancel() }
        let text = try await onAThreadOfItsOwn {
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let byte = reader.readData(ofLength: 1)
                guard !byte.isEmpty else { break }
                line += byte
            }
            return String(decoding: line, as: UTF8.self)
        }
        guard let range = text.range(of: #"http://127\.0\.0\.1:\d+/soap"#, options: .regularExpression) else {
            child.signal(SIGKILL)
            throw ServeProcessError(firstLine: text)
        }
        self.child = child
        endpoint = String(text[range])
    }

    public var baseURL: String { String(endpoint.dropLast("/soap".count)) }

    /// Stops the child; its end is awaited on a thread of its own, since a
    /// `deinit` runs on whichever thread released the last reference.
    deinit {
        let child = child
        child.signal(SIGTERM)
        Thread.detachNewThread {
            if !child.endedBlocking(seconds: 10) { child.signal(SIGKILL) }
        }
    }
}

/// `hotels serve` ended, or was killed, before it said its endpoint.
public struct ServeProcessError: Error, CustomStringConvertible {
    public let firstLine: String
    public var description: String { "hotels serve said no endpoint (its first line: \"\(firstLine)\")" }
}
