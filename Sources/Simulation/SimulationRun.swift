import Dispatch
import Foundation
import Hotels
import Imaging
import Logos
import OfflineStore
import Scheduling

/// One scroll session against a real service: the list through ``ListSync``
/// (cache first when a store is given), logos through a ``LogoPipeline``, the
/// window loader following a script in real time, and a recorder for the
/// summary, the trace and the report.
public struct SimulationRun: Sendable {
    public var client: HotelClient
    public var city: String
    public var pageSize: Int
    public var viewport: Int
    /// Logo downloads at once.
    public var concurrency: Int
    public var policy: WindowPolicy
    public var filter: FilterChain
    public var script: ScrollScript
    /// 2 replays twice as fast.
    public var speed: Double
    /// Cached rows and logos show without network, and what is fetched is
    /// kept. Without one, an in-memory store: every run starts cold, so runs compare.
    public var store: HotelStore?
    public var diskCache: DiskImageCache?
    /// One JSON line per event, written as it happens.
    public var trace: FileHandle?
    /// Bytes of decoded logos kept in memory (256 MiB by default).
    public var memoryCacheLimit = 256 << 20
    /// Keep what the report's timeline draws (every download span, visible
    /// band and drag). On by default; off, a long session keeps only a number
    /// per settle, and the report has only its summary and contact sheet.
    public var keepsTimeline = true

    public init(client: HotelClient, city: String, pageSize: Int = 50, viewport: Int = 10, concurrency: Int = 4,
                policy: WindowPolicy = WindowPolicy(kind: .tutorial), filter: FilterChain = FilterChain(), script: ScrollScript,
                speed: Double = 1, store: HotelStore? = nil, diskCache: DiskImageCache? = nil, trace: FileHandle? = nil) {
        self.client = client
        self.city = city
        self.pageSize = pageSize
        self.viewport = viewport
        self.concurrency = concurrency
        self.policy = policy
        self.filter = filter
        self.script = script
        self.speed = speed
        self.store = store
        self.diskCache = diskCache
        self.trace = trace
    }

    public struct Outcome {
        public var summary: SimulationSummary
        public var report: SimulationReport
        /// Why the trace stopped early (a full disk, say), if it did.
        public var traceError: (any Error)?
    }

    /// Runs the session. Throws ``ScrollSimulation/FirstPageFailed`` when page 1 cannot be shown.
    /// - Parameter applied: Called after each script event, for progress.
    public func run(applied: @escaping @Sendable () -> Void = {}) async throws -> Outcome {
        let storage = try store ?? HotelStore.inMemory()
        let sync = ListSync(client: client, storage: storage, city: city,
                            options: ListSync.Options(pageSize: pageSize, firstPage: .resume))
        let feed = PageFeed(sync: sync, storage: storage)
        let clock = WallClock()
        let mainQueue = DispatchQueue(label: "hotelkit.simulate.main")
        let recorder = SimulationRecorder(policy: policy.kind.rawValue, viewport: viewport, unixOrigin: clock.unixOrigin, trace: trace,
                                          keepsTimeline: keepsTimeline)
        let downloads = WorkQueue(name: "logos", maxConcurrentOperationCount: concurrency, completionQueue: mainQueue)
        let logos = LogoPipeline(configuration: LogoPipeline.Configuration(
            transport: HTTPLogoTransport(client: client.configuration.transport), filter: filter,
            memoryCache: MemoryImageCache(costLimit: memoryCacheLimit), diskCache: diskCache, index: store,
            logger: client.configuration.logger, observe: { recorder.recordTransfer($0) }))
        let loader = VisibleWindowLoader(viewport: viewport, policy: policy, logos: logos, downloadQueue: downloads,
                                         mainQueue: mainQueue, clock: clock, requestPage: feed.requester,
                                         observe: { loader, at, event in recorder.record(loader, at, event) })
        // Closed on the main queue, where events are written, so no late
        // completion of cancelled work can write to a closed file.
        defer { mainQueue.sync { recorder.closeTrace() } }
        try await ScrollSimulation(script: script, speed: speed).run(loader, clock: clock, applied: applied)
        // Cancelling reports every transfer still in flight as cancelled, at once.
        downloads.cancelAll()
        return mainQueue.sync {
            recorder.closeTrace()
            let finalWindow = loader.visibleRows.map { row in (code: loader.rows[row].code, logo: recorder.shownImages[row]) }
            let report = SimulationReport(recorder: recorder, finalWindow: finalWindow,
                                          title: "hotels simulate: \(city), \(policy.kind.rawValue) policy")
            return Outcome(summary: recorder.summary, report: report, traceError: recorder.traceError)
        }
    }
}

/// Pages of the list for the loader's "load more", pulled from a
/// ``ListSync`` one event at a time: page 1 is the cached list when there is
/// one, and later pages go on from where it stopped and are written through.
final class PageFeed: Sendable {
    private let events: Events
    private let storage: any ListStorage

    init(sync: ListSync, storage: any ListStorage) {
        events = Events(iterator: sync.makeAsyncIterator())
        self.storage = storage
    }

    /// Holds the iterator between pulls. The loader asks for one page at a
    /// time, so no two pulls overlap.
    private actor Events {
        var iterator: ListSync.Iterator
        init(iterator: ListSync.Iterator) { self.iterator = iterator }

        func next() async throws -> ListSyncEvent? {
            var current = iterator
            defer { iterator = current }
            return try await current.next()
        }
    }

    var requester: PageRequester {
        { [self] completion in
            Task { completion(await nextPage()) }
        }
    }

    private func nextPage() async -> PageResult {
        do {
            switch try await events.next() {
            case .cached(let list):
                return .rows(try await storage.hotels(in: list, offset: 0, limit: nil).map(Self.row), isLast: list.isExhausted)
            case .merged(let page, _), .appended(let page, _):
                return .rows(page.hotels.map(Self.row), isLast: page.end != nil)
            case .offline(let offline):
                return .rows(try await storage.hotels(in: offline.list, offset: 0, limit: nil).map(Self.row), isLast: true)
            case .finished, nil:
                return .rows([], isLast: true)
            }
        } catch ListSyncError.nothingCached(_, let reason?) {
            // Nothing cached to stand in: the page failed for the network's reason.
            return .failed(reason)
        } catch {
            return .failed(error)
        }
    }

    private static func row(_ hotel: Hotel) -> ListRow {
        ListRow(code: hotel.code, logoURL: hotel.logoURL)
    }
}
