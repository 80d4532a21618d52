import Foundation
import TestSupport
import Testing

/// The harness's `hotels serve`: a child that never starts fails its test, never hangs it.
@Suite struct ServeProcessTests {
    @Test("a server that never says its endpoint is killed at the start limit, and the harness says so")
    func stuckStartFails() async throws {
        let script = temporaryPath("never-starts")
        try "#!/bin/sh\nexec sleep 3600\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script)
        defer { unlink(script) }
        await #expect(throws: ServeProcessError.self) {
            _ = try await ServeProcess(startLimit: 1, executable: URL(fileURLWithPath: script))
        }
    }
}
