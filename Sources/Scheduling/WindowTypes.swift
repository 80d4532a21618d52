import Dispatch
import Foundation
import Imaging

/// One row of the list, as far as logo loading cares.
public struct ListRow: Sendable, Equatable {
    public var code: String
    public var logoURL: String?

    public init(code: String, logoURL: String?) {
        self.code = code
        self.logoURL = logoURL
    }
}

/// A page of rows from "load more".
public enum PageResult: Sendable {
    case rows([ListRow], isLast: Bool)
    /// The whole list as it now stands, in place of the rows shown: a fresh
    /// page 1 merged into the cached rows, or a list back from offline.
    case list([ListRow], isLast: Bool)
    case failed(any Error)
}

/// Asks for the next page; calls back once, from any thread.
public typealias PageRequester = @Sendable (_ completion: @escaping @Sendable (PageResult) -> Void) -> Void

/// Which rows get logo work, and when.
public struct WindowPolicy: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Start on show; never cancel, never suspend.
        case naive
        /// The tutorial, event for event: suspend while dragging, cancel
        /// rows that left and start visible ones when scrolling stops.
        case tutorial
        /// The tutorial plus prefetch ahead of the scroll, priorities by
        /// distance from the viewport, cancelling rows as soon as they leave
        /// the window plus margin, and, when a fling is released, loading
        /// the rows where it will come to rest (UIKit's
        /// `targetContentOffset`) rather than those it flies past. A drag held
        /// longer than a flick (``WindowPolicy/readingDragAfter``) loads the
        /// rows it shows as they come: it stops where the finger does.
        case ours
    }

    public var kind: Kind
    /// Rows ahead of the scroll direction to load at low priority.
    public var prefetch: Int
    /// The first retry of a failed logo waits this long; each later one twice as long.
    public var retryBaseDelay: Double = 500
    public var retryMaxDelay: Double = 8000
    /// Load the next page once the last visible row passes this share of the loaded rows.
    public var loadMoreThreshold = 0.9
    /// A released fling's speed falls by 1/e every this many milliseconds,
    /// so it travels `speed × constant` rows: where ours loads ahead.
    public var decelerationTimeConstant = Self.uikitDecelerationTimeConstant
    /// Ours: a drag still held after this many milliseconds is a reading
    /// drag, not a flick (a flick's touch lasts 80 to 200 ms), and it stops
    /// dead where the finger lifts, so the rows it shows stay on screen: they
    /// load as they come instead of after it. Nil waits for every drag to end.
    public var readingDragAfter: Double? = 200

    /// UIScrollView's normal deceleration rate keeps 0.998 of the speed per
    /// millisecond: 1 / -ln(0.998) ms.
    public static let uikitDecelerationTimeConstant = 1 / -log(0.998)

    public init(kind: Kind, prefetch: Int = 0) {
        self.kind = kind
        self.prefetch = kind == .ours ? max(0, prefetch) : 0
    }
}

/// What the loader did, in order, for traces, summaries and timelines.
public enum WindowEvent: Sendable, Equatable {
    case dragBegin
    case scroll(top: Double)
    case dragEnd(decelerate: Bool)
    case decelerateEnd
    case end
    /// Scrolling stopped; these rows are visible.
    case settle(visible: Range<Int>)
    case queued(row: Int, priority: WorkPriority)
    /// A logo request was issued for the row (not served from a cache).
    /// `queueSuspended` reports the queue's state when the operation started.
    case start(row: Int, queueSuspended: Bool)
    case decoding(row: Int)
    /// `started` tells whether the operation had begun its download.
    case cancel(row: Int, started: Bool)
    /// `wasted`: the row was neither visible nor in the prefetch margin when it completed.
    case done(row: Int, downloadedBytes: Int?, wasted: Bool)
    case fail(row: Int, reason: String)
    /// The row shows its logo: the image is here, so nobody looks it up again.
    case display(row: Int, image: RGBAImage)
    case pageRequest(page: Int)
    case pageReceived(page: Int, rows: Int, isLast: Bool)
    case pageFailed(page: Int, reason: String)
}
