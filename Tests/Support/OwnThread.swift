import Foundation

/// Runs `work`, which blocks (it waits for a child process or a socket), on a
/// thread of its own. Swift concurrency has two threads on this machine,
/// shared by every test and by the servers they run in process: work that
/// blocks them starves the rest. Tests making databases at once held both, and
/// a worker's two-second timers fired half a minute late; tests starting
/// `hotels serve` at once held both while the children started, and a
/// dashboard in the same process went 20 s without a byte of a page.
public func onAThreadOfItsOwn<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Swift.Result { try work() }) }
    }
}
