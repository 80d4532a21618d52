import Dispatch

// The loader's pages: page 1, and "load more" as the window nears the end of
// the rows. In a file of its own, it shares the loader's state, which is
// internal rather than private for it.
extension VisibleWindowLoader {
    /// Requests page 1 and shows it; `shown` is called on the main queue
    /// with the result once the rows are on screen (or the request failed).
    public func loadFirstPage(_ shown: @escaping @Sendable (PageResult) -> Void) {
        dispatchPrecondition(condition: .onQueue(mainQueue))
        guard let requestPage, pages.beginFirst() != nil else { return }
        emit(.pageRequest(page: 1))
        requestPage { [self] result in
            let at = clock.milliseconds
            mainQueue.async { [self] in
                switch result {
                case .rows(let first, let isLast), .list(let first, let isLast):
                    pages.arrived()
                    observe(self, at, .pageReceived(page: 1, rows: first.count, isLast: isLast || first.isEmpty))
                    showFirstPage(first, isLast: isLast || first.isEmpty)
                case .failed(let error):
                    pages.failed(retryAt: at)
                    observe(self, at, .pageFailed(page: 1, reason: String(describing: error)))
                }
                shown(result)
            }
        }
    }

    func loadMoreIfNeeded() {
        guard !rows.isEmpty, Double(visibleRows.upperBound) >= policy.loadMoreThreshold * Double(rows.count) else { return }
        requestNextPage()
    }

    func requestNextPage() {
        guard let requestPage, !isClosed, let page = pages.beginNext(now: clock.milliseconds) else { return }
        emit(.pageRequest(page: page))
        requestPage { [self] result in
            let at = clock.milliseconds
            mainQueue.async { [self] in pageArrived(page, result, at: at) }
        }
    }

    func pageArrived(_ page: Int, _ result: PageResult, at: Double) {
        guard !isClosed else { return }
        switch result {
        case .rows(let more, let isLast):
            pages.arrived()
            let before = visibleRows
            rows += more
            pages.reachedEnd = isLast || more.isEmpty
            observe(self, at, .pageReceived(page: page, rows: more.count, isLast: reachedEnd))
            // Rows that were clipped by the end of the list come into view.
            for row in visibleRows where !before.contains(row) { willDisplay(row) }
            if phase == .decelerating { startLandingRows() }
            loadMoreIfNeeded()
        case .list(let list, let isLast):
            pages.arrived()
            observe(self, at, .pageReceived(page: page, rows: list.count, isLast: isLast || list.isEmpty))
            replaceRows(list, isLast: isLast || list.isEmpty)
            loadMoreIfNeeded()
        case .failed(let error):
            // Asked again when a row is next shown, after a pause.
            pages.failed(retryAt: clock.milliseconds + policy.retryBaseDelay)
            observe(self, at, .pageFailed(page: page, reason: String(describing: error)))
        }
    }
}
