import Foundation
import Locking
import NIOCore
import PostgresNIO

/// One bounded wait for a pooled connection: whichever comes first of the
/// connection, the deadline and the caller's cancellation decides, once.
final class PoolWait<Result: Sendable>: Sendable {
    private enum Phase {
        case waiting
        /// Handed a connection: only the body's own end (or its cancellation) counts now.
        case leased
        /// Resumed: what comes later is dropped.
        case ended
    }

    private struct State {
        var phase = Phase.waiting
        var continuation: CheckedContinuation<Result, any Error>?
        var pooled: Task<Void, Never>?
        var deadline: Task<Void, Never>?
        /// The call's own deadline, from the lease on.
        var callDeadline: Task<Void, Never>?
        /// A cancellation that came before ``begin``.
        var cancelledEarly = false
    }

    private let state = PosixMutex(State())
    private let timeout: any Error
    private let callTimeout: Double
    private let noAnswer: any Error

    init(timeout: any Error, callTimeout: Double, noAnswer: any Error) {
        self.timeout = timeout
        self.callTimeout = callTimeout
        self.noAnswer = noAnswer
    }

    func begin(_ continuation: CheckedContinuation<Result, any Error>) {
        let cancelledEarly = state.withLock { state in
            state.continuation = continuation
            return state.cancelledEarly
        }
        if cancelledEarly { giveUp(cancelled: true) }
    }

    /// The pooled call and the deadline, once started: what has ended by then is not waited for.
    func track(pooled: Task<Void, Never>, deadline: Task<Void, Never>) {
        let phase = state.withLock { state in
            state.pooled = pooled
            state.deadline = deadline
            return state.phase
        }
        if phase != .waiting { deadline.cancel() }
        if phase == .ended { pooled.cancel() }
    }

    /// Called with a connection in hand: false when the wait was given up,
    /// and the connection must go back unused. From now on the call's
    /// deadline runs: past it the connection is closed and the call fails.
    ///
    /// A connection that closes while the call runs ends it too, a moment
    /// later. postgres-nio writes a query to its channel without a promise,
    /// so a query written to a connection already closing (the pool can hand
    /// one out before it hears of the close: a terminated backend, or one
    /// this wait closed) is lost, never answered and never failed; nothing
    /// of it reached the server, so the call can be tried again on another.
    func lease(_ connection: PostgresConnection) -> Bool {
        // Looked at every quarter second rather than told by the connection's
        // closeFuture, which would keep a callback for every call a long-lived connection serves.
        let callDeadline = Task { [callTimeout] in
            let deadline = ContinuousClock.now + .seconds(callTimeout)
            while ContinuousClock.now < deadline {
                guard (try? await Task.sleep(for: min(.milliseconds(250), deadline - ContinuousClock.now))) != nil else { return }
                if connection.isClosed {
                    // Whatever the closed connection still owed is failed by now, unless it was lost.
                    guard (try? await Task.sleep(for: .seconds(Self.closedGrace))) != nil else { return }
                    return self.closedUnanswered()
                }
            }
            self.callExpired(connection)
        }
        let deadline = state.withLock { state -> Task<Void, Never>?? in
            guard state.phase == .waiting else { return .none }
            state.phase = .leased
            state.callDeadline = callDeadline
            return .some(state.deadline)
        }
        guard let deadline else {
            callDeadline.cancel()
            return false
        }
        deadline?.cancel()
        return true
    }

    /// How long a call may go on once its connection has closed, in seconds: its answer, had it one, came long before.
    static var closedGrace: Double { 0.5 }

    private func closedUnanswered() {
        endLease()?.resume(throwing: StoreFailure.closedUnanswered)
    }

    /// The call ran past its deadline: it fails now, and its connection is
    /// closed, which ends whatever still waits on it and keeps the pool from handing it out again.
    private func callExpired(_ connection: PostgresConnection) {
        guard let continuation = endLease() else { return }
        // The caller hears of it once the connection is closed, not before: its next call could otherwise be handed
        // this connection while the close is still on its way, and lose its query.
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { [noAnswer] _ in continuation.resume(throwing: noAnswer) }
    }

    /// Ends a call that holds a connection, once: the caller's continuation, or nil when the call had ended already.
    private func endLease() -> CheckedContinuation<Result, any Error>? {
        state.withLock { state in
            guard state.phase == .leased else { return nil }
            state.phase = .ended
            defer { state.continuation = nil }
            return state.continuation
        }
    }

    func finish(_ result: Swift.Result<Result, any Error>) {
        let ending = state.withLock { state -> (CheckedContinuation<Result, any Error>?, [Task<Void, Never>]) in
            let deadlines = [state.deadline, state.callDeadline].compactMap { $0 }
            guard state.phase != .ended else { return (nil, deadlines) }
            state.phase = .ended
            defer { state.continuation = nil }
            return (state.continuation, deadlines)
        }
        ending.1.forEach { $0.cancel() }
        ending.0?.resume(with: result)
    }

    /// The deadline passed, or the caller was cancelled. Still waiting, the
    /// wait ends now with the reason; with a connection leased, a
    /// cancellation goes on to the body and the deadline is ignored.
    func giveUp(cancelled: Bool) {
        let (continuation, pooled) = state.withLock { state -> (CheckedContinuation<Result, any Error>?, Task<Void, Never>?) in
            switch state.phase {
            case .waiting:
                guard let continuation = state.continuation else {
                    state.cancelledEarly = state.cancelledEarly || cancelled
                    return (nil, nil)
                }
                state.phase = .ended
                state.continuation = nil
                return (continuation, state.pooled)
            case .leased:
                return (nil, cancelled ? state.pooled : nil)
            case .ended:
                return (nil, nil)
            }
        }
        pooled?.cancel()
        continuation?.resume(throwing: cancelled ? CancellationError() : timeout)
    }
}
