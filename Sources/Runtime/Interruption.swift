import Foundation
import Synchronization
import UnixSignals

/// Turns the first SIGINT or SIGTERM into the cancellation of one piece of
/// work, so the program can still clean up: log its sessions out, give its
/// jobs back. A second signal ends the process at once, and so does one that
/// arrives after the work, during the clean-up.
///
/// For a command that runs until it is stopped (a worker, a server), use
/// ``ProcessServices``, which stops services gracefully instead.
///
/// ```swift
/// let outcome = await Interruption().run { try await fetchEveryCity() }
/// ```
public final class Interruption: Sendable {
    private let signalNumber = Atomic<Int32>(0)

    public init() {}

    /// The signal that interrupted the work, if one did.
    public var signal: Int32? {
        let number = signalNumber.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// The shell's exit status for it: 128 + the signal (130 for SIGINT, 143 for SIGTERM).
    public var exitStatus: Int32? { signal.map { 128 + $0 } }

    /// - Parameter work: The work, run in a task of its own and cancelled by the first signal; its result is returned.
    public func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async -> Result<T, any Error> {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let task = Task { try await work() }
        // Listens until the process ends: a signal during the clean-up after the work ends it at once.
        Task { [self] in
            for await caught in signals {
                guard signalNumber.compareExchange(expected: 0, desired: caught.rawValue, ordering: .acquiringAndReleasing).exchanged,
                    !task.isCancelled
                else { Self.endProcess(by: caught) }
                task.cancel()
            }
        }
        let result = await task.result
        task.cancel()  // from now on a signal finds the work over, and ends the process
        return result
    }

    /// Ends the process as `signal`'s default action does, at once: no clean-up runs, and the shell sees the signal.
    static func endProcess(by signal: UnixSignal) -> Never {
        // Dispatch's signal sources keep the signal blocked (Linux reads it from a signalfd): unblocked, with its
        // default action back, raising it again ends the process.
        Foundation.signal(signal.rawValue, SIG_DFL)
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, signal.rawValue)
        pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
        raise(signal.rawValue)
        // Not reached: the status a shell would have shown had the signal ended it.
        _exit(128 + signal.rawValue)
    }
}
