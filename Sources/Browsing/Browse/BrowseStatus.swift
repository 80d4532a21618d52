import Scheduling

/// The status line's numbers, kept from the window loader's events: rows
/// loaded and the list's end, logo transfers queued, in flight, cancelled
/// and failed, cache hits, and the time from a row settling on screen to its
/// logo drawn.
public struct BrowseStatus: Sendable {
    public private(set) var queued: Set<Int> = []
    public private(set) var inFlight: Set<Int> = []
    /// Transfers hung up because their row left the screen.
    public private(set) var cancelled = 0
    public private(set) var failed = 0
    /// Logos shown with no transfer of their own: from the memory or disk
    /// cache, or from another row's transfer of the same logo.
    public private(set) var cacheHits = 0
    public private(set) var pageInFlight = false
    /// Settle-to-drawn times, milliseconds, in order.
    public private(set) var latencies: [Double] = []
    /// Rows visible at a settle and still without their logo: when they settled.
    private var waitingSince: [Int: Double] = [:]
    /// Rows whose logo arrived but is not drawn yet: when they settled.
    private var arrived: [Int: Double] = [:]
    /// Rows whose operation finished since they were queued: their display is not a memory hit.
    private var finished: Set<Int> = []

    public init() {}

    /// Takes one of the loader's events, at `at` milliseconds; `visible` and
    /// `withoutLogo` are the loader's rows after it.
    public mutating func record(_ event: WindowEvent, at: Double, visible: Range<Int>, withoutLogo: [Int]) {
        switch event {
        case .settle:
            // Rows already showing their logo wait for nothing.
            for row in withoutLogo where waitingSince[row] == nil { waitingSince[row] = at }
        case .scroll:
            waitingSince = waitingSince.filter { visible.contains($0.key) }
            finished = finished.filter { visible.contains($0) }
        case .queued(let row, _):
            queued.insert(row)
        case .start(let row, _):
            queued.remove(row)
            inFlight.insert(row)
        case .cancel(let row, let started):
            queued.remove(row)
            if inFlight.remove(row) != nil || started { cancelled += 1 }
        case .done(let row, let bytes, _):
            queued.remove(row)
            inFlight.remove(row)
            finished.insert(row)
            if bytes == nil { cacheHits += 1 }
        case .fail(let row, _):
            queued.remove(row)
            inFlight.remove(row)
            failed += 1
        case .display(let row, _):
            if finished.remove(row) == nil { cacheHits += 1 }
            if let since = waitingSince.removeValue(forKey: row) { arrived[row] = since }
        case .pageRequest:
            pageInFlight = true
        case .pageReceived, .pageFailed:
            pageInFlight = false
        case .dragBegin, .dragEnd, .decelerateEnd, .end, .decoding:
            break
        }
    }

    /// A frame with these rows' logos went out at `at`: their settle-to-drawn times are known.
    public mutating func drawn(at: Double) {
        for since in arrived.values { latencies.append(at - since) }
        arrived = [:]
    }

    /// Logos that arrived since the last frame.
    public var hasUndrawnLogos: Bool { !arrived.isEmpty }

    /// The 90th percentile of settle-to-drawn, nil before the first.
    public var p90: Double? {
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.9).rounded(.up)) - 1)]
    }

    /// `120 hotels, more to load │ logos 2 queued, 3 in flight, 5 cancelled, 0 failed │ 14 cache hits`
    public func line(rows: Int, reachedEnd: Bool) -> String {
        let list = "\(rows) hotels, " + (pageInFlight ? "loading more" : reachedEnd ? "end of list" : "more to load")
        let logos = "logos \(queued.count) queued, \(inFlight.count) in flight, \(cancelled) cancelled, \(failed) failed"
        return [list, logos, "\(cacheHits) cache hits"].joined(separator: " │ ")
    }

    /// `p90 settle→drawn 180 ms`, for the title line's right end.
    public var latencyLabel: String {
        "p90 settle→drawn " + (p90.map { "\(Int($0.rounded())) ms" } ?? "–")
    }
}
