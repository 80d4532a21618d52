import Foundation
import Scheduling
import Testing

@Suite("Visible-window loader: the list changing under the table, and the screen changing size")
struct WindowLoaderListTests {
    @Test("loadMore asks at once; a .list answer replaces the rows in place: moved rows lose their work, kept rows keep their logo")
    func listReplacesRows() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), rows: 50, loadMore: true)
        harness.complete([0, 1, 2, 3])
        // Rows 0-3 show their logos; rows 4-9 are downloading or queued.
        #expect(harness.displayedRows == Set(0..<4))
        #expect(harness.pages.requests == 1)
        harness.onMain { $0.loadMore() }
        #expect(harness.pages.requests == 2, "loadMore asks far from the 90% mark")
        harness.onMain { $0.loadMore() }
        #expect(harness.pages.requests == 2, "one page in flight at a time")

        // Page 1 merged: a new hotel at the top, so rows 0-9 hold other codes now, except none.
        var merged = LoaderHarness.rows(0..<50)
        merged.insert(ListRow(code: "NEW", logoURL: "http://logos.test/900.png"), at: 0)
        let startsBefore = harness.transport.starts.count
        harness.pages.answer(.list(merged, isLast: false))
        harness.settleQueues()
        #expect(harness.onMain { $0.rows.count } == 51)
        #expect(harness.onMain { $0.top } == 0, "the window stays where it was")
        // Rows 4-9 were pending (started or queued, however far the queues got): each holds another hotel now, and is cancelled.
        let cancelled = harness.events.withLock { $0.compactMap { if case .cancel(let row, _) = $0 { row } else { nil } } }
        #expect(cancelled.sorted() == Array(4..<10), "rows whose code moved lose their work")
        #expect(Set(harness.cancelledRows).isSubset(of: 4..<10), "only those rows' transfers were cut")
        // Rows 1-3 hold hotels 0-2, whose logos are in memory: shown again with no transfer.
        harness.completeAll()
        let newStarts = harness.transport.starts.dropFirst(startsBefore)
        #expect(!newStarts.contains(LoaderHarness.url(0)) && !newStarts.contains(LoaderHarness.url(1)))
        #expect(newStarts.contains("http://logos.test/900.png"))
        #expect(harness.onMain { $0.visibleRowsWithoutLogo }.isEmpty)
        #expect(harness.count { if case .pageReceived(2, 51, false) = $0 { true } else { false } } == 1)
    }

    @Test("A .list that keeps every code changes nothing: no cancel, no new transfer")
    func unchangedListIsFree() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), rows: 50, loadMore: true)
        let startsBefore = harness.transport.starts.count
        harness.onMain { $0.loadMore() }
        harness.pages.answer(.list(LoaderHarness.rows(0..<50), isLast: true))
        harness.settleQueues()
        #expect(harness.transport.cancels.isEmpty)
        #expect(harness.transport.starts.count == startsBefore)
        #expect(harness.onMain { $0.reachedEnd })
    }

    @Test("A smaller screen forgets the rows that left at its settle; a larger one loads the rows that came")
    func resize() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), viewport: 10, concurrency: 10)
        #expect(Set(harness.startedRows) == Set(0..<10))
        harness.onMain { $0.resize(viewport: 4) }
        #expect(Set(harness.cancelledRows) == Set(4..<10))
        #expect(harness.onMain { $0.visibleRows } == 0..<4)
        harness.completeAll()
        harness.onMain { $0.resize(viewport: 12) }
        #expect(Set(harness.startedRows).isSuperset(of: 4..<12), "the rows that came into view load")
        harness.completeAll()
        #expect(harness.onMain { $0.visibleRowsWithoutLogo }.isEmpty)
    }

    @Test("While dragging, a resize starts nothing: the rows load when the drag settles")
    func resizeWhileDragging() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), viewport: 4, concurrency: 10)
        harness.completeAll()
        let before = harness.transport.starts.count
        harness.onMain { $0.willBeginDragging() }
        harness.onMain { $0.resize(viewport: 8) }
        #expect(harness.transport.starts.count == before)
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(Set(harness.startedRows.dropFirst(before)) == Set(4..<8))
    }

    @Test("A shorter list, or a taller screen at the end, brings the window back to the list's end rather than past it")
    func windowStaysOnTheList() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), rows: 50, loadMore: true)
        harness.drag(through: 40)
        harness.onMain { $0.loadMore() }
        harness.pages.answer(.list(LoaderHarness.rows(0..<20), isLast: true))
        harness.settleQueues()
        #expect(harness.onMain { $0.top } == 10)
        #expect(harness.onMain { $0.visibleRows } == 10..<20)
        harness.onMain { $0.resize(viewport: 15) }
        #expect(harness.onMain { $0.visibleRows } == 5..<20)
        harness.completeAll()
        #expect(harness.onMain { $0.visibleRowsWithoutLogo }.isEmpty)
    }

    @Test("Page 1 landing during a drag starts nothing and leaves the queue suspended until the drag settles")
    func firstPageDuringADrag() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), rows: 0)
        harness.onMain { $0.willBeginDragging() }
        harness.onMain { $0.showFirstPage(LoaderHarness.rows(0..<30), isLast: true) }
        #expect(harness.transport.starts.isEmpty)
        #expect(harness.downloads.isSuspended)
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(harness.startedRows.count == 4 && Set(harness.startedRows).isSubset(of: 0..<10))
    }

    @Test("A closed loader cancels what is pending and starts nothing more, not even for a page that lands later")
    func closed() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial), rows: 50, loadMore: true)
        harness.onMain { $0.loadMore() }
        #expect(harness.pages.requests == 2)
        harness.onMain { $0.close() }
        #expect(Set(harness.cancelledRows) == Set(0..<4))
        let starts = harness.transport.starts.count
        harness.pages.answer(.rows(LoaderHarness.rows(50..<100), isLast: false))
        harness.settleQueues()
        harness.onMain { $0.scroll(to: 90) }
        harness.onMain { $0.didEndDragging(willDecelerate: false) }
        #expect(harness.transport.starts.count == starts)
        #expect(harness.pages.requests == 2)
    }
}
