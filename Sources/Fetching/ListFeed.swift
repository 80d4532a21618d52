import Foundation
import Hotels
import OfflineStore
import Scheduling

/// A list pulled one page at a time, when asked: "the user is at 90%, give
/// me the next page". The face of a ``ListJob`` for a table and the window
/// loader; ``ListJob/run(onEvent:)`` is the face for running a list to its end.
///
/// The first page is the cached list, whole, when there is one (then
/// "load more" goes on from where the cache stopped); each later page is
/// fetched and stored before it is handed out. Offline, the cached list is
/// the first and last page. Rows go to the caller, not to the job's sink,
/// and logos are the caller's to load (``/Scheduling/VisibleWindowLoader``).
///
/// ```swift
/// let feed = ListJob(client: client, storage: store, city: "Paris",
///                    options: .init(pageSize: 50, firstPage: .resume)).feed()
/// let first = try await feed.nextPage()      // shown at once
/// if !first.isLast { let more = try await feed.nextPage() }
/// ```
public final class ListFeed: Sendable {
    /// Rows to append to the table.
    public struct Page: Sendable {
        public var hotels: [Hotel]
        /// No page follows.
        public var isLast: Bool
        /// Set when the service could not be reached and these are the cached rows.
        public var offline: OfflineList?
    }

    private let events: Events
    private let storage: any ListStorage

    init(job: ListJob) {
        events = Events(iterator: job.sync.makeAsyncIterator())
        storage = job.storage
    }

    /// Holds the iterator between pulls, so no two pulls overlap.
    private actor Events {
        var iterator: ListSync.Iterator
        init(iterator: ListSync.Iterator) { self.iterator = iterator }

        func next() async throws -> ListSyncEvent? {
            var current = iterator
            defer { iterator = current }
            return try await current.next()
        }
    }

    /// The next page. After the last, an empty last page. A failed page
    /// throws; asking again asks for it again. Offline with nothing cached,
    /// it throws the network's error.
    public func nextPage() async throws -> Page {
        do {
            switch try await events.next() {
            case .cached(let list):
                return Page(hotels: try await storage.hotels(in: list, offset: 0, limit: nil), isLast: list.isExhausted)
            case .merged(let page, _), .appended(let page, _):
                return Page(hotels: page.hotels, isLast: page.end != nil)
            case .offline(let offline):
                return Page(hotels: try await storage.hotels(in: offline.list, offset: 0, limit: nil), isLast: true, offline: offline)
            case .finished, nil:
                return Page(hotels: [], isLast: true)
            }
        } catch ListSyncError.nothingCached(_, let reason?) {
            // Nothing cached to stand in: the page failed for the network's reason.
            throw reason
        }
    }

    /// The feed as the window loader's "load more".
    public var pageRequester: PageRequester {
        { [self] completion in
            Task {
                do {
                    let page = try await nextPage()
                    completion(.rows(page.hotels.map { ListRow(code: $0.code, logoURL: $0.logoURL) }, isLast: page.isLast))
                } catch {
                    completion(.failed(error))
                }
            }
        }
    }
}

extension ListJob {
    /// The list, a page at a time when asked (see ``ListFeed``).
    public func feed() -> ListFeed {
        ListFeed(job: self)
    }
}
