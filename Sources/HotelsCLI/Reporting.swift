import ArgumentParser
import Fetching
import Foundation
import Hotels
import Locking
import Logging
import Runtime
import SOAP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ExitStatus {
    var code: ExitCode { ExitCode(rawValue) }
}

/// Messages for people go to standard error, with the fix when one is known.
/// Every line passes the secrets of the command's client first.
enum Diagnostics {
    private static let secrets = PosixMutex<SecretRedactor?>(nil)

    /// From now on, everything printed is redacted with `redactor`.
    static func redact(with redactor: SecretRedactor) {
        secrets.withLock { $0 = redactor }
    }

    /// `text` as it may be shown: no secret the client knows.
    static func shown(_ text: String) -> String {
        secrets.withLock { $0 }?.redact(text) ?? text
    }

    static func error(_ message: String, hint: String? = nil) {
        write("hotels: error: \(message)\n")
        if let hint { write("hotels: hint: \(hint)\n") }
    }

    static func warning(_ message: String) {
        write("hotels: warning: \(message)\n")
    }

    /// What is happening, for a person watching.
    static func note(_ message: String) {
        write("hotels: \(message)\n")
    }

    private static func write(_ text: String) {
        writeAll(Array(shown(text).utf8), to: STDERR_FILENO)
    }

    /// Prints `error` with its context (if any) and the fix its ``ErrorMeaning`` knows;
    /// returns the exit status it maps to.
    static func report(_ error: any Error, context: String) -> ExitStatus {
        let meaning = ErrorMeaning(error)
        self.error(context.isEmpty ? "\(error)" : "\(context): \(error)", hint: meaning.hint)
        return meaning.status
    }
}

/// What the libraries log, on standard error in the tool's own words:
/// `hotels: warning: …` and `hotels: error: …`. Below warning, nothing,
/// so a person sees what needs attention and no chatter.
struct StandardErrorLogHandler: LogHandler {
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        switch event.level {
        case .error, .critical: Diagnostics.error(event.message.description)
        case .warning: Diagnostics.warning(event.message.description)
        default: Diagnostics.note(event.message.description)
        }
    }
}

/// Writes every byte, across partial writes and interrupted calls. A closed
/// pipe ends the process through SIGPIPE, as `hotels parse … | head` expects.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
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
final class StandardOutput {
    private var buffer: [UInt8] = []
    private let flushThreshold = 64 << 10

    init() {
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    func write(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= flushThreshold { flush() }
    }

    func write(line: String) {
        write { $0.append(contentsOf: line.utf8); $0.append(0x0A) }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        writeAll(buffer, to: STDOUT_FILENO)
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// `--warnings N|all`: how many warnings of each kind a person sees.
struct WarningOptions: ParsableArguments {
    @Option(name: .customLong("warnings"), help: "Warnings of each kind to print (then one line says how many more), or “all”.") var warnings = "10"

    /// Nil: every one.
    var perKind: Int? { warnings == "all" ? nil : Int(warnings) }

    func validate() throws {
        guard warnings == "all" || (Int(warnings) ?? -1) >= 0 else {
            throw ValidationError("--warnings takes a number of warnings per kind, or “all”, not “\(warnings)”")
        }
    }

    /// One line per kind whose warnings passed the cap: how many more there were.
    func reportSuppressed(_ byKind: [String: Int], context: String) {
        guard let cap = perKind else { return }
        for kind in RecordWarning.kinds {
            let more = byKind[kind, default: 0] - cap
            if more > 0 { Diagnostics.warning("\(context): \(more) more \(kind) warnings (--warnings all prints every one)") }
        }
    }
}

/// Limits every command that reads XML accepts.
struct XMLLimitOptions: ParsableArguments {
    @Option(help: "Deepest element nesting allowed.") var maxDepth = XMLReaderLimits().maxDepth
    @Option(help: "Longest text value or attribute, in bytes.") var maxText = XMLReaderLimits().maxTextLength
    @Option(help: "Largest document, in bytes.") var maxInput = XMLReaderLimits().maxInputBytes

    var limits: XMLReaderLimits {
        XMLReaderLimits(maxDepth: maxDepth, maxTextLength: maxText, maxInputBytes: maxInput)
    }

    func validate() throws {
        guard maxDepth > 0, maxText > 0, maxInput > 0 else {
            throw ValidationError("limits must be positive")
        }
    }
}

extension Interruption {
    /// The shell's exit status for the signal that interrupted the work, if one did.
    var exitCode: ExitCode? { exitStatus.map { ExitCode($0) } }
}

/// Runs `work` until it ends or SIGINT/SIGTERM cancels it, then closes `runtime`, which logs its sessions out.
/// An interrupted run says `interrupted` and exits 128 + the signal's number; an error is reported in `context`.
func interruptible<T: Sendable>(closing runtime: HotelRuntime, context: String, interrupted: String? = nil,
                                _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let interruption = Interruption()
    let outcome = await interruption.run(work)
    await runtime.close()
    if let code = interruption.exitCode {
        if let interrupted { Diagnostics.note(interrupted) }
        throw code
    }
    return try reported(context) { try outcome.get() }
}

/// `body`'s value; its error reported in `context` and thrown as its exit code (an exit code passes as it is).
func reported<T>(_ context: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let code as ExitCode {
        throw code
    } catch {
        throw Diagnostics.report(error, context: context()).code
    }
}

/// ``reported(_:_:)`` for asynchronous work.
func reported<T>(_ context: @autoclosure () -> String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let code as ExitCode {
        throw code
    } catch {
        throw Diagnostics.report(error, context: context()).code
    }
}
