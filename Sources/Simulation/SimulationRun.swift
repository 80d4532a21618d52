import AtomicFiles
import Dispatch
import Fetching
import Foundation
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import Runtime
import Scheduling

/// One scroll session against a real service: the list through a list job's
/// pull face, ``/Fetching/ListFeed`` (cache first when a store is given), logos through a ``LogoPipeline``, the
/// window loader following a script in real time, and a recorder for the
/// summary, the trace and the report.
public struct SimulationRun: Sendable {
    /// The store (cached rows and logos show without network, and what is
    /// fetched is kept; an in-memory one starts every run cold, so runs
    /// compare), the logo cache and the transport.
    public var runtime: HotelRuntime
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
    /// How long the script's end waits for the visible rows' logos (30 s).
    public var endWait: Duration = .seconds(30)
    /// One JSON line per event, written as it happens.
    public var trace: FileHandle?
    /// Bytes of decoded logos kept in memory (256 MiB by default).
    public var memoryCacheLimit = 256 << 20
    /// Keep what the report's timeline draws (every download span, visible
    /// band and drag). On by default; off, a long session keeps only a number
    /// per settle, and the report has only its summary and final window.
    public var keepsTimeline = true

    public init(
        runtime: HotelRuntime, client: HotelClient, city: String, pageSize: Int = 50, viewport: Int = 10, concurrency: Int = 4,
        policy: WindowPolicy = WindowPolicy(kind: .tutorial), filter: FilterChain = FilterChain(), script: ScrollScript,
        speed: Double = 1, trace: FileHandle? = nil
    ) {
        self.runtime = runtime
        self.client = client
        self.city = city
        self.pageSize = pageSize
        self.viewport = viewport
        self.concurrency = concurrency
        self.policy = policy
        self.filter = filter
        self.script = script
        self.speed = speed
        self.trace = trace
    }

    /// A new, empty file at `path` for ``trace``.
    public static func traceFile(at path: String) throws(AtomicFileError) -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw AtomicFileError(
                path: path, operation: "create the trace", reason: errno == 0 ? "unknown" : String(cString: strerror(errno)),
                code: errno)
        }
        return handle
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
        // Page 1 is the cached list when there is one; "load more" goes on from where it stopped.
        let feed = runtime.listJob(client, city: city, options: ListSync.Options(pageSize: pageSize, firstPage: .resume)).feed()
        // Names and addresses for the report's final window, by code, as pages arrive.
        let hotels = Locked([String: Hotel]())
        let clock = WallClock()
        let mainQueue = DispatchQueue(label: "hotelkit.simulate.main")
        let recorder = SimulationRecorder(
            policy: policy.kind.rawValue, viewport: viewport, unixOrigin: clock.unixOrigin, trace: trace,
            keepsTimeline: keepsTimeline)
        let downloads = WorkQueue(name: "logos", maxConcurrentOperationCount: concurrency, completionQueue: mainQueue)
        let logos = runtime.makeLogos(filter: filter, memoryCacheLimit: memoryCacheLimit, observe: { recorder.recordTransfer($0) })
        let loader = VisibleWindowLoader(
            viewport: viewport, policy: policy, logos: logos, downloadQueue: downloads,
            mainQueue: mainQueue, clock: clock,
            requestPage: feed.pageRequester(onPage: { page in
                hotels.withLock { known in for hotel in page.hotels { known[hotel.code] = hotel } }
            }),
            observe: { loader, at, event in recorder.record(loader, at, event) })
        // Closed on the main queue, where events are written, so no late
        // completion of cancelled work can write to a closed file.
        defer { mainQueue.sync { recorder.closeTrace() } }
        var simulation = ScrollSimulation(script: script, speed: speed)
        simulation.endWait = endWait
        try await simulation.run(loader, clock: clock, applied: applied)
        // Cancelling reports every transfer still in flight as cancelled, at once.
        downloads.cancelAll()
        return mainQueue.sync {
            recorder.closeTrace()
            let known = hotels.value
            let finalWindow = loader.visibleRows.map { row in
                let code = loader.rows[row].code
                return FinalWindowRow(code: code, name: known[code]?.name, address: known[code]?.address, logo: recorder.shownImages[row])
            }
            let report = SimulationReport(
                recorder: recorder, finalWindow: finalWindow,
                title: "hotels simulate: \(city), \(policy.kind.rawValue) policy")
            return Outcome(summary: recorder.summary, report: report, traceError: recorder.traceError)
        }
    }
}
