import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns the first SIGINT or SIGTERM into the cancellation of one piece of
/// work (or a worker's stop), so the program can still clean up: log its
/// sessions out, give its jobs back. A second signal ends the process at
/// once, and so does one that arrives after the work, during the clean-up.
///
/// ```swift
/// let outcome = await Interruption().run(onSignal: { worker.stop() }) { try await worker.run() }
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

    /// - Parameters:
    ///   - onSignal: What the first signal does; by default it cancels `work`.
    ///   - work: The work, run in a task of its own; its result is returned.
    public func run<T: Sendable>(onSignal: (@Sendable () -> Void)? = nil, _ work: @escaping @Sendable () async throws -> T) async -> Result<T, any Error> {
        let task = Task { try await work() }
        let sources = [SIGINT, SIGTERM].map { number in
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                signalNumber.store(number, ordering: .releasing)
                Glibc.signal(number, SIG_DFL)
                if let onSignal { onSignal() } else { task.cancel() }
            }
            source.resume()
            return source
        }
        let result = await task.result
        for source in sources { source.cancel() }
        for number in [SIGINT, SIGTERM] { Glibc.signal(number, SIG_DFL) }
        return result
    }
}
