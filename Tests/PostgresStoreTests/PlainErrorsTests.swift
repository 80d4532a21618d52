import Foundation
import Logging
import Testing

@testable import PostgresStore

/// postgres-nio's own log lines carry errors as Swift dumps; HotelKit's logger says them in plain words.
@Suite struct PlainErrorsTests {
    @Test(arguments: [
        (
            "PSQLError(code: connectionError, underlying: Connection errors: SingleConnectionFailure(target: [IPv4]127.0.0.1/127.0.0.1:1, "
                + "error: connection reset (error set): Connection refused) (errno: 111)))", "connection refused"
        ),
        (
            "ConnectionPoolError(base: _ConnectionPoolModule.ConnectionPoolError.Base.connectionCreationCircuitBreakerTripped)",
            "every attempt to connect failed for too long"
        ),
        (
            "DNS error: SocketAddressError.UnknownHost: Name or service not known (error -2) for host db.invalid, port 5432",
            "the host name was not found"
        ),
        ("the connection timed out", "the connection timed out"),
    ])
    func dumpsBecomeWords(_ dump: String, _ words: String) {
        #expect(PlainErrorsLogHandler.plainWords(dump) == words)
    }

    @Test func theBackgroundLoggerRewritesOnlyTheErrors() {
        let seen = Captured()
        let logger = Logger(label: "test") { _ in CapturingHandler(seen: seen) }.plainErrors
        logger.info("Connection creation failed", metadata: ["psql_error": "IOError(errno: 111)", "psql_connection_id": "3"])
        let metadata = seen.events.first?.metadata
        #expect(metadata?["psql_error"]?.description == "connection refused")
        #expect(metadata?["psql_connection_id"]?.description == "3")
        #expect(seen.events.first?.message.description == "Connection creation failed")
    }
}

private final class Captured: @unchecked Sendable {
    // Only the test's own thread logs to it.
    var events: [LogEvent] = []
}

private struct CapturingHandler: LogHandler {
    let seen: Captured
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { seen.events.append(event) }
}
