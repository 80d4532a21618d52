import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns the first SIGINT or SIGTERM into the cancellation of one piece of
/// work, so the command can still clean up (log its sessions out). A
/// second Ctrl-C ends the process at once.
final class Interruption: Sendable {
    private let interrupted = Atomic(false)

    var happened: Bool { interrupted.load(ordering: .acquiring) }

    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async -> Result<T, any Error> {
        let task = Task { try await work() }
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                interrupted.store(true, ordering: .releasing)
                signal(number, SIG_DFL)
                task.cancel()
            }
            source.resume()
            return source
        }
        let result = await task.result
        for source in sources { source.cancel() }
        return result
    }
}
