import Foundation
import TestSupport
import Testing

/// The harness's `hotels serve`: a child that never starts fails its test, never hangs it.
@Suite struct ServeProcessTests {
    @Test("a server that never says its endpoint is killed at the start limit, and the harness says so")
    func stuckStartFails() async throws {
        // Run from the tree: a script this test wrote could still be open in a child another test started meanwhile
        // (it failed so once, "Text file busy").
        await #expect(throws: ServeProcessError.self) {
            _ = try await ServeProcess(startLimit: 1, executable: Samples.url("Network/never-starts.sh"))
        }
    }
}
