import Dispatch
import Foundation
import Locking

/// A started `Process` whose end is awaited, never waited for with
/// `waitUntilExit()`: on Linux that runs a run loop on the calling thread
/// and depends on Foundation delivering the child's end there, and with
/// many children at once it was seen to wait forever for children long
/// gone. The end comes from whichever is first of the termination handler
/// (set before the start, so a child that ends at once is not missed) and a
/// thread of its own that asks the kernel with `waitid(WNOWAIT)`, which
/// leaves the child for Foundation to reap: the test suite was seen to miss
/// Foundation's notice too.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `process` is configured before `start` and only read after;
    // `state` is behind its mutex.
    public let process: Process
    private let ending = Ending()

    /// Whether the child has ended, and who waits for it.
    private final class Ending: Sendable {
        let state = PosixMutex<(ended: Bool, waiters: [CheckedContinuation<Void, Never>], semaphore: DispatchSemaphore?)>((false, [], nil))
        /// The end as the kernel told it: the exit status, or the signal.
        let seen = PosixMutex<(status: Int32, reason: Process.TerminationReason)?>(nil)

        func end() {
            let (waiters, semaphore) = state.withLock { state in
                guard !state.ended else { return ([CheckedContinuation<Void, Never>](), DispatchSemaphore?.none) }
                state.ended = true
                defer { state.waiters = [] }
                return (state.waiters, state.semaphore)
            }
            waiters.forEach { $0.resume() }
            semaphore?.signal()
        }
    }

    /// Starts `process`, configured and not yet run.
    public init(starting process: Process) throws {
        self.process = process
        process.terminationHandler = { [ending] _ in ending.end() }
        try process.run()
        let pid = process.processIdentifier
        Thread.detachNewThread { [ending] in
            while !ending.state.withLock({ $0.ended }) {
                var info = siginfo_t()
                if waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0, info._sifields._sigchld.si_pid == pid {
                    let status = info._sifields._sigchld.si_status
                    ending.seen.withLock { $0 = (status, info.si_code == CLD_EXITED ? .exit : .uncaughtSignal) }
                    return ending.end()
                }
                usleep(20_000)
            }
        }
    }

    public var processIdentifier: pid_t { process.processIdentifier }
    public var hasEnded: Bool { ending.state.withLock { $0.ended } }
    public var terminationStatus: Int32 { ending.seen.withLock { $0?.status } ?? process.terminationStatus }
    public var terminationReason: Process.TerminationReason { ending.seen.withLock { $0?.reason } ?? process.terminationReason }

    /// Waits for the child's end.
    public func ended() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = ending.state.withLock { state in
                if !state.ended { state.waiters.append(waiter) }
                return state.ended
            }
            if now { waiter.resume() }
        }
    }

    /// Waits for the child's end for at most `seconds`, blocking: for a
    /// `deinit`, which cannot await. Returns whether it ended.
    @discardableResult
    public func endedBlocking(seconds: Int) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let ended = ending.state.withLock { state in
            state.semaphore = semaphore
            return state.ended
        }
        return ended || semaphore.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    public func signal(_ signal: Int32) {
        if !hasEnded { kill(process.processIdentifier, signal) }
    }
}
