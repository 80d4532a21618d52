import Foundation
import TestSupport
import Testing

/// The harness's children: their end is read from ``ChildProcess``, whose first notice of it counts.
@Suite("Child processes")
struct ChildProcessTests {
    func shell(_ script: String) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        return process
    }

    /// Foundation counts a child as running for a while after the kernel says it ended (145 times in 200 on
    /// this machine), and its `terminationStatus` traps meanwhile: the end must come from the notice itself.
    @Test("quick children end with their status, whichever notice came first, and a killed one with its signal")
    func endsAreRead() async throws {
        let children = try (0..<40).map { _ in try ChildProcess(starting: shell("exit 3")) }
        for child in children {
            let end = await child.ended()
            #expect(end == ChildProcess.End(status: 3, reason: .exit))
            #expect(child.terminationStatus == 3 && child.terminationReason == .exit && child.hasEnded)
        }
        let killed = try ChildProcess(starting: shell("kill -9 $$"))
        #expect(await killed.ended() == ChildProcess.End(status: SIGKILL, reason: .uncaughtSignal))
    }
}
