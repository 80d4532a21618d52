import Logging
import PostgresNIO
import TestSupport
import Testing

@testable import PostgresStore

/// The pool runs before its first lease (postgres-nio warns of a lease that comes first), and a close waits for it
/// to stop a call's time at most.
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

    /// postgres-nio's pool stops once every task it runs has ended, and a query lost on a closing connection never
    /// ends: a close that waited for it would never return (a rehearsal's test waited until the step's time ran out).
    @Test("a close waits for the pool a call's time at most: a task that has not ended is left, one that ends is seen")
    func closeWaitIsBounded() async {
        let endless = Task { _ = try? await Task.sleep(for: .seconds(3600)) }
        #expect(await PostgresDatabase.waited(for: endless, atMost: .milliseconds(20)) == false)
        endless.cancel()
        #expect(await PostgresDatabase.waited(for: endless, atMost: .seconds(3600)))
    }
}
