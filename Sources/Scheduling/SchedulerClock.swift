import Foundation
import Locking

/// The scheduler's sense of time, in milliseconds since the clock's origin.
/// The simulation runs on ``WallClock``; tests move a ``ManualClock`` by hand.
public protocol SchedulerClock: Sendable {
    var milliseconds: Double { get }
}

/// Real time since the clock was made.
public struct WallClock: SchedulerClock {
    private let origin = ContinuousClock.now
    /// Wall-clock Unix milliseconds at the origin, for traces.
    public let unixOrigin = Date().timeIntervalSince1970 * 1000

    public init() {}

    public var milliseconds: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}

/// A clock that moves only when told to.
public final class ManualClock: SchedulerClock {
    private let now = Locked(0.0)

    public init() {}

    public var milliseconds: Double { now.value }

    public func advance(by milliseconds: Double) {
        now.withLock { $0 += milliseconds }
    }
}
