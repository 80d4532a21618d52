import Foundation
import Imaging
import Locking
import Logos
import Scheduling

/// What a scroll session cost and how it felt.
public struct SimulationSummary: Sendable, Codable, Equatable {
    public struct Percentiles: Sendable, Codable, Equatable {
        public var p50: Double
        public var p90: Double
        public var p99: Double
    }

    public var policy: String
    public var rows = 0
    /// Network transfers. Every one that started ended in exactly one of
    /// completed, cancelled or failed: rows that shared a transfer count once.
    public var downloadsStarted = 0
    public var downloadsCompleted = 0
    public var downloadsCancelled = 0
    public var downloadsFailed = 0
    /// Must be 0: no logo operation starts while the queue is suspended.
    public var startedWhileSuspended = 0
    /// Downloads that completed for rows neither visible nor in the prefetch margin.
    public var wasted = 0
    public var bytes = 0
    public var bytesWasted = 0
    /// For each row visible at a settle point: settle to display.
    public var displayLatencyMs = Percentiles(p50: 0, p90: 0, p99: 0)
    public var settles = 0
    public var visibleWithoutLogoAtEnd = 0
    public var pagesRequested = 0
    /// Must be 0: a page that already arrived is never asked for again.
    public var duplicatePageRequests = 0
    public var durationMs = 0.0
    /// The HTML report's path, once one is written.
    public var report: String?
}

/// The summary as `hotels simulate` prints it: one labelled line per figure.
extension SimulationSummary: CustomStringConvertible {
    public var description: String {
        let lines: [(String, String)] =
            [
                ("policy", policy),
                ("rows", "\(rows)"),
                (
                    "downloads",
                    "\(downloadsStarted) started, \(downloadsCompleted) completed, \(downloadsCancelled) cancelled, \(downloadsFailed) failed"
                ),
                ("started while suspended", "\(startedWhileSuspended)"),
                ("wasted", "\(wasted) downloads, \(bytesWasted) of \(bytes) bytes"),
                (
                    "display latency",
                    "p50 \(displayLatencyMs.p50) ms, p90 \(displayLatencyMs.p90) ms, p99 \(displayLatencyMs.p99) ms (\(settles) settles)"
                ),
                ("visible without logo at end", "\(visibleWithoutLogoAtEnd)"),
                ("pages", "\(pagesRequested) requested, \(duplicatePageRequests) duplicate"),
            ] + (report.map { [("report", $0)] } ?? [])
        return lines.map { $0.0.padding(toLength: 28, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }
}

/// One logo operation's life, for the timeline.
public struct OperationSpan: Sendable, Equatable {
    public enum Outcome: String, Sendable { case done, cancelled, failed, unfinished }
    public var row: Int
    public var queuedAt: Double
    public var downloadAt: Double?
    public var decodeAt: Double?
    public var endAt: Double?
    public var outcome = Outcome.unfinished
}

/// Listens to a ``VisibleWindowLoader``: writes the trace as events happen,
/// and keeps what the summary and the report need. Used on the main queue,
/// but for ``recordTransfer(_:)``, which any thread may call.
// @unchecked Sendable: everything but `transfers` (a PosixMutex) is touched only
// on the loader's main queue, as the loader's own state is.
public final class SimulationRecorder: @unchecked Sendable {
    private var rowSummary: SimulationSummary
    /// Network transfers, counted as the pipeline reports them.
    private let transfers = PosixMutex((started: 0, completed: 0, cancelled: 0, failed: 0))
    /// The logos the visible rows show, as their display events carried them.
    public private(set) var shownImages: [Int: RGBAImage] = [:]

    /// The summary so far: row events, and transfers as they stand now.
    public var summary: SimulationSummary {
        var summary = rowSummary
        transfers.withLock { counts in
            summary.downloadsStarted = counts.started
            summary.downloadsCompleted = counts.completed
            summary.downloadsCancelled = counts.cancelled
            summary.downloadsFailed = counts.failed
        }
        return summary
    }
    public private(set) var spans: [OperationSpan] = []
    /// The visible band over time: (ms, first row, end row).
    public private(set) var band: [(at: Double, visible: Range<Int>)] = []
    /// Periods of dragging and deceleration.
    public private(set) var motion: [(from: Double, to: Double, decelerating: Bool)] = []

    private let unixOrigin: Double
    /// Open until ``closeTrace()``: work cancelled at the end of a run can
    /// still finish afterwards, and its events are then not written.
    private var trace: FileHandle?
    /// Why the trace stopped early (a full disk, say); the events before it were written.
    public private(set) var traceError: (any Error)?
    private var openSpan: [Int: Int] = [:]
    /// Rows visible at the last settle that are still waiting, with the settle time.
    private var waitingSince: [Int: Double] = [:]
    private var latencies: [Double] = []
    private var displayed: Set<Int> = []
    private var requestedPages: Set<Int> = []
    private var receivedPages: Set<Int> = []
    private var motionStart: (at: Double, decelerating: Bool)?
    private var lastVisible = 0..<0
    private let viewport: Int
    /// Whether ``spans``, ``band`` and ``motion`` are kept for the report's timeline.
    public let keepsTimeline: Bool

    /// - Parameter keepsTimeline: Keep every download span, visible band and
    ///   drag for the report's timeline. They grow with the session; without
    ///   them the recorder keeps only a number per settle (for the latency
    ///   percentiles), and the summary is the same.
    public init(policy: String, viewport: Int, unixOrigin: Double, trace: FileHandle?, keepsTimeline: Bool = true) {
        rowSummary = SimulationSummary(policy: policy)
        self.viewport = viewport
        self.unixOrigin = unixOrigin
        self.trace = trace
        self.keepsTimeline = keepsTimeline
    }

    /// Feeds one event, and the rows the loader holds after it.
    public func record(_ loader: VisibleWindowLoader, _ at: Double, _ event: WindowEvent) {
        writeTrace(at, event)
        rowSummary.rows = loader.rows.count
        switch event {
        case .dragBegin:
            motionStart = (at, false)
            // A row still waiting when the user moves on waited at least this long.
            latencies += waitingSince.values.map { at - $0 }
            waitingSince = [:]
        case .dragEnd(let decelerate):
            closeMotion(at)
            if decelerate { motionStart = (at, true) }
        case .decelerateEnd:
            closeMotion(at)
        case .scroll:
            let visible = loader.visibleRows
            for row in lastVisible where !visible.contains(row) {
                displayed.remove(row)
                shownImages[row] = nil
                if let since = waitingSince.removeValue(forKey: row) { latencies.append(at - since) }
            }
            noteBand(at, visible)
        case .settle(let visible):
            rowSummary.settles += 1
            noteBand(at, visible)
            for row in visible where loader.rows[row].logoURL != nil {
                if displayed.contains(row) { latencies.append(0) } else { waitingSince[row] = at }
            }
        case .queued(let row, _) where keepsTimeline:
            openSpan[row] = spans.count
            spans.append(OperationSpan(row: row, queuedAt: at))
        case .queued:
            break
        case .start(let row, let suspended):
            if suspended { rowSummary.startedWhileSuspended += 1 }
            updateSpan(row) { $0.downloadAt = at }
        case .decoding(let row):
            updateSpan(row) { $0.decodeAt = at }
        case .cancel(let row, _):
            closeSpan(row, at, .cancelled)
        case .done(let row, let bytes, let wasted):
            if let bytes {
                rowSummary.bytes += bytes
                if wasted {
                    rowSummary.wasted += 1
                    rowSummary.bytesWasted += bytes
                }
            }
            closeSpan(row, at, .done)
        case .fail(let row, _):
            closeSpan(row, at, .failed)
        case .display(let row, let image):
            displayed.insert(row)
            shownImages[row] = image
            if let since = waitingSince.removeValue(forKey: row) { latencies.append(at - since) }
        case .pageRequest(let page):
            rowSummary.pagesRequested += 1
            if receivedPages.contains(page) || requestedPages.contains(page) { rowSummary.duplicatePageRequests += 1 }
            requestedPages.insert(page)
        case .pageReceived(let page, _, _):
            receivedPages.insert(page)
        case .pageFailed(let page, _):
            requestedPages.remove(page)
        case .end:
            rowSummary.durationMs = at
            rowSummary.visibleWithoutLogoAtEnd = loader.visibleRowsWithoutLogo.count
            noteBand(at, loader.visibleRows)
            closeMotion(at)
            for (row, since) in waitingSince where !displayed.contains(row) { latencies.append(at - since) }
            waitingSince = [:]
            rowSummary.displayLatencyMs = Self.percentiles(latencies)
        }
    }

    /// Counts a network transfer's start or end.
    public func recordTransfer(_ event: LogoPipelineEvent) {
        transfers.withLock { counts in
            switch event {
            case .transferStarted: counts.started += 1
            case .transferEnded(_, .completed): counts.completed += 1
            case .transferEnded(_, .cancelled): counts.cancelled += 1
            case .transferEnded(_, .failed): counts.failed += 1
            }
        }
    }

    private func noteBand(_ at: Double, _ visible: Range<Int>) {
        lastVisible = visible
        if keepsTimeline, band.last?.visible != visible { band.append((at, visible)) }
    }

    private func closeMotion(_ at: Double) {
        if keepsTimeline, let start = motionStart { motion.append((start.at, at, start.decelerating)) }
        motionStart = nil
    }

    private func updateSpan(_ row: Int, _ change: (inout OperationSpan) -> Void) {
        if let index = openSpan[row] { change(&spans[index]) }
    }

    private func closeSpan(_ row: Int, _ at: Double, _ outcome: OperationSpan.Outcome) {
        guard let index = openSpan.removeValue(forKey: row) else { return }
        spans[index].endAt = at
        spans[index].outcome = outcome
    }

    static func percentiles(_ values: [Double]) -> SimulationSummary.Percentiles {
        guard !values.isEmpty else { return .init(p50: 0, p90: 0, p99: 0) }
        let sorted = values.sorted()
        // Nearest rank.
        func rank(_ share: Double) -> Double {
            (sorted[min(sorted.count - 1, max(0, Int((share * Double(sorted.count)).rounded(.up)) - 1))] * 10).rounded() / 10
        }
        return .init(p50: rank(0.5), p90: rank(0.9), p99: rank(0.99))
    }

    private func writeTrace(_ at: Double, _ event: WindowEvent) {
        guard let trace else { return }
        let (name, row): (String, Int?) =
            switch event {
            case .dragBegin: ("dragBegin", nil)
            case .scroll: ("scroll", nil)
            case .dragEnd: ("dragEnd", nil)
            case .decelerateEnd: ("decelerateEnd", nil)
            case .end: ("end", nil)
            case .start(let row, _): ("start", row)
            case .cancel(let row, _): ("cancel", row)
            case .done(let row, _, _): ("done", row)
            case .fail(let row, _): ("fail", row)
            case .display(let row, _): ("display", row)
            case .pageRequest: ("pageRequest", nil)
            case .pageReceived: ("pageReceived", nil)
            case .pageFailed: ("pageFailed", nil)
            case .settle, .queued, .decoding: ("", nil)
            }
        guard !name.isEmpty else { return }
        var line = "{\"t\":\(Int64((unixOrigin + at).rounded())),\"event\":\"\(name)\""
        if let row { line += ",\"row\":\(row)" }
        switch event {
        case .scroll(let top): line += ",\"top\":\(top)"
        case .dragEnd(let decelerate): line += ",\"decelerate\":\(decelerate)"
        case .pageRequest(let page), .pageReceived(let page, _, _), .pageFailed(let page, _): line += ",\"page\":\(page)"
        default: break
        }
        do {
            try trace.write(contentsOf: Data((line + "}\n").utf8))
        } catch {
            traceError = error
            self.trace = nil
        }
    }

    /// Closes the trace; later events are kept for the summary but not written.
    public func closeTrace() {
        guard let trace else { return }
        self.trace = nil
        do {
            try trace.close()
        } catch {
            traceError = traceError ?? error
        }
    }
}
