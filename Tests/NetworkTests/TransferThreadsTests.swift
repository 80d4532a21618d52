import Dispatch
import Foundation
import Locking
import Testing

@testable import HTTP

/// Threads for blocking transfers are reused, not created per request (each
/// Foundation thread leaked a few bytes, which a long soak showed).
@Suite("Transfer threads")
struct TransferThreadsTests {
    /// Counts the threads a pool starts, and those that have ended.
    final class Spawns: Sendable {
        let count = PosixMutex(0)
        let ended = PosixMutex(0)
        func start(_ body: @escaping @Sendable () -> Void) {
            count.withLock { $0 += 1 }
            Thread.detachNewThread { [self] in
                body()
                ended.withLock { $0 += 1 }
            }
        }
    }

    // The pools below keep idle threads for an hour: the whole suite can keep
    // this test waiting for a pool thread longer than the default 30 s.

    /// Runs `job` on `threads` and waits until it has run.
    func runAndWait(_ threads: TransferThreads, _ job: @escaping @Sendable () -> Void = {}) async {
        await withCheckedContinuation { continuation in
            threads.run {
                job()
                continuation.resume()
            }
        }
    }

    /// Waits until `condition` holds (a thread goes idle just after its job
    /// returns); gives up after 20 s, which only a broken pool takes.
    func eventually(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(), ContinuousClock.now < deadline { await Task.yield() }
        #expect(condition())
    }

    @Test("jobs one after another share one thread")
    func sequentialJobsReuseOneThread() async {
        let spawns = Spawns()
        let threads = TransferThreads(idleTimeout: .seconds(3600), spawn: spawns.start)
        let ran = PosixMutex(0)
        for _ in 0..<50 {
            await runAndWait(threads) { ran.withLock { $0 += 1 } }
            await eventually { threads.idleCount == 1 }
        }
        #expect(ran.withLock { $0 } == 50)
        #expect(spawns.count.withLock { $0 } == 1)
    }

    @Test("jobs that block at once get a thread each, and every thread is kept for the next burst")
    func concurrentJobsGetThreadsOfTheirOwn() async {
        let spawns = Spawns()
        let threads = TransferThreads(idleTimeout: .seconds(3600), spawn: spawns.start)
        for _ in 0..<2 {
            // Each job waits until all four have started: with fewer than four threads this never ends.
            let started = DispatchGroup()
            (0..<4).forEach { _ in started.enter() }
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        await runAndWait(threads) {
                            started.leave()
                            started.wait()
                        }
                    }
                }
            }
            await eventually { threads.idleCount == 4 }
        }
        #expect(spawns.count.withLock { $0 } == 4)
    }

    @Test("an idle thread ends after the idle timeout, and the next job starts a new one")
    func idleThreadsEnd() async {
        let spawns = Spawns()
        let threads = TransferThreads(idleTimeout: .milliseconds(1), spawn: spawns.start)
        await runAndWait(threads)
        await eventually { spawns.ended.withLock { $0 } == 1 }
        #expect(threads.idleCount == 0)
        await runAndWait(threads)
        #expect(spawns.count.withLock { $0 } == 2)
    }
}
