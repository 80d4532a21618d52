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
///
/// Read the child's status here, never from its `Process`: when the kernel's
/// notice comes first, Foundation still counts the child as running, and its
/// `terminationStatus` then traps ("task still running"; a SIGILL that ended a
/// ThreadSanitizer run in CI, from the full-disk tests' mount helper).
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `process` is configured before `start` and only read after;
    // `ending` is behind its mutex.
    private let process: Process
    private let ending = Ending()

    /// How the child ended: its exit status and `.exit`, or the signal and `.uncaughtSignal`.
    public struct End: Sendable, Equatable {
        public let status: Int32
        public let reason: Process.TerminationReason

        public init(status: Int32, reason: Process.TerminationReason) {
            self.status = status
            self.reason = reason
        }
    }

    /// How the child ended once it has, and who waits for it.
    private final class Ending: Sendable {
        let state = PosixMutex<(end: End?, waiters: [CheckedContinuation<End, Never>], semaphore: DispatchSemaphore?)>((nil, [], nil))

        /// The first notice of the end counts; a later one changes nothing.
        func end(_ end: End) {
            let (waiters, semaphore) = state.withLock { state in
                guard state.end == nil else { return ([CheckedContinuation<End, Never>](), DispatchSemaphore?.none) }
                state.end = end
                defer { state.waiters = [] }
                return (state.waiters, state.semaphore)
            }
            waiters.forEach { $0.resume(returning: end) }
            semaphore?.signal()
        }
    }

    /// Starts `process`, configured and not yet run.
    public init(starting process: Process) throws {
        self.process = process
        process.terminationHandler = { [ending] process in
            // Foundation calls this once it counts the child as ended, so its status can be read here.
            ending.end(End(status: process.terminationStatus, reason: process.terminationReason))
        }
        try process.run()
        let pid = process.processIdentifier
        Thread.detachNewThread { [ending] in
            while ending.state.withLock({ $0.end == nil }) {
                var info = siginfo_t()
                if waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0, info._sifields._sigchld.si_pid == pid {
                    let status = info._sifields._sigchld.si_status
                    return ending.end(End(status: status, reason: info.si_code == CLD_EXITED ? .exit : .uncaughtSignal))
                }
                usleep(20_000)
            }
        }
    }

    public var processIdentifier: pid_t { process.processIdentifier }
    public var hasEnded: Bool { ending.state.withLock { $0.end != nil } }
    /// The exit status, or the signal that ended the child; nil while it runs.
    public var terminationStatus: Int32? { ending.state.withLock { $0.end?.status } }
    public var terminationReason: Process.TerminationReason? { ending.state.withLock { $0.end?.reason } }

    /// Waits for the child's end.
    @discardableResult
    public func ended() async -> End {
        await withCheckedContinuation { (waiter: CheckedContinuation<End, Never>) in
            let end = ending.state.withLock { state in
                if state.end == nil { state.waiters.append(waiter) }
                return state.end
            }
            if let end { waiter.resume(returning: end) }
        }
    }

    /// Waits for the child's end for at most `seconds`, blocking: for a
    /// `deinit`, which cannot await. Returns whether it ended.
    @discardableResult
    public func endedBlocking(seconds: Int) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let ended = ending.state.withLock { state in
            state.semaphore = semaphore
            return state.end != nil
        }
        return ended || semaphore.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    public func signal(_ signal: Int32) {
        if !hasEnded { kill(process.processIdentifier, signal) }
    }
}
