import Locking
import OfflineStore
import PostgresStore
import Runtime
import ServiceLifecycle
import TestSupport
import Testing

/// A service that runs the closure it is given.
private struct ClosureService: Service {
    let body: @Sendable () async -> Void
    func run() async { await body() }
}

/// The runtime a group's services share is closed by the group, after them.
@Suite struct ProcessServicesTests {
    @Test(
        "in ProcessServices, the runtime closes last: a service still reads the shared store while it stops, after another service ended the group; then the pool is closed"
    )
    func runtimeClosesLast() async throws {
        let url = try await TestPostgres.shared().makeDatabase()
        let runtime = try await HotelRuntime.open(.init(store: .shared(try PostgresLocation(url: url))))
        let readWhileStopping = PosixMutex<Bool?>(nil)
        // As a worker gives its jobs back: through the store, once the group is stopping.
        let user = ClosureService {
            try? await gracefulShutdown()
            let lists = try? await runtime.storage.allLists()
            readWhileStopping.withLock { $0 = lists != nil }
        }
        // As a worker run with --drain does: it ends, and so the group shuts down.
        let ender = ClosureService {}
        let failure = await ProcessServices().failure(running: [user, ender], closingLast: runtime)
        #expect(failure == nil)
        #expect(readWhileStopping.withLock { $0 } == true)
        // Closed by the group: no call after it reaches the database.
        await #expect(throws: StoreError.self) { try await runtime.storage.allLists() }
    }
}
