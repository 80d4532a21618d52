import AtomicFiles
import Logging

/// postgres-nio's background messages (a connection that could not be made,
/// one that closed), with their errors in plain words. The library logs an
/// error as its Swift dump, `PSQLError(code: connectionError, underlying:
/// … SingleConnectionFailure(target: [IPv4]…, error: …) (errno: 111))`, which
/// no operator should have to read; this says `connection refused`.
struct PlainErrorsLogHandler: LogHandler {
    var wrapped: any LogHandler

    /// The metadata keys postgres-nio puts errors under.
    static let errorKeys = ["psql_error", "error"]

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        for key in Self.errorKeys {
            if let value = event.metadata?[key] { event.metadata?[key] = .string(Self.plainWords(value.description)) }
        }
        wrapped.log(event: event)
    }

    /// What a dumped error says, in the words of the operating system when it names an errno.
    static func plainWords(_ dump: String) -> String {
        if let match = dump.firstMatch(of: /errno: (\d+)/), let code = Int32(match.1) { return SystemErrorWords.of(errno: code) }
        if dump.contains("UnknownHost") { return "the host name was not found" }
        if dump.contains("connectionCreationCircuitBreakerTripped") { return "every attempt to connect failed for too long" }
        if dump.contains("serverClosedConnection") { return "the server closed the connection" }
        if dump.contains("poolShutdown") || dump.contains("poolClosed") { return "the connections are closed" }
        // Not a dump (no type's fields in parentheses): already words.
        return dump.contains("(") ? "the connection failed" : dump
    }
}

extension Logger {
    /// This logger, with postgres-nio's dumped errors said in plain words.
    var plainErrors: Logger {
        var logger = Logger(label: label) { [handler] _ in PlainErrorsLogHandler(wrapped: handler) }
        logger.logLevel = logLevel
        return logger
    }
}
