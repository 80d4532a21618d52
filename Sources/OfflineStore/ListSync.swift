import Failures
import Foundation
import HTTP
import Hotels

/// What happened next in a ``ListSync``.
public enum ListSyncEvent: Sendable {
    /// The cached list, before the network is asked: show it at once.
    case cached(CachedList)
    /// A fresh first page was merged into the cached list.
    case merged(FetchedPage, MergeResult)
    /// A "load more" page was appended; `added` of its rows were new.
    case appended(FetchedPage, added: Int)
    /// The service could not be reached (or was not asked): the cached list stands in.
    case offline(OfflineList)
    /// The list ended, or this run's page limit was reached.
    case finished(ListSyncEnd)
}

/// The cached list served when the network is gone, with what its banner says.
public struct OfflineList: Sendable {
    public var list: CachedList
    /// Why the network was not used: the error of page 1, or nil when the
    /// caller asked for the cache alone.
    public var reason: (any Error)?

    /// `offline: showing 1,234 hotels for Shanghai cached 3 h ago`
    public func banner(now: Date = Date()) -> String {
        let count = list.count.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        return "offline: showing \(count) hotels for \(list.key.city) cached \(Self.age(now.timeIntervalSince(list.fetchedAt))) ago"
    }

    /// `42 s`, `3 min`, `5 h`, `2 d`.
    public static func age(_ seconds: Double) -> String {
        switch max(0, seconds) {
        case ..<60: "\(Int(seconds)) s"
        case ..<3600: "\(Int(seconds / 60)) min"
        case ..<86400: "\(Int(seconds / 3600)) h"
        default: "\(Int(seconds / 86400)) d"
        }
    }
}

/// How a sync run ended.
public struct ListSyncEnd: Sendable, Equatable {
    /// Why the list ended, or nil when this run's page limit came first (a
    /// later run goes on from there).
    public var end: Pager.End?
    /// Pages fetched in this run.
    public var pages: Int
    /// The list as it stands now.
    public var list: CachedList?

    /// The end's name (a `Pager.End` raw value), or `maxPages`.
    public var reason: String { end?.rawValue ?? "maxPages" }
}

/// Why a sync could not serve anything.
public enum ListSyncError: Error, Sendable, CustomStringConvertible {
    /// Offline (`reason` is nil when the cache alone was asked for), and nothing is cached.
    case nothingCached(key: ListKey, reason: (any Error)?)
    /// Offline, and the options refuse a cached list.
    case staleRefused(key: ListKey, reason: (any Error)?)

    public var description: String {
        switch self {
        case .nothingCached(let key, let reason):
            "offline\(Self.why(reason)), and nothing is cached for \(key.city) from \(key.endpoint)"
        case .staleRefused(_, let reason):
            "offline\(Self.why(reason)); fresh data was required, so the cached list is not served"
        }
    }

    private static func why(_ reason: (any Error)?) -> String {
        reason.map { " (\($0))" } ?? " (cache only)"
    }
}

/// A hotel list through the offline store, cache first:
///
/// 1. the cached list, at once (``ListSyncEvent/cached(_:)``);
/// 2. a fresh page 1 merged into it: new rows inserted, changed ones
///    updated, moved ones moved; a page that shares nothing with the cache
///    replaces it (``ListSyncEvent/merged(_:_:)``);
/// 3. "load more" from where the cache stopped, each page stored with its
///    paging checkpoint in one transaction (``ListSyncEvent/appended(_:added:)``);
/// 4. ``ListSyncEvent/finished(_:)`` at the list's end or the page limit.
///
/// When page 1 cannot reach the service, the cached list is served instead
/// (``ListSyncEvent/offline(_:)``), or ``ListSyncError`` is thrown when
/// nothing is cached or fresh data is required.
///
/// ```swift
/// let sync = ListSync(client: client, storage: try SQLiteHotelStore(), city: "Paris")
/// for try await event in sync {
///     if case .appended(let page, _) = event { print(page.hotels.count) }
/// }
/// ```
///
/// Pages are asked for only as the sequence is iterated, so a table can pull
/// one page per "load more" (``Options/readAhead`` asks for one more while a
/// page is stored). A page's error is thrown from `next()`; calling `next()`
/// again asks for that page again.
public struct ListSync: AsyncSequence, Sendable {
    public typealias Element = ListSyncEvent

    public struct Options: Sendable {
        /// What page 1 is when a list is cached.
        public enum FirstPage: Sendable {
            /// Fetch page 1 and merge it, then go on where the cache stopped.
            case refresh
            /// The cached rows stand as page 1; paging goes on from the cache's checkpoint.
            case resume
        }

        public var pageSize: Int
        /// Pages to fetch in this run at most; nil for the whole list.
        public var maxPages: Int?
        /// Deliver the cached list before asking the network.
        public var cacheFirst: Bool
        public var firstPage: FirstPage
        /// Serve the cache without asking the network.
        public var cacheOnly: Bool
        /// When the network is gone, serve the cached list rather than fail.
        public var servesCacheWhenOffline: Bool
        /// Ask for the next "load more" page while this one is being stored,
        /// so the network and the store work at once: for a caller that
        /// iterates to the end, such as a batch fetch. One page ahead at most,
        /// never past `maxPages` or the list's end. A page asked for ahead is
        /// stored only when the sequence is iterated again; if it never is,
        /// that page was fetched for nothing, and the next run asks for it again.
        public var readAhead: Bool

        public init(
            pageSize: Int = 50, maxPages: Int? = nil, cacheFirst: Bool = true, firstPage: FirstPage = .refresh,
            cacheOnly: Bool = false, servesCacheWhenOffline: Bool = true, readAhead: Bool = false
        ) {
            self.pageSize = pageSize
            self.maxPages = maxPages
            self.cacheFirst = cacheFirst
            self.firstPage = firstPage
            self.cacheOnly = cacheOnly
            self.servesCacheWhenOffline = servesCacheWhenOffline
            self.readAhead = readAhead
        }
    }

    public let client: HotelClient
    public let storage: any ListStorage
    public let key: ListKey
    public let city: String
    public let keyword: String?
    /// A search by position, part of the list's key.
    public let area: SearchArea?
    public let options: Options
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - client: The client that asks the service for pages.
    ///   - storage: The store that keeps the list.
    ///   - city: The city asked for.
    ///   - keyword: A keyword the search is narrowed by, part of the list's key.
    ///   - area: A search by position, part of the list's key.
    ///   - options: The page size, the pages to fetch at most, and how a cached list is used.
    ///   - now: The clock that stamps pages as fetched.
    public init(
        client: HotelClient, storage: any ListStorage, city: String, keyword: String? = nil, area: SearchArea? = nil,
        options: Options = Options(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.client = client
        self.storage = storage
        key = ListKey(client: client, city: city, keyword: keyword, area: area)
        self.city = city
        self.keyword = keyword
        self.area = area
        self.options = options
        self.now = now
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(sync: self)
    }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        private enum Phase { case start, firstPage, more, done }

        private let sync: ListSync
        private var phase = Phase.start
        private var cached: CachedList?
        private var pages: HotelPages.Iterator?
        /// With ``Options/readAhead``: the page asked for while the last one was stored.
        private var ahead: Result<FetchedPage?, any Error>?
        private var fetched = 0

        init(sync: ListSync) {
            self.sync = sync
        }

        public mutating func next() async throws -> ListSyncEvent? {
            let options = sync.options
            switch phase {
            case .start:
                cached = try await sync.storage.cachedList(sync.key).flatMap { $0.count > 0 ? $0 : nil }
                phase = .firstPage
                if let cached, options.cacheFirst || options.cacheOnly { return .cached(cached) }
                return try await next()

            case .firstPage:
                if options.cacheOnly {
                    phase = .done
                    return try offline(reason: nil)
                }
                if options.firstPage == .resume, let cached {
                    pages = sync.pages(after: cached.checkpoint, limit: options.maxPages)
                    phase = .more
                    return try await next()
                }
                // One iterator for page 1 and the pages after it, when paging goes on
                // from page 1: it keeps the session page 1 ran in (a stateful service's
                // "more" rows live there).
                var first = sync.pages(after: nil, limit: options.maxPages)
                let fetchedPage: FetchedPage?
                do {
                    fetchedPage = try await first.next()
                } catch let error as TransportError where error.isOffline {
                    phase = .done
                    return try offline(reason: error)
                }
                guard let page = fetchedPage else { return try await finish(first) }
                fetched = 1
                let merge = try await sync.storage.mergeFirstPage(page.hotels, into: sync.key, checkpoint: page.checkpoint, now: sync.now())
                sync.client.configuration.logger.info(
                    "\(sync.key): page 1 merged: \(merge.inserted) new, \(merge.updated) updated, \(merge.moved) moved\(merge.replaced ? ", list replaced" : "")"
                )
                // Load more goes on from where the cache stopped, unless the list started over.
                if !merge.replaced, let resumed = cached?.checkpoint {
                    pages = sync.pages(after: resumed, limit: options.maxPages.map { $0 - 1 })
                } else {
                    pages = first
                }
                phase = .more
                return .merged(page, merge)

            case .more:
                // The iterator is taken out, so its pager is never shared: a pager
                // copied while its set of seen codes grows would copy that set on
                // every page.
                guard var iterator = pages.take() else { return nil }
                // A failed page leaves the iterator where it was: calling next() again asks for it again.
                defer { pages = iterator }
                let next: FetchedPage?
                if let ahead = ahead.take() {
                    next = try ahead.get()
                } else {
                    next = try await iterator.next()
                }
                guard let page = next else { return try await finish(iterator) }
                fetched += 1
                let added: Int
                if options.readAhead {
                    let (storage, key, now) = (sync.storage, sync.key, sync.now())
                    async let stored = storage.appendPage(page.hotels, to: key, checkpoint: page.checkpoint, now: now)
                    do {
                        ahead = .success(try await iterator.next())
                    } catch {
                        ahead = .failure(error)
                    }
                    added = try await stored
                } else {
                    added = try await sync.storage.appendPage(page.hotels, to: sync.key, checkpoint: page.checkpoint, now: sync.now())
                }
                sync.client.configuration.logger.info(
                    "\(sync.key): page \(page.number) appended: \(page.hotels.count) hotels, \(added) new")
                return .appended(page, added: added)

            case .done:
                return nil
            }
        }

        private mutating func finish(_ iterator: HotelPages.Iterator) async throws -> ListSyncEvent {
            phase = .done
            let list = try await sync.storage.cachedList(sync.key)
            let end = ListSyncEnd(end: iterator.pager.end, pages: fetched, list: list)
            sync.client.configuration.logger.info(
                "\(sync.key): finished (\(end.reason)) after \(fetched) pages; \(list?.count ?? 0) in the list")
            return .finished(end)
        }

        private func offline(reason: (any Error)?) throws -> ListSyncEvent {
            guard let cached else { throw ListSyncError.nothingCached(key: sync.key, reason: reason) }
            guard sync.options.servesCacheWhenOffline else { throw ListSyncError.staleRefused(key: sync.key, reason: reason) }
            let offline = OfflineList(list: cached, reason: reason)
            sync.client.configuration.logger.notice("\(sync.key): \(offline.banner())")
            return .offline(offline)
        }
    }

    private func pages(after checkpoint: Pager.Checkpoint?, limit: Int?) -> HotelPages.Iterator {
        client.pages(city: city, keyword: keyword, area: area, pageSize: options.pageSize, resumingFrom: checkpoint, maxPages: limit)
            .makeAsyncIterator()
    }
}

extension ListSyncError: MeaningfulError {
    /// Unavailable (69); worth a retry when the service was the reason.
    public var meaning: ErrorMeaning {
        switch self {
        case .nothingCached(_, let reason):
            ErrorMeaning(
                kind: .transient, status: .unavailable,
                hint: "run hotels fetch once with the service reachable; hotels cache stats shows what is cached",
                isRetryable: reason != nil)
        case .staleRefused(_, let reason):
            ErrorMeaning(
                kind: .transient, status: .unavailable, hint: "without --require-fresh the cached list is served, with a banner",
                isRetryable: reason != nil)
        }
    }
}
