import Foundation
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import Scheduling

/// What a ``ListJob`` run is doing, as it happens: for a progress line, a log, a worker's heartbeat.
public enum ListJobEvent: Sendable {
    /// The cached list, handed to the sink before the network is asked.
    case cached(CachedList)
    /// A page was fetched and stored (its logos follow).
    case pageStored(FetchedPage, PageChange)
    /// The service could not be reached (or was not asked): the cached list
    /// stands in; ``/OfflineStore/OfflineList/banner(now:)`` says so.
    case offline(OfflineList)
    /// No page follows in this run: its end, or nil after a failed page.
    /// The logos of the rows taken from the cache, and the sink's last write, follow.
    case pagingEnded(ListSyncEnd?)
    /// One logo could not be had or saved; the run goes on.
    case logoFailed(code: String, url: String, error: any Error)
    /// The logos of the rows taken from the cache could not be looked up; the run goes on.
    case cachedRowsLogosFailed(any Error)
}

/// One hotel list, run whole: its pages through the store (``/OfflineStore/ListSync``:
/// cache first, merge, resume, offline), each page's logos through a
/// ``/Logos/LogoPipeline``, and rows and logos into a ``ListSink``.
///
/// Two faces:
/// - ``run(onEvent:)`` runs to the end and returns a ``ListJobSummary``:
///   for the command line, a worker, a script.
/// - ``feed()`` pulls one page when asked, for a table that loads more at 90%.
///
/// ```swift
/// let job = ListJob(client: client, storage: try SQLiteHotelStore(), city: "Paris",
///                   logos: LogoPipeline(), sink: FolderSink(folder: URL(fileURLWithPath: "paris")))
/// let summary = try await job.run()
/// print(summary.hotels, summary.end ?? "failed", summary.logos.saved)
/// ```
///
/// A page that fails (the service, the network, or storing it) keeps the
/// pages before it: ``run(onEvent:)`` returns with ``ListJobSummary/failure``
/// set, and the sink holds the list as the store has it. It throws only when
/// nothing can be served (``/OfflineStore/ListSyncError``), or when the sink
/// or reading the store back fails.
public struct ListJob: Sendable {
    public var client: HotelClient
    public var storage: any ListStorage
    public var city: String
    public var keyword: String?
    /// A search by position (`{latitude}`, `{longitude}`, `{radius}`), part of the list's key.
    public var area: SearchArea?
    /// Page size, page limit, cache first, offline: ``/OfflineStore/ListSync/Options``.
    /// By default a whole list, cache first, one page read ahead.
    public var options: ListSync.Options
    /// Loads each row's logo for the sink; nil for none.
    public var logos: LogoPipeline?
    public var sink: any ListSink
    /// Stamps pages as fetched.
    public var now: @Sendable () -> Date

    public init(
        client: HotelClient, storage: any ListStorage, city: String, keyword: String? = nil, area: SearchArea? = nil,
        options: ListSync.Options = ListSync.Options(readAhead: true), logos: LogoPipeline? = nil,
        sink: any ListSink = StoreOnlySink(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.client = client
        self.storage = storage
        self.city = city
        self.keyword = keyword
        self.area = area
        self.options = options
        self.logos = logos
        self.sink = sink
        self.now = now
    }

    /// The list's key in the store.
    public var key: ListKey { ListKey(client: client, city: city, keyword: keyword, area: area) }

    var sync: ListSync {
        ListSync(client: client, storage: storage, city: city, keyword: keyword, area: area, options: options, now: now)
    }

    /// Runs the list to its end (or this run's page limit), then hands the
    /// sink the whole list.
    /// - Parameter onEvent: Told of each step, on the job's task.
    public func run(onEvent: (ListJobEvent) -> Void = { _ in }) async throws -> ListJobSummary {
        let sync = sync
        var summary = ListJobSummary(key: sync.key)
        summary.out = sink.location
        let started = Date()
        var logoRun = logos.map { LogoRun(pipeline: $0, sink: sink) }
        try await sink.open()
        var finished: CachedList?
        var events = sync.makeAsyncIterator()
        // A failed page ends the paging, not the job; the sink's own failures are thrown.
        while let event = try await nextEvent(&events, summary: &summary, onEvent: onEvent) {
            switch event {
            case .cached(let list):
                try await sink.showCached(list, from: storage)
                summary.cached = list.count
                onEvent(.cached(list))
            case .merged(let page, let merge):
                summary.merge = merge
                summary.added += merge.inserted
                try await stored(page, .merged(merge), summary: &summary, logos: &logoRun, onEvent: onEvent)
            case .appended(let page, let added):
                summary.added += added
                try await stored(page, .appended(added: added), summary: &summary, logos: &logoRun, onEvent: onEvent)
            case .offline(let offline):
                onEvent(.offline(offline))
                summary.offline = offline
                summary.hotels = offline.list.count
                await logoRun?.save(try await storage.hotels(in: offline.list, limit: nil), policy: .cacheOnly, onEvent: onEvent)
                return await ended(summary, logos: logoRun, started: started)
            case .finished(let end):
                summary.end = end.reason
                finished = end.list
                onEvent(.pagingEnded(end))
            }
        }
        if let finished, logoRun != nil {
            // The rows a resumed run took from the store: an earlier run may
            // have lost their logos (a failed download, a killed process).
            do {
                await logoRun?.save(try await storage.hotels(in: finished, limit: nil), onEvent: onEvent)
            } catch {
                onEvent(.cachedRowsLogosFailed(error))
            }
        }
        // The list as the sync finished it; after an error, as the store has it.
        var list = finished
        if list == nil { list = try await storage.cachedList(sync.key) }
        if let list {
            try await sink.finish(list, from: storage)
            summary.hotels = list.count
        }
        return await ended(summary, logos: logoRun, started: started)
    }

    /// The summary as the run ends: its logo counts, once the index has every note, and its time.
    private func ended(_ summary: ListJobSummary, logos run: LogoRun?, started: Date) async -> ListJobSummary {
        var summary = summary
        summary.logos = run?.counts ?? LogoCounts()
        await logos?.indexWritten()
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    /// The sync's next event; nil at its end, or after a failed page, which
    /// the summary keeps. Offline with nothing to serve is thrown.
    private func nextEvent(
        _ events: inout ListSync.Iterator, summary: inout ListJobSummary,
        onEvent: (ListJobEvent) -> Void
    ) async throws -> ListSyncEvent? {
        do {
            return try await events.next()
        } catch let error as ListSyncError {
            throw error
        } catch {
            summary.failure = error
            summary.failureDescription = client.secrets.redact(String(describing: error))
            onEvent(.pagingEnded(nil))
            return nil
        }
    }

    private func stored(
        _ page: FetchedPage, _ change: PageChange, summary: inout ListJobSummary, logos: inout LogoRun?,
        onEvent: (ListJobEvent) -> Void
    ) async throws {
        summary.pages += 1
        summary.fetched += page.hotels.count
        summary.warnings.merge(page.warningsByKind, uniquingKeysWith: +)
        try await sink.pageStored(page, change)
        onEvent(.pageStored(page, change))
        // Page by page, so no logo accumulates, whatever the length of the list.
        await logos?.save(page.hotels, onEvent: onEvent)
    }
}

/// The logos of one run: each row's at most once, the pipeline's
/// `downloadConcurrency` at once, each handed to the sink. A list job runs
/// one per list; a worker's logos job runs one over a page of a stored list.
public struct LogoRun {
    public let pipeline: LogoPipeline
    public let sink: any ListSink
    public private(set) var counts = LogoCounts()
    /// Hotels whose logo this run has saved (or tried to).
    private var tried: Set<String> = []

    public init(pipeline: LogoPipeline, sink: any ListSink = StoreOnlySink()) {
        self.pipeline = pipeline
        self.sink = sink
    }

    /// Saves the logos of `hotels` not tried yet in this run; each failure is
    /// told as ``ListJobEvent/logoFailed(code:url:error:)``, and the run goes on.
    public mutating func save(_ hotels: [Hotel], policy: LogoCachePolicy = .revalidate, onEvent: (ListJobEvent) -> Void) async {
        var untried: [(code: String, url: String)] = []
        for hotel in hotels {
            guard let url = hotel.logoURL, tried.insert(hotel.code).inserted else { continue }
            untried.append((hotel.code, url))
        }
        guard !untried.isEmpty else { return }
        let (pipeline, sink) = (pipeline, sink)
        let filtered = !pipeline.configuration.filter.filters.isEmpty
        // Each child saves its own logo and hands back only counts, its
        // failure aside: a child result holding the logo's bytes and an
        // existential error crashed release builds (Swift 6.3.1) while the
        // group copied it out.
        let failures = Locked<[(code: String, url: String, error: any Error)]>([])
        counts.add(
            await withTaskGroup(of: LogoCounts.self) { group in
                for (code, url) in untried {
                    group.addTask {
                        var counts = LogoCounts()
                        do {
                            let logo = try await pipeline.data(for: url, policy: policy)
                            let bytes = logo.data ?? []
                            try await sink.saveLogo(
                                LogoFile(code: code, bytes: bytes, format: LogoFile.Format(of: bytes, filtered: filtered)))
                            counts.count(logo, bytes: bytes.count)
                        } catch {
                            counts.failed += 1
                            failures.withLock { $0.append((code, url, error)) }
                        }
                        return counts
                    }
                }
                var total = LogoCounts()
                for await one in group { total.add(one) }
                return total
            })
        for failure in failures.value { onEvent(.logoFailed(code: failure.code, url: failure.url, error: failure.error)) }
    }
}
