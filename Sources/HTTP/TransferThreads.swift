import Dispatch
import Foundation
import Locking

/// Threads for work that blocks, such as a libcurl transfer, kept off the
/// cooperative pool. A thread that finishes its job waits for the next one
/// and ends after `idleTimeout` without work, so a long run creates threads
/// only for its peak concurrency, not one per request (each new thread costs
/// a stack and, in Foundation, a few bytes that are never freed).
final class TransferThreads: Sendable {
    typealias Job = @Sendable () -> Void

    /// A thread waiting for work; `run` hands it a job and signals it.
    private final class Waiter: Sendable {
        let wakeup = DispatchSemaphore(value: 0)
        let job = PosixMutex<Job?>(nil)
    }

    private let idle = PosixMutex<[Waiter]>([])
    private let idleTimeout: DispatchTimeInterval
    private let spawn: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// - Parameter spawn: Starts a thread; tests count the calls.
    init(
        idleTimeout: DispatchTimeInterval = .seconds(30),
        spawn: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { Thread.detachNewThread($0) }
    ) {
        self.idleTimeout = idleTimeout
        self.spawn = spawn
    }

    /// Runs `job` on an idle thread, or on a new one if none is idle.
    func run(_ job: @escaping Job) {
        if let waiter = idle.withLock({ $0.popLast() }) {
            waiter.job.withLock { $0 = job }
            waiter.wakeup.signal()
        } else {
            spawn { [self] in work(first: job) }
        }
    }

    /// Threads waiting for work.
    var idleCount: Int { idle.withLock { $0.count } }

    private func work(first: @escaping Job) {
        let waiter = Waiter()
        var next: Job? = first
        while next != nil {
            // The job is released before the thread waits: an idle thread
            // must not keep what the last transfer captured (its transport, its sink).
            Self.runAndRelease(&next)
            idle.withLock { $0.append(waiter) }
            if waiter.wakeup.wait(timeout: .now() + idleTimeout) == .timedOut {
                let leaves = idle.withLock { waiters in
                    guard let index = waiters.firstIndex(where: { $0 === waiter }) else { return false }
                    waiters.remove(at: index)
                    return true
                }
                if leaves { return }
                // `run` took this thread just as the wait timed out: its signal is on the way.
                waiter.wakeup.wait()
            }
            next = waiter.job.withLock { job in
                defer { job = nil }
                return job
            }
        }
    }

    private static func runAndRelease(_ job: inout Job?) {
        let current = job
        job = nil
        current?()
    }
}
