/// The window loader's "load more" stage: one page in flight at a time,
/// numbered from 1. A page that failed is asked for again under its number,
/// after a pause; the end of the list ends the asking.
struct PageRequests {
    /// The pages asked for and not failed: the number of the last.
    private(set) var requested = 0
    private(set) var inFlight = false
    /// No page is asked for before this time (a failed one's pause).
    private var retryAt = 0.0
    var reachedEnd = false

    /// Page 1's number, unless a page was asked for already.
    mutating func beginFirst() -> Int? {
        guard requested == 0, !inFlight else { return nil }
        inFlight = true
        requested = 1
        return requested
    }

    /// The next page's number, if one may be asked for at `now`.
    mutating func beginNext(now: Double) -> Int? {
        guard !inFlight, !reachedEnd, now >= retryAt else { return nil }
        inFlight = true
        requested += 1
        return requested
    }

    mutating func arrived() {
        inFlight = false
    }

    /// The page in flight failed: it is asked for again, under its number, from `retryAt` on.
    mutating func failed(retryAt: Double) {
        inFlight = false
        requested -= 1
        self.retryAt = retryAt
    }
}
