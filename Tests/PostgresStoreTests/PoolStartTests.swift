import Logging
import PostgresNIO
import TestSupport
import Testing

@testable import PostgresStore

/// The pool runs before its first lease: postgres-nio warns of a lease that comes first.
@Suite struct PoolStartTests {
    @Test("a lease asked for right after the pool is started finds it running, twenty times: no warning that run() was not called")
    func leaseRightAfterStart() async throws {
        let server = try await TestPostgres.shared()
        let location = try PostgresLocation(url: try await server.makeDatabase())
        let recorder = LogRecorder()
        let configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        // A pool started by a plain Task was not running yet at about half of these leases.
        for _ in 0..<20 {
            let client = PostgresClient(configuration: configuration, backgroundLogger: recorder.logger(label: "hotelkit.store"))
            let running = PostgresDatabase.running(client)
            try await client.withConnection { _ in }
            running.cancel()
            await running.value
        }
        #expect(!recorder.messages.contains { $0.contains("run()") })
    }
}
