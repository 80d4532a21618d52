import Dispatch
import Foundation
import Imaging

/// A simulated table view's logo loading, following the tutorial
/// (`loadImagesForOnscreenCells`) event for event, plus prefetch,
/// priorities, retry with backoff and "load more".
///
/// Every method runs on `mainQueue`, like UIKit's delegate callbacks.
// @unchecked Sendable: all mutable state is touched only on `mainQueue`
// (checked with dispatchPrecondition); callbacks from other threads hop there.
public final class VisibleWindowLoader: @unchecked Sendable {
    enum Phase { case idle, dragging, decelerating }

    private struct Failure {
        var attempts: Int
        var retryAt: Double
    }

    public let mainQueue: DispatchQueue
    public let downloadQueue: WorkQueue
    public let policy: WindowPolicy
    /// Rows that fit on screen; ``resize(viewport:)`` changes it.
    public private(set) var viewport: Int
    private let logos: any LogoLoading
    let clock: any SchedulerClock
    let requestPage: PageRequester?
    let observe: (VisibleWindowLoader, Double, WindowEvent) -> Void

    public internal(set) var rows: [ListRow] = []
    public private(set) var top = 0.0
    var phase = Phase.idle
    /// +1 scrolling down (towards later rows), -1 up.
    private var direction = 1
    /// Ours: the top row where a released fling will come to rest. Kept as
    /// a position, not rows: it may lie past the rows loaded so far, and the
    /// rows come with the pages that arrive while the fling decelerates.
    private var landingTop: Double?
    /// The rows of ``landingTop`` that are loaded.
    private var landing: Range<Int>? {
        landingTop.map { Self.window(top: $0, viewport: viewport, count: rows.count) }
    }
    private var dragBeganAt = 0.0
    /// Ours: the drag is held past ``WindowPolicy/readingDragAfter``; visible rows load as they come.
    private var isReadingDrag = false
    /// The tutorial's `downloadsInProgress`, keyed by row.
    private var downloadsInProgress: [Int: (operation: WorkOperation, serial: Int)] = [:]
    private var nextSerial = 0
    private var startedDownloads: Set<Int> = []
    private var displayed: Set<Int> = []
    private var failures: [Int: Failure] = [:]
    var pages = PageRequests()
    /// The last page has arrived: nothing more is asked for.
    public var reachedEnd: Bool { pages.reachedEnd }
    private var whenVisibleComplete: [() -> Void] = []
    var isClosed = false

    /// - Parameters:
    ///   - viewport: Rows that fit on screen.
    ///   - policy: Which rows get logo work, and when.
    ///   - logos: Where the rows' logos come from.
    ///   - downloadQueue: Runs the rows' logo operations. Its completion queue
    ///     must be `mainQueue`: a row's completion touches the loader's state.
    ///   - mainQueue: The serial queue every method of the loader runs on.
    ///   - clock: The time of events, of drags and of retry delays.
    ///   - requestPage: Asks for the next page ("load more"); nil for a list that is all there.
    ///   - observe: Told of every event, on `mainQueue`, with the time on `clock`.
    public init(
        viewport: Int, policy: WindowPolicy, logos: any LogoLoading, downloadQueue: WorkQueue, mainQueue: DispatchQueue,
        clock: any SchedulerClock, requestPage: PageRequester?, observe: @escaping (VisibleWindowLoader, Double, WindowEvent) -> Void
    ) {
        self.viewport = max(1, viewport)
        self.policy = policy
        self.logos = logos
        self.downloadQueue = downloadQueue
        self.mainQueue = mainQueue
        self.clock = clock
        self.requestPage = requestPage
        self.observe = observe
    }

    /// Rows still loading when the table goes away are cancelled: their
    /// transfers stop and the queue forgets them.
    deinit {
        for entry in downloadsInProgress.values { entry.operation.cancel() }
    }

    // MARK: Window

    /// The visible rows: `floor(top) ..< floor(top) + viewport`, clamped to the loaded rows.
    public var visibleRows: Range<Int> {
        Self.window(top: top, viewport: viewport, count: rows.count)
    }

    static func window(top: Double, viewport: Int, count: Int) -> Range<Int> {
        let first = min(max(0, Int(top.rounded(.down))), count)
        return first..<min(first + viewport, count)
    }

    /// The rows to prefetch: up to `prefetch` rows beyond the window, in the scroll direction.
    public var prefetchRows: Range<Int> {
        let visible = visibleRows
        guard policy.prefetch > 0, !visible.isEmpty else { return visible.lowerBound..<visible.lowerBound }
        return direction > 0
            ? visible.upperBound..<min(rows.count, visible.upperBound + policy.prefetch)
            : max(0, visible.lowerBound - policy.prefetch)..<visible.lowerBound
    }

    /// The visible rows that have a logo to show but are not showing it.
    public var visibleRowsWithoutLogo: [Int] {
        visibleRows.filter { rows[$0].logoURL != nil && !displayed.contains($0) }
    }

    public var pendingRows: Set<Int> { Set(downloadsInProgress.keys) }

    /// Calls `body` on the main queue once every visible row shows its logo.
    public func whenVisibleRowsComplete(_ body: @escaping () -> Void) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        if visibleRowsWithoutLogo.isEmpty { body() } else { whenVisibleComplete.append(body) }
    }

    // MARK: Table-view events

    /// Shows the first page: the rows become the list, and the visible rows
    /// load as after a scroll that stopped.
    public func showFirstPage(_ first: [ListRow], isLast: Bool) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        rows = first
        pages.reachedEnd = isLast
        visibleRows.forEach(willDisplay)
        // Page 1 arriving mid-drag waits for the drag to settle, as any row would.
        if phase == .idle { settle() }
    }

    /// The list changed under the table (page 1 merged into the cached
    /// rows, or the service back after offline): the rows become `list`
    /// and the window stays where it is. Rows whose code moved lose their
    /// pending work; logos in memory show again at once.
    public func replaceRows(_ list: [ListRow], isLast: Bool) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        for (row, _) in downloadsInProgress where row >= list.count || list[row] != rows[row] { cancel(row) }
        failures = failures.filter { row, _ in row < list.count && list[row] == rows[row] }
        displayed = displayed.filter { row in row < list.count && list[row] == rows[row] }
        rows = list
        pages.reachedEnd = isLast
        // A shorter list brings the window back to its end rather than leaving it past it.
        top = min(top, Double(max(0, rows.count - viewport)))
        if phase == .idle { settle() }
    }

    /// The screen grew or shrank to `rows` rows: as if it had scrolled,
    /// the rows that left are forgotten and the new ones load.
    public func resize(viewport rows: Int) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        let before = visibleRows
        viewport = max(1, rows)
        top = min(top, Double(max(0, self.rows.count - viewport)))
        for row in before where !visibleRows.contains(row) { displayed.remove(row) }
        if phase == .idle { settle() }
    }

    /// Asks for the next page now, wherever the window is: a cached page 1
    /// is followed by the fresh one at once, not when the user nears the end.
    public func loadMore() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        requestNextPage()
    }

    public func willBeginDragging() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        emit(.dragBegin)
        phase = .dragging
        landingTop = nil
        dragBeganAt = clock.milliseconds
        isReadingDrag = false
        if policy.kind != .naive { downloadQueue.isSuspended = true }
    }

    /// Moves the viewport so that `top` is the first visible row.
    public func scroll(to newTop: Double) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        let before = visibleRows
        if newTop != top { direction = newTop > top ? 1 : -1 }
        top = max(0, newTop)
        emit(.scroll(top: top))
        let becomesReading =
            phase == .dragging && !isReadingDrag && policy.kind == .ours
            && policy.readingDragAfter.map { clock.milliseconds - dragBeganAt >= $0 } == true
        if becomesReading {
            isReadingDrag = true
            downloadQueue.isSuspended = false
        }
        let after = visibleRows
        for row in before where !after.contains(row) { displayed.remove(row) }
        // A drag that has just become a reading one shows its rows anew: none was started while it might have been a flick.
        for row in after where !before.contains(row) || (becomesReading && !displayed.contains(row)) { willDisplay(row) }
        if policy.kind == .ours { cancelRowsNotKept() }
        loadMoreIfNeeded()
    }

    /// The finger lifted. `velocity`, in rows per millisecond, is the
    /// speed the content keeps when it decelerates (UIKit's
    /// `scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)`).
    public func didEndDragging(willDecelerate decelerate: Bool, velocity: Double? = nil) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        emit(.dragEnd(decelerate: decelerate))
        isReadingDrag = false
        if decelerate {
            phase = .decelerating
            if policy.kind == .ours, let velocity { loadLandingRows(velocity: velocity) }
        } else {
            settle()
        }
    }

    public func didEndDecelerating() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        emit(.decelerateEnd)
        settle()
    }

    /// The table is gone: pending work is cancelled, and nothing starts
    /// again, not even for a page that lands later.
    public func close() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        isClosed = true
        downloadQueue.isSuspended = true
        for row in Array(downloadsInProgress.keys) { cancel(row) }
    }

    /// The end of the session, for the trace.
    public func end() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        emit(.end)
    }

    /// The tutorial's `tableView:cellForRowAtIndexPath:` for a row's logo:
    /// show it if it is loaded, else start it unless the table is moving.
    func willDisplay(_ row: Int) {
        guard let url = rows[row].logoURL else { return }
        if let image = logos.cachedImage(for: url) {
            display(row, image: image)
        } else if policy.kind == .naive || phase == .idle || isReadingDrag {
            start(row, priority: priority(for: row))
        }
    }

    /// Scrolling stopped: load what is visible, then let the queue run.
    private func settle() {
        phase = .idle
        landingTop = nil
        emit(.settle(visible: visibleRows))
        if policy.kind != .naive {
            loadImagesForOnscreenCells()
            downloadQueue.isSuspended = false
        }
        loadMoreIfNeeded()
        notifyIfVisibleComplete()
    }

    /// The tutorial's method: cancel what is pending but no longer visible,
    /// start what is visible but not pending. Ours also keeps and starts
    /// the prefetch rows, and reorders pending work by distance.
    private func loadImagesForOnscreenCells() {
        let visible = Set(visibleRows)
        cancelRowsNotKept()
        let pending = Set(downloadsInProgress.keys)
        guard policy.kind == .ours else {
            // The tutorial walks an NSSet: no particular order.
            for row in visible.subtracting(pending) where !displayed.contains(row) { willDisplay(row) }
            return
        }
        for row in visibleRows where !pending.contains(row) && !displayed.contains(row) { willDisplay(row) }
        for row in prefetchRows { startUnlessCached(row, priority: priority(for: row)) }
        for (row, entry) in downloadsInProgress { entry.operation.priority = priority(for: row) }
    }

    /// Cancels pending rows that are neither visible, nor in the prefetch
    /// ahead of the scroll, nor where a fling will land. The tutorial does
    /// this when scrolling stops; ours on every scroll too, so a reversal
    /// cancels the prefetch behind it.
    private func cancelRowsNotKept() {
        let visible = visibleRows
        let ahead = prefetchRows
        let landing = landing
        for row in downloadsInProgress.keys where !visible.contains(row) && !ahead.contains(row) && landing?.contains(row) != true {
            cancel(row)
        }
    }

    private func startUnlessCached(_ row: Int, priority: WorkPriority) {
        if let url = rows[row].logoURL, logos.cachedImage(for: url) == nil { start(row, priority: priority) }
    }

    /// A fling was released: the table will come to rest
    /// `velocity × decelerationTimeConstant` rows on. Load those rows now,
    /// at the highest priority, and let the queue run; rows flown past get nothing.
    private func loadLandingRows(velocity: Double) {
        landingTop = max(0, top + velocity * policy.decelerationTimeConstant)
        cancelRowsNotKept()
        startLandingRows()
        downloadQueue.isSuspended = false
    }

    /// Starts the landing rows that are loaded, and asks for the next page
    /// while the landing lies past them: a fling often flies beyond the
    /// list's last page, and its rows would otherwise wait for the settle.
    func startLandingRows() {
        guard let landingTop, let rest = landing else { return }
        for row in rest where !displayed.contains(row) { startUnlessCached(row, priority: .veryHigh) }
        if Int(landingTop.rounded(.down)) + viewport > rows.count { requestNextPage() }
    }

    private func priority(for row: Int) -> WorkPriority {
        guard policy.kind == .ours else { return .normal }
        let visible = visibleRows
        if visible.contains(row) { return .veryHigh }
        let distance = row < visible.lowerBound ? visible.lowerBound - row : row - visible.upperBound + 1
        return distance <= max(1, policy.prefetch / 2) ? .low : .veryLow
    }

    // MARK: Operations

    private func start(_ row: Int, priority: WorkPriority) {
        guard !isClosed, downloadsInProgress[row] == nil, let url = rows[row].logoURL else { return }
        if let failure = failures[row], clock.milliseconds < failure.retryAt { return }
        nextSerial += 1
        let serial = nextSerial
        // Weak: the download queue holds the operation, and a loader dropped
        // while rows wait must not be kept alive by them.
        let operation = logos.operation(
            name: "row \(row)", url: url, priority: priority,
            onStage: { [weak self, downloadQueue, clock, mainQueue] stage in
                let at = clock.milliseconds
                let event: WindowEvent =
                    stage == .downloading
                    ? .start(row: row, queueSuspended: downloadQueue.isSuspended) : .decoding(row: row)
                mainQueue.async { [weak self] in
                    // A row cancelled before this hop ran is over: its start would count a transfer that was already reported cancelled.
                    guard let self, downloadsInProgress[row]?.serial == serial else { return }
                    if stage == .downloading { startedDownloads.insert(row) }
                    observe(self, at, event)
                }
            },
            completion: { [weak self] result in
                // Delivered on the main queue.
                self?.finished(row, serial: serial, result: result)
            })
        downloadsInProgress[row] = (operation, serial)
        emit(.queued(row: row, priority: priority))
        downloadQueue.addOperation(operation)
    }

    private func cancel(_ row: Int) {
        guard let entry = downloadsInProgress.removeValue(forKey: row) else { return }
        entry.operation.cancel()
        emit(.cancel(row: row, started: startedDownloads.remove(row) != nil))
    }

    private func finished(_ row: Int, serial: Int, result: LogoResult) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        // A cancelled operation was already removed and reported.
        guard downloadsInProgress[row]?.serial == serial else { return }
        downloadsInProgress[row] = nil
        startedDownloads.remove(row)
        switch result {
        case .image(let image, let bytes):
            failures[row] = nil
            let window = visibleRows
            let margin = window.lowerBound - policy.prefetch..<window.upperBound + policy.prefetch
            let wasted = !margin.contains(row) && !(landing?.contains(row) ?? false)
            emit(.done(row: row, downloadedBytes: bytes, wasted: wasted))
            if window.contains(row) { display(row, image: image) }
        case .failed(let reason):
            let attempts = (failures[row]?.attempts ?? 0) + 1
            let delay = min(policy.retryMaxDelay, policy.retryBaseDelay * pow(2, Double(attempts - 1)))
            failures[row] = Failure(attempts: attempts, retryAt: clock.milliseconds + delay)
            emit(.fail(row: row, reason: reason))
        case .cancelled:
            emit(.cancel(row: row, started: false))
        }
    }

    private func display(_ row: Int, image: RGBAImage) {
        guard !displayed.contains(row) else { return }
        displayed.insert(row)
        emit(.display(row: row, image: image))
        notifyIfVisibleComplete()
    }

    private func notifyIfVisibleComplete() {
        guard !whenVisibleComplete.isEmpty, visibleRowsWithoutLogo.isEmpty else { return }
        let waiting = whenVisibleComplete
        whenVisibleComplete = []
        waiting.forEach { $0() }
    }

    /// Retries failed visible rows whose backoff has passed; the `end` wait calls this.
    public func retryFailedVisibleRows() {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        guard phase == .idle || policy.kind == .naive else { return }
        for row in visibleRows where failures[row] != nil { start(row, priority: priority(for: row)) }
    }

    func emit(_ event: WindowEvent) {
        observe(self, clock.milliseconds, event)
    }
}
