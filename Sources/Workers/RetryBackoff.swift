import Fetching
import Foundation
import Locking
import Logging
import OfflineStore
import PostgresStore

/// Exponential backoff with jitter between a job's attempts.
public struct RetryBackoff: Sendable {
    /// The delay after the first attempt, in seconds; each next one doubles it.
    public var base: Double
    /// The longest delay, in seconds.
    public var maximum: Double

    public init(base: Double = 5, maximum: Double = 3600) {
        self.base = base
        self.maximum = maximum
    }

    /// Between half and all of `base × 2^(attempt-1)`, capped: jitter keeps failed jobs from retrying in step.
    public func delay(afterAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Double {
        let full = min(maximum, base * pow(2, Double(max(0, min(attempt - 1, 30)))))
        return full / 2 + full / 2 * random
    }
}

/// Wakes the claim loop early: a run ended, or the worker is stopping.
final class Wakeup: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        var pending = false
        var generation = 0
    }

    private let state = PosixMutex(State())

    func signal() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil as CheckedContinuation<Void, Never>?
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns on a signal, or after `seconds`.
    func wait(seconds: Double) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let generation = state.withLock { state -> Int? in
                if state.pending {
                    state.pending = false
                    return nil
                }
                state.waiter = continuation
                state.generation += 1
                return state.generation
            }
            guard let generation else { return continuation.resume() }
            Task { [self] in
                try? await Task.sleep(for: .seconds(seconds))
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard state.generation == generation, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                waiter?.resume()
            }
        }
    }
}
