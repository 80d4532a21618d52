import Dispatch
import Foundation
import Imaging
import Locking
import Scheduling

/// Replays a scroll script against a ``VisibleWindowLoader`` in real time:
/// loads the first page, then applies each event at its time (scaled by
/// `speed`, counted from the moment the first page is shown), then waits
/// at `end` until every visible row shows its logo or the wait runs out.
public struct ScrollSimulation: Sendable {
    public var script: ScrollScript
    /// 2 replays twice as fast.
    public var speed = 1.0
    /// How long `end` waits for the visible logos.
    public var endWait: Duration = .seconds(30)

    public init(script: ScrollScript, speed: Double = 1.0) {
        self.script = script
        self.speed = speed
    }

    /// Thrown when page 1 cannot be loaded; nothing was shown.
    public struct FirstPageFailed: Error {
        public var underlying: any Error
    }

    /// - Parameter applied: Called after each script event, for progress.
    public func run(_ loader: VisibleWindowLoader, clock: WallClock, applied: @Sendable () -> Void = {}) async throws {
        let first = await withCheckedContinuation { continuation in
            loader.mainQueue.async {
                loader.loadFirstPage { continuation.resume(returning: $0) }
            }
        }
        if case .failed(let error) = first { throw FirstPageFailed(underlying: error) }
        let origin = clock.milliseconds
        var previousScrolls: [ScrollEvent] = []
        for event in script.events {
            let due = origin + event.at / speed
            let wait = due - clock.milliseconds
            if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
            if event.event == .end { await waitForVisibleLogos(loader, clock: clock) }
            let velocity = event.event == .dragEnd ? Self.releaseVelocity(previousScrolls) : nil
            loader.mainQueue.sync { Self.apply(event, to: loader, velocity: velocity) }
            if event.event == .scroll { previousScrolls = Array((previousScrolls + [event]).suffix(4)) }
            if event.event == .dragBegin { previousScrolls = [] }
            applied()
        }
    }

    /// The speed of the last movement before the finger lifted, in rows
    /// per script millisecond, as a scroll view measures it from its last
    /// few touches: the least-squares slope of the last scroll events.
    static func releaseVelocity(_ scrolls: [ScrollEvent]) -> Double? {
        let points = scrolls.compactMap { event in event.top.map { (event.at, $0) } }
        guard points.count >= 2 else { return nil }
        let meanTime = points.reduce(0) { $0 + $1.0 } / Double(points.count)
        let meanTop = points.reduce(0) { $0 + $1.1 } / Double(points.count)
        let spread = points.reduce(0) { $0 + ($1.0 - meanTime) * ($1.0 - meanTime) }
        guard spread > 0 else { return nil }
        return points.reduce(0) { $0 + ($1.0 - meanTime) * ($1.1 - meanTop) } / spread
    }

    static func apply(_ event: ScrollEvent, to loader: VisibleWindowLoader, velocity: Double? = nil) {
        switch event.event {
        case .dragBegin: loader.willBeginDragging()
        case .scroll: loader.scroll(to: event.top ?? loader.top)
        case .dragEnd: loader.didEndDragging(willDecelerate: event.decelerate ?? false, velocity: velocity)
        case .decelerateEnd: loader.didEndDecelerating()
        case .end: loader.end()
        }
    }

    /// Until every visible row has its logo, or `endWait`; failed rows are
    /// retried as their backoff allows.
    private func waitForVisibleLogos(_ loader: VisibleWindowLoader, clock: WallClock) async {
        let complete = Completion()
        loader.mainQueue.sync { loader.whenVisibleRowsComplete { complete.set() } }
        let deadline = ContinuousClock.now + endWait
        while !complete.isSet, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
            loader.mainQueue.sync { loader.retryFailedVisibleRows() }
        }
    }

    private final class Completion: Sendable {
        private let flag = Locked(false)
        func set() { flag.withLock { $0 = true } }
        var isSet: Bool { flag.value }
    }
}
