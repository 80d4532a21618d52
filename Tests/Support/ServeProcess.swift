import Foundation

/// `hotels serve --port 0` as a child process, stopped when released.
public final class ServeProcess: Sendable {
    private let child: ChildProcess
    /// The SOAP endpoint, e.g. http://127.0.0.1:41234/soap.
    public let endpoint: String

    public init(_ arguments: [String] = []) throws {
        let process = Process()
        process.executableURL = HotelsProcess.executable
        process.arguments = ["serve", "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        child = try ChildProcess(starting: process)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line += byte
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"http://127\.0\.0\.1:\d+/soap"#, options: .regularExpression) else {
            child.signal(SIGKILL)
            throw CocoaError(.fileReadUnknown)
        }
        endpoint = String(text[range])
    }

    public var baseURL: String { String(endpoint.dropLast("/soap".count)) }

    deinit {
        child.signal(SIGTERM)
        if !child.endedBlocking(seconds: 10) { child.signal(SIGKILL) }
    }
}
