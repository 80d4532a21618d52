import Foundation
import Scheduling
import Seeding

/// Makes a realistic scroll session from a seed: reading pauses, short
/// drags that stop dead, flings that decelerate like a table view (speed
/// decaying exponentially), and now and then a reversal, until the user
/// has scrolled through `rows` rows, `laps` times: down, up, down again…
public struct FlingGenerator: Sendable {
    public var rows: Int
    public var viewport: Int
    public var seed: UInt64
    /// Passes over the rows, alternately down and back up. More than one
    /// keeps a session going over a list that no longer grows, as a soak needs.
    public var laps = 1
    /// Scroll events per second while the table moves.
    public var frameRate = 30.0
    /// How fast a fling slows down: ``WindowPolicy/decelerationTimeConstant``.
    public var decelerationTimeConstant = WindowPolicy.uikitDecelerationTimeConstant

    public init(rows: Int, viewport: Int, seed: UInt64 = 1, laps: Int = 1) {
        self.rows = rows
        self.viewport = viewport
        self.seed = seed
        self.laps = max(1, laps)
    }

    public func script() -> ScrollScript {
        var random = SeededGenerator(seed: seed)
        var events: [ScrollEvent] = []
        var time = 0.0
        var top = 0.0
        let bottom = Double(max(0, rows - viewport))
        let frame = 1000 / frameRate

        func move(to target: Double) {
            top = min(max(0, target), bottom)
            events.append(ScrollEvent(at: time.rounded(), event: .scroll, top: (top * 100).rounded() / 100))
        }

        var lap = 1
        var heading = 1.0
        while true {
            let end = heading > 0 ? bottom : 0
            if top == end {
                guard lap < laps, bottom > 0 else { break }
                lap += 1
                heading = -heading
            }
            // Reading what is on screen.
            time += Double.random(in: 700...2500, using: &random)
            let travelled = heading > 0 ? top : bottom - top
            let reverse = travelled > Double(viewport) && Double.random(in: 0..<1, using: &random) < 0.15
            let sign = reverse ? -heading : heading
            events.append(ScrollEvent(at: time.rounded(), event: .dragBegin))
            let isFling = Double.random(in: 0..<1, using: &random) < 0.55
            // A fling is a quick flick; a nudge a slow push that stops dead.
            let dragRows =
                isFling ? Double.random(in: 3...14, using: &random) : Double.random(in: 2...Double(max(3, viewport - 2)), using: &random)
            let dragTime = isFling ? Double.random(in: 80...200, using: &random) : Double.random(in: 300...700, using: &random)
            let start = top
            var elapsed = 0.0
            while elapsed < dragTime {
                let step = min(frame, dragTime - elapsed)
                elapsed += step
                time += step
                move(to: start + sign * dragRows * elapsed / dragTime)
            }
            events.append(ScrollEvent(at: time.rounded(), event: .dragEnd, decelerate: isFling))
            guard isFling else { continue }
            // The content keeps the finger's speed (rows per millisecond) and slows down exponentially,
            // coming to rest speed × time constant rows on, as UIKit's deceleration does.
            let release = top
            let distance = sign * dragRows / dragTime * decelerationTimeConstant
            var decelerating = 0.0
            while abs(distance) * exp(-decelerating / decelerationTimeConstant) > 0.05 {
                time += frame
                decelerating += frame
                move(to: release + distance * (1 - exp(-decelerating / decelerationTimeConstant)))
                if top == 0 || top == bottom { break }
            }
            move(to: release + distance)
            events.append(ScrollEvent(at: time.rounded(), event: .decelerateEnd))
        }
        events.append(ScrollEvent(at: (time + 500).rounded(), event: .end))
        return ScrollScript(events: events)
    }
}
