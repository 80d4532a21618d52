import Foundation
import Hotels
import OfflineStore
import Scheduling

/// A list pulled one page at a time, when asked: "the user is at 90%, give
/// me the next page". The face of a ``ListJob`` for a table and the window
/// loader; ``ListJob/run(onEvent:)`` is the face for running a list to its end.
///
/// The first page is the cached list, whole, when there is one. With
/// ``/OfflineStore/ListSync/Options/FirstPage/resume`` "load more" goes on
/// from where the cache stopped; with `refresh` the next page is the whole
/// list again once a fresh page 1 is merged in (``Page/replacesList``).
/// Each later page is fetched and stored before it is handed out. Offline,
/// the cached list is the first and last page. Rows go to the caller, not to the job's sink,
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
        /// These rows are the whole list, in place of what was shown: the
        /// cached list, or the list with a fresh page 1 merged into it.
        public var replacesList = false
        /// These are cached rows, and the next page is the fresh page 1
        /// merged into them: ask for it at once, not when the user nears the end.
        public var refreshFollows = false
    }

    private let events: Events
    private let storage: any ListStorage
    private let key: ListKey
    private let refreshes: Bool

    init(job: ListJob) {
        let sync = job.sync
        events = Events(iterator: sync.makeAsyncIterator())
        storage = job.storage
        key = sync.key
        refreshes = sync.options.firstPage == .refresh && !sync.options.cacheOnly
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
                return Page(
                    hotels: try await storage.hotels(in: list, limit: nil), isLast: list.isExhausted && !refreshes,
                    replacesList: true, refreshFollows: refreshes)
            case .merged(let page, let merge):
                // The merge may have moved, updated and inserted rows anywhere in the cached list: hand out the whole of it.
                guard let list = try await storage.cachedList(key) else {
                    return Page(hotels: page.hotels, isLast: page.end != nil, replacesList: true)
                }
                return Page(
                    hotels: try await storage.hotels(in: list, limit: nil),
                    isLast: merge.replaced ? page.end != nil : list.isExhausted, replacesList: true)
            case .appended(let page, _):
                return Page(hotels: page.hotels, isLast: page.end != nil)
            case .offline(let offline):
                return Page(
                    hotels: try await storage.hotels(in: offline.list, limit: nil), isLast: true, offline: offline,
                    replacesList: true)
            case .finished, nil:
                return Page(hotels: [], isLast: true)
            }
        } catch ListSyncError.nothingCached(_, let reason?) {
            // Nothing cached to stand in: the page failed for the network's reason.
            throw reason
        }
    }

    /// The feed as the window loader's "load more".
    public var pageRequester: PageRequester { pageRequester(onPage: { _ in }) }

    /// The feed as the window loader's "load more"; `onPage` sees each page
    /// (its hotels, whether it is offline) before the loader does.
    public func pageRequester(onPage: @escaping @Sendable (Page) -> Void) -> PageRequester {
        { [self] completion in
            Task {
                do {
                    let page = try await nextPage()
                    onPage(page)
                    let rows = page.hotels.map { ListRow(code: $0.code, logoURL: $0.logoURL) }
                    completion(page.replacesList ? .list(rows, isLast: page.isLast) : .rows(rows, isLast: page.isLast))
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
