import Failures
import Foundation
import Hotels
import Locking
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Messages for people go to standard error, with the fix when one is known:
/// `PROGRAM: error: …` and `PROGRAM: hint: …`. Every line passes the secrets
/// of the program's clients first.
///
/// ```swift
/// do { … } catch {
///     let status = Diagnostics.report(error, context: "fetch Paris")  // the error, its hint
///     exit(status.rawValue)                                           // and its sysexits status
/// }
/// ```
public enum Diagnostics {
    /// The name each line starts with: this program's file name.
    public static let program = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "hotelkit"
    private static let secrets = PosixMutex<SecretRedactor?>(nil)

    /// From now on, everything printed is redacted with `redactor`.
    public static func redact(with redactor: SecretRedactor) {
        secrets.withLock { $0 = redactor }
    }

    /// `text` as it may be shown: no secret the client knows.
    public static func shown(_ text: String) -> String {
        secrets.withLock { $0 }?.redact(text) ?? text
    }

    public static func error(_ message: String, hint: String? = nil) {
        write("\(program): error: \(message)\n")
        if let hint { write("\(program): hint: \(hint)\n") }
    }

    public static func warning(_ message: String) {
        write("\(program): warning: \(message)\n")
    }

    /// What is happening, for a person watching.
    public static func note(_ message: String) {
        write("\(program): \(message)\n")
    }

    private static func write(_ text: String) {
        writeAll(Array(shown(text).utf8), to: STDERR_FILENO)
    }

    /// Prints `error` with its context (if any) and the fix its ``ErrorMeaning`` knows;
    /// returns the exit status it maps to.
    public static func report(_ error: any Error, context: String) -> ExitStatus {
        let meaning = ErrorMeaning(error)
        self.error(context.isEmpty ? "\(error)" : "\(context): \(error)", hint: meaning.hint)
        return meaning.status
    }
}

/// What the libraries log, on standard error in the tool's own words:
/// `PROGRAM: warning: …` and `PROGRAM: error: …`. Below warning, nothing,
/// so a person sees what needs attention and no chatter.
public struct StandardErrorLogHandler: LogHandler {
    public var logLevel: Logger.Level = .warning
    public var metadata: Logger.Metadata = [:]

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        switch event.level {
        case .error, .critical: Diagnostics.error(event.message.description)
        case .warning: Diagnostics.warning(event.message.description)
        default: Diagnostics.note(event.message.description)
        }
    }
}

/// Writes every byte, across partial writes and interrupted calls. A closed
/// pipe ends the process through SIGPIPE, as `hotels parse … | head` expects.
public func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// Buffered standard output: records go out in large writes, not a call per line.
public final class StandardOutput {
    private var buffer: [UInt8] = []
    private let flushThreshold = 64 << 10

    public init() {
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    public func write(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= flushThreshold { flush() }
    }

    public func write(line: String) {
        write {
            $0.append(contentsOf: line.utf8)
            $0.append(0x0A)
        }
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        writeAll(buffer, to: STDOUT_FILENO)
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
