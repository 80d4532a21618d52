import Foundation
import Scheduling
import Simulation
import Testing

@Suite("Visible-window loader (virtual clock, fake transport)")
struct WindowLoaderTests {
    @Test("The first page starts the visible rows only, at most `concurrency` at once")
    func firstPage() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial))
        #expect(harness.startedRows.sorted() == [0, 1, 2, 3])
        harness.completeAll()
        #expect(Set(harness.startedRows) == Set(0..<10))
        #expect(harness.displayedRows == Set(0..<10))
        #expect(harness.onMain { $0.visibleRowsWithoutLogo }.isEmpty)
    }

    @Test("A fling: nothing starts while dragging or decelerating; everything visible loads after settle")
    func flingStartsNothingWhileMoving() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial))
        harness.completeAll()
        let before = harness.transport.starts.count
        harness.onMain { $0.willBeginDragging() }
        #expect(harness.downloads.isSuspended)
        for top in stride(from: 1.0, through: 12, by: 1.5) { harness.onMain { $0.scroll(to: top) } }
        harness.onMain { $0.didEndDragging(willDecelerate: true) }
        for top in stride(from: 14.0, through: 40, by: 2) { harness.onMain { $0.scroll(to: top) } }
        #expect(harness.transport.starts.count == before, "a logo request was issued while the table moved")
        harness.onMain { $0.didEndDecelerating() }
        #expect(!harness.downloads.isSuspended)
        harness.completeAll()
        #expect(Set(harness.startedRows.suffix(10)) == Set(40..<50))
        #expect(harness.onMain { $0.visibleRowsWithoutLogo }.isEmpty)
        #expect(harness.count { if case .start(_, true) = $0 { true } else { false } } == 0)
    }

    @Test("Rows that left are cancelled at settle, and the transport sees the cancel")
    func leavingRowsAreCancelled() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial))
        // Rows 0-3 are downloading, 4-9 queued.
        harness.drag(through: 30)
        #expect(Set(harness.cancelledRows) == Set(0..<4))
        #expect(harness.startedRows.filter { $0 < 30 }.sorted() == [0, 1, 2, 3], "a queued row that left was started")
        #expect(harness.count { if case .cancel = $0 { true } else { false } } == 10)
        #expect(Set(harness.onMain { $0.pendingRows }) == Set(30..<40))
        harness.completeAll()
        #expect(harness.displayedRows.isSuperset(of: 30..<40))
        #expect(harness.displayedRows.isDisjoint(with: 0..<10))
    }

    @Test("Rows sharing a logo URL share one transfer, cancelled only when every row has gone")
    func sharedTransfers() throws {
        // Rows 2n and 2n+1 share a logo.
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), viewport: 4, concurrency: 4, sharedLogos: true)
        #expect(harness.transport.starts.count == 2, "\(harness.transport.starts)")
        // Rows 1-4 visible: row 0 is cancelled, but row 1 still wants logo 0.
        harness.drag(through: 1)
        #expect(harness.transport.cancels.isEmpty, "the transfer for logo 0 was cancelled while row 1 still wants it")
        harness.drag(through: 10)
        #expect(Set(harness.transport.cancels.compactMap(LoaderHarness.row(of:))) == [0, 1, 2])
        harness.completeAll()
        #expect(harness.displayedRows.isSuperset(of: 10..<14))
        // Five logos for rows 10-13 and the first window: no URL was fetched twice at once.
        #expect(harness.transport.starts.count == Set(harness.transport.starts).count)
    }

    @Test("A row cancelled after its download but before decoding never decodes")
    func cancelledBeforeDecode() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), viewport: 1)
        // Hold the worker so the decode stays queued while the row is cancelled.
        harness.worker.suspend()
        harness.transport.complete(LoaderHarness.url(0))
        harness.main.sync {
            harness.loader.willBeginDragging()
            harness.loader.scroll(to: 5)
            harness.loader.didEndDragging(willDecelerate: false)
        }
        harness.worker.resume()
        harness.settleQueues()
        #expect(harness.count { if case .decoding(0) = $0 { true } else { false } } == 0)
        #expect(harness.count { if case .done(0, _, _) = $0 { true } else { false } } == 0)
        #expect(!harness.displayedRows.contains(0))
    }

    @Test("A logo in the memory cache shows with no network work")
    func cachedLogoShowsAtOnce() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial))
        harness.completeAll()
        let starts = harness.transport.starts.count
        harness.onMain { $0.willBeginDragging() }
        harness.onMain { $0.scroll(to: 30) }
        harness.onMain { $0.scroll(to: 0) }
        #expect(harness.displayedRows == Set(0..<10))
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(harness.transport.starts.count == starts)
    }

    @Test("Prefetch off: exactly the visible rows; on: rows ahead at low priority, cancelled when the direction flips")
    func prefetch() throws {
        let off = try LoaderHarness(policy: WindowPolicy(kind: .ours, prefetch: 0))
        off.completeAll()
        #expect(Set(off.startedRows) == Set(0..<10))

        let on = try LoaderHarness(policy: WindowPolicy(kind: .ours, prefetch: 3), concurrency: 20)
        #expect(Set(on.startedRows) == Set(0..<13))
        #expect(on.count { if case .queued(let row, .veryHigh) = $0 { row < 10 } else { false } } == 10)
        #expect(on.count { if case .queued(let row, let priority) = $0 { row >= 10 && priority < .normal } else { false } } == 3)
        on.completeAll()
        // Down to 20: prefetch 30-32.
        on.drag(through: 20)
        #expect(Set(on.onMain { $0.pendingRows }) == Set(20..<33))
        // Reverse: up by one row. Prefetch ahead (30-32) is now behind and is cancelled.
        on.onMain { $0.willBeginDragging() }
        on.onMain { $0.scroll(to: 19) }
        #expect(Set(on.cancelledRows).isSuperset(of: [30, 31, 32]))
        on.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(Set(on.onMain { $0.pendingRows }) == Set(16..<29))
    }

    @Test("Ours loads the rows where a released fling will rest, not those it flies past")
    func landingRows() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .ours), concurrency: 10)
        harness.completeAll()
        harness.onMain { $0.willBeginDragging() }
        harness.onMain { $0.scroll(to: 4) }
        let velocity = 40 / WindowPolicy.uikitDecelerationTimeConstant
        harness.onMain { $0.didEndDragging(willDecelerate: true, velocity: velocity) }
        #expect(Set(harness.onMain { $0.pendingRows }) == Set(44..<54))
        flyAndSettle(harness, from: 10, to: 44)
    }

    /// Decelerates a released fling from row `start` to rest at `rest`, in
    /// steps: of the rows past the window it left, only the rest rows were
    /// started, and all of them show once it settles.
    func flyAndSettle(_ harness: LoaderHarness, from start: Int, to rest: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        for top in stride(from: Double(start), through: Double(rest), by: 6) { harness.onMain { $0.scroll(to: top) } }
        harness.onMain { $0.scroll(to: Double(rest)) }
        #expect(
            Set(harness.startedRows.filter { $0 >= start }) == Set(rest..<(rest + 10)), "a row flown past was loaded",
            sourceLocation: sourceLocation)
        harness.completeAll()
        harness.onMain { $0.didEndDecelerating() }
        #expect(harness.onMain { $0.visibleRowsWithoutLogo }.isEmpty, sourceLocation: sourceLocation)
    }

    /// Session 20's trace of `scripts/compare simulate`: the three slowest
    /// settles of ours were flings released before the page of their rest
    /// rows had arrived. The landing was cut to the rows loaded, so nothing
    /// started, and the whole window waited three rounds after the settle.
    @Test("Ours: a fling towards rows not loaded yet asks for their pages at release and starts them as they arrive")
    func landingPastLoadedRows() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .ours), concurrency: 10, rows: 50, loadMore: true)
        harness.completeAll()
        harness.onMain { $0.willBeginDragging() }
        harness.onMain { $0.scroll(to: 4) }
        #expect(harness.pages.requests == 1)
        // It will rest at row 104: two pages past the 50 rows loaded.
        let velocity = 100 / WindowPolicy.uikitDecelerationTimeConstant
        harness.onMain { $0.didEndDragging(willDecelerate: true, velocity: velocity) }
        #expect(harness.pages.requests == 2, "the next page is asked for at release")
        harness.pages.answer(.rows(LoaderHarness.rows(50..<100), isLast: false))
        harness.settleQueues()
        #expect(harness.pages.requests == 3, "and the one after, since the landing is still past the rows")
        #expect(harness.onMain { $0.pendingRows }.isEmpty)
        harness.pages.answer(.rows(LoaderHarness.rows(100..<150), isLast: false))
        harness.settleQueues()
        #expect(Set(harness.onMain { $0.pendingRows }) == Set(104..<114), "the landing rows start while the fling decelerates")
        #expect(harness.pages.requests == 3)
        flyAndSettle(harness, from: 14, to: 104)
    }

    @Test("Ours loads the rows a drag shows once it is held past a flick, as they come; a flick loads nothing until released")
    func readingDrag() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .ours), concurrency: 10)
        harness.completeAll()
        // A flick: released within 200 ms, so nothing starts during it.
        harness.onMain { $0.willBeginDragging() }
        harness.clock.advance(by: 90)
        harness.onMain { $0.scroll(to: 3) }
        harness.clock.advance(by: 90)
        harness.onMain { $0.scroll(to: 6) }
        #expect(Set(harness.startedRows) == Set(0..<10))
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(Set(harness.onMain { $0.pendingRows }) == Set(10..<16))
        harness.completeAll()

        // A reading drag: held past 200 ms, the rows on screen start, then each row as it comes.
        harness.onMain { $0.willBeginDragging() }
        harness.clock.advance(by: 150)
        harness.onMain { $0.scroll(to: 8) }
        #expect(harness.onMain { $0.pendingRows }.isEmpty)
        harness.clock.advance(by: 60)
        harness.onMain { $0.scroll(to: 9) }
        #expect(Set(harness.onMain { $0.pendingRows }) == Set(16..<19))
        #expect(!harness.onMain { $0.downloadQueue.isSuspended })
        harness.onMain { $0.scroll(to: 11) }
        #expect(Set(harness.onMain { $0.pendingRows }) == Set(16..<21))
        #expect(harness.count { if case .start(_, queueSuspended: true) = $0 { true } else { false } } == 0)
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        harness.completeAll()
        #expect(harness.onMain { $0.visibleRowsWithoutLogo }.isEmpty)
        #expect(harness.cancelledRows.isEmpty)

        // Without the setting, a held drag waits for its end, as the tutorial does.
        var tutorialLike = WindowPolicy(kind: .ours)
        tutorialLike.readingDragAfter = nil
        let waiting = try LoaderHarness(policy: tutorialLike, concurrency: 10)
        waiting.completeAll()
        waiting.onMain { $0.willBeginDragging() }
        waiting.clock.advance(by: 1000)
        waiting.onMain { $0.scroll(to: 5) }
        #expect(Set(waiting.startedRows) == Set(0..<10))
    }

    @Test("Naive starts every row shown and cancels nothing")
    func naive() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .naive), concurrency: 100)
        harness.onMain { $0.willBeginDragging() }
        for top in stride(from: 5.0, through: 30, by: 5) { harness.onMain { $0.scroll(to: top) } }
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(Set(harness.startedRows) == Set(0..<40))
        #expect(harness.transport.cancels.isEmpty)
        #expect(!harness.downloads.isSuspended)
    }

    @Test("A failed logo keeps its placeholder and is retried when shown again, after the backoff")
    func retryWithBackoff() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), viewport: 2)
        harness.transport.complete(LoaderHarness.url(0), error: URLError(.timedOut))
        harness.complete([1])
        #expect(harness.displayedRows == [1])
        #expect(harness.count { if case .fail(0, _) = $0 { true } else { false } } == 1)
        // Away and back at once: still backing off.
        for top in [5.0, 0.0] {
            harness.drag(through: top)
        }
        #expect(harness.startedRows.filter { $0 == 0 }.count == 1)
        harness.clock.advance(by: 600)
        harness.drag(through: 5, 0)
        #expect(harness.startedRows.filter { $0 == 0 }.count == 2)
        harness.completeAll()
        #expect(harness.displayedRows.contains(0))
    }

    @Test("Load more: one request per page at 90%, never twice, and none after the end")
    func loadMore() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), rows: 50, loadMore: true)
        #expect(harness.pages.requests == 1)
        harness.onMain { $0.willBeginDragging() }
        harness.onMain { $0.scroll(to: 30) }
        #expect(harness.pages.requests == 1, "asked before the 90% mark")
        harness.onMain { $0.scroll(to: 35) }
        harness.onMain { $0.scroll(to: 38) }
        harness.onMain { $0.scroll(to: 40) }
        #expect(harness.pages.requests == 2, "one page in flight at a time")
        harness.pages.answer(.rows(LoaderHarness.rows(50..<100), isLast: false))
        harness.settleQueues()
        #expect(harness.onMain { $0.rows.count } == 100)
        harness.onMain { $0.scroll(to: 60) }
        #expect(harness.pages.requests == 2)
        harness.onMain { $0.scroll(to: 85) }
        #expect(harness.pages.requests == 3)
        // A failed page is asked for again when a row is shown, after a pause.
        harness.pages.answer(.failed(URLError(.notConnectedToInternet)))
        harness.settleQueues()
        harness.onMain { $0.scroll(to: 86) }
        #expect(harness.pages.requests == 3)
        harness.clock.advance(by: 1000)
        harness.onMain { $0.scroll(to: 87) }
        #expect(harness.pages.requests == 4)
        harness.pages.answer(.rows(LoaderHarness.rows(100..<120), isLast: true))
        harness.settleQueues()
        harness.onMain { $0.scroll(to: 110) }
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(harness.pages.requests == 4)
        #expect(harness.onMain { $0.reachedEnd })
        let requested = harness.events.withLock { $0.compactMap { if case .pageRequest(let page) = $0 { page } else { nil } } }
        #expect(requested == [1, 2, 3, 3])
        #expect(harness.count { if case .pageReceived = $0 { true } else { false } } == 3)
    }
}
