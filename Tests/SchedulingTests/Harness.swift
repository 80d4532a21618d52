import Dispatch
import Foundation
import HTTP
import Imaging
import Locking
import Logos
import Scheduling
import TestSupport

/// A value behind a lock that escaping closures can share.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: PosixMutex<Value>
    init(_ value: Value) { mutex = PosixMutex(value) }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}

/// Pages on demand: records requests and answers when the test says so.
final class FakePages: Sendable {
    private let state = PosixMutex<(requests: Int, waiting: [@Sendable (PageResult) -> Void])>((0, []))

    var requests: Int { state.withLock { $0.requests } }
    var waiting: Int { state.withLock { $0.waiting.count } }

    var requester: PageRequester {
        { [self] completion in
            state.withLock {
                $0.requests += 1
                $0.waiting.append(completion)
            }
        }
    }

    func answer(_ result: PageResult) {
        let next = state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
        next?(result)
    }
}

/// A loader wired to fakes, with every queue serial so the test can run
/// all pending work to the end, deterministically, with no sleeps.
final class LoaderHarness {
    let transport: FakeLogoTransport
    let pages = FakePages()
    let clock = ManualClock()
    let main = DispatchQueue(label: "test.main")
    let worker = DispatchQueue(label: "test.worker")
    let downloads: WorkQueue
    let loader: VisibleWindowLoader
    let events = Shared<[WindowEvent]>([])
    let transfers = Shared<[LogoPipelineEvent]>([])

    init(
        policy: WindowPolicy, viewport: Int = 10, concurrency: Int = 4, rows: Int = 100, sharedLogos: Bool = false,
        loadMore: Bool = false
    ) throws {
        transport = try FakeLogoTransport()
        downloads = WorkQueue(name: "logos", maxConcurrentOperationCount: concurrency, executor: worker, completionQueue: main)
        let transferLog = transfers
        let logos = LogoPipeline(
            configuration: .init(
                transport: transport, decodeConcurrency: 2,
                observe: { event in transferLog.withLock { $0.append(event) } }),
            decodeExecutor: worker)
        let log = events
        loader = VisibleWindowLoader(
            viewport: viewport, policy: policy, logos: logos, downloadQueue: downloads, mainQueue: main,
            clock: clock, requestPage: loadMore ? pages.requester : nil,
            observe: { _, _, event in log.withLock { $0.append(event) } })
        let list = Self.rows(0..<rows, sharedLogos: sharedLogos)
        if loadMore {
            onMain { $0.loadFirstPage { _ in } }
            pages.answer(.rows(list, isLast: false))
            settleQueues()
        } else {
            onMain { $0.showFirstPage(list, isLast: true) }
        }
    }

    static func rows(_ range: Range<Int>, sharedLogos: Bool = false) -> [ListRow] {
        range.map { ListRow(code: "H\($0)", logoURL: "http://logos.test/\(sharedLogos ? $0 / 2 : $0).png") }
    }

    static func url(_ row: Int) -> String { "http://logos.test/\(row).png" }

    /// Runs `body` on the main queue, then lets every queued block run.
    @discardableResult
    func onMain<T>(_ body: (VisibleWindowLoader) -> T) -> T {
        let result = main.sync { body(loader) }
        settleQueues()
        return result
    }

    /// Drains the worker and main queues until nothing new was queued.
    func settleQueues() {
        for _ in 0..<16 {
            worker.sync {}
            main.sync {}
        }
    }

    /// A drag through `tops` that stops dead: no deceleration, so the table settles at the last one.
    func drag(through tops: Double...) {
        onMain { $0.willBeginDragging() }
        for top in tops { onMain { $0.scroll(to: top) } }
        onMain { $0.didEndDragging(willDecelerate: false) }
    }

    func complete(_ rows: [Int]) {
        rows.forEach { transport.complete(Self.url($0)) }
        settleQueues()
    }

    func completeAll() {
        // Completing lets queued work start; repeat until nothing is in flight.
        while !transport.inFlight.isEmpty {
            transport.completeAll()
            settleQueues()
        }
    }

    var startedRows: [Int] { transport.starts.compactMap(Self.row(of:)) }
    var cancelledRows: [Int] { transport.cancels.compactMap(Self.row(of:)) }

    static func row(of url: String) -> Int? {
        Int(url.dropFirst("http://logos.test/".count).dropLast(".png".count))
    }

    func count(where predicate: (WindowEvent) -> Bool) -> Int {
        events.withLock { $0.filter(predicate).count }
    }

    var displayedRows: Set<Int> {
        events.withLock { Set($0.compactMap { if case .display(let row, _) = $0 { row } else { nil } }) }
    }
}
