import ArgumentParser
import Console
import Failures
import Fetching
import Foundation
import Imaging
import Runtime
import Scheduling
import Simulation

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Scroll a simulated table of hotels and load logos for the visible rows only.",
        discussion: """
            Loads the first page, then replays a scroll script (JSON Lines of {"at": MS, "event": \
            "dragBegin"|"scroll"|"dragEnd"|"decelerateEnd"|"end", "top": ROW, "decelerate": BOOL}) \
            in real time, or a generated --fling session. Logo work follows the table-view tutorial: \
            nothing starts while dragging, rows that leave are cancelled, visible rows load when \
            scrolling stops; --prefetch adds low-priority work ahead of the scroll. Prints a summary; \
            --trace writes every event, --report an HTML page with a timeline and the final window.
            """
    )

    @OptionGroup var list: ListOptions
    @OptionGroup var window: WindowOptions
    @Option(help: "A scroll script (JSON Lines).") var script: String?
    @Flag(help: "Generate a realistic session of drags, flings, pauses and reversals.") var fling = false
    @Option(help: "With --fling: rows to scroll through.") var flingRows = 300
    @Option(help: "With --fling: passes over those rows, alternately down and up.") var flingLaps = 1
    @Option(help: "With --fling: the session's seed.") var seed: UInt64 = 1
    @Option(help: "Replay speed: 2 is twice as fast.") var speed = 1.0
    @Option(help: "Cache folder (hotels.sqlite and images/): cached rows and logos show without network. None by default, so runs compare.")
    var cache: String?
    @Option(
        help: ArgumentHelp(
            "A shared PostgreSQL store for the list instead of --cache's hotels.sqlite (or HOTELKIT_STORE).", valueName: "url"))
    var store: String?
    @Option(help: "Write one JSON line per event to this file.") var trace: String?
    @Option(help: "Write report.html (summary, final window, timeline) into this folder.") var report: String?
    @Flag(help: "Print the summary as JSON.") var json = false

    func validate() throws {
        guard (script == nil) != !fling else { throw ValidationError("give either --script FILE or --fling") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be more than 0") }
        guard flingRows > 0 else { throw ValidationError("--fling-rows must be at least 1") }
        // The session is generated up front: a lap of 300 rows is about 100 KB of events.
        guard (1...1_000).contains(flingLaps) else { throw ValidationError("--fling-laps must be 1 to 1000") }
    }

    func run() async throws {
        let scrollScript =
            try script.map { path in try reported("--script \(path)") { try ScrollScript(contentsOf: path) } }
            ?? FlingGenerator(rows: flingRows, viewport: window.viewport, seed: seed, laps: flingLaps).script()
        let outcome = try await runSimulation(
            list: list, window: window, script: scrollScript, speed: speed, cache: cache.map { URL(fileURLWithPath: $0) },
            store: sharedStoreURL(store), trace: trace, keepsTimeline: report != nil, quiet: json)
        var reportPath: String?
        if let report {
            reportPath = try outcome.writeReport(to: URL(fileURLWithPath: report)).path
        }
        outcome.summary.print(json: json, report: reportPath)
    }
}

/// Which service and list to scroll: shared by `simulate` and `demo`.
struct ListOptions: ParsableArguments {
    @OptionGroup var service: ServiceOptions
    @Option(help: "The city to list.") var city: String
    @Option(help: "Hotels per page.") var pageSize = 50

    func validate() throws {
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1") }
    }
}

/// How the simulated table loads logos: shared by `simulate` and `demo`.
struct WindowOptions: ParsableArguments {
    @Option(help: "Visible rows.") var viewport = 10
    @Option(help: "Logo downloads at once.") var concurrency = 4
    @Option(help: "Rows to load ahead of the scroll direction, at low priority (0: exactly the tutorial).") var prefetch = 0
    @Option(help: "naive, tutorial or ours (default: ours with --prefetch, else tutorial).") var policy: String?
    @Option(help: "Filter chain for logos, e.g. resize:64x64:fill,round:8.") var filter = ""
    @Option(help: "Decoded logos kept in memory, in MiB; the least recently used go first.") var memoryCache = 256
    @Option(help: "Seconds the script's end waits for the visible rows' logos.") var endWait = 30

    func validate() throws {
        guard viewport > 0, concurrency > 0, prefetch >= 0, endWait >= 0 else {
            throw ValidationError("--viewport and --concurrency must be at least 1, --prefetch and --end-wait 0 or more")
        }
        // The limit is counted in bytes: a MiB count past a terabyte would overflow it.
        guard (0...(1 << 20)).contains(memoryCache) else {
            throw ValidationError("--memory-cache must be 0 to 1048576 MiB, not \(memoryCache)")
        }
        if let policy, WindowPolicy.Kind(rawValue: policy) == nil {
            throw ValidationError("--policy must be naive, tutorial or ours, not “\(policy)”")
        }
    }

    var windowPolicy: WindowPolicy {
        let kind = policy.flatMap(WindowPolicy.Kind.init(rawValue:)) ?? (prefetch > 0 ? .ours : .tutorial)
        return WindowPolicy(kind: kind, prefetch: prefetch)
    }
}

/// Runs one simulation for `simulate` and `demo`: the options become a
/// library ``SimulationRun``; errors become messages and exit codes.
func runSimulation(
    list: ListOptions, window: WindowOptions, script: ScrollScript, speed: Double, cache: URL?,
    store: String? = nil, trace: String?, keepsTimeline: Bool = true, quiet: Bool = false
) async throws -> SimulationRun.Outcome {
    let profile = try list.service.loadProfile()
    let chain = try reported("--filter") { try FilterChain(parsing: window.filter) }
    let traceFile = try trace.map { path in try reported("--trace") { try SimulationRun.traceFile(at: path) } }
    // Without a cache folder or a store, in memory: every run starts cold, so runs compare.
    let runtime = try await openRuntime(store: store, folder: cache)
    let client = try await runtime.client(profile, endpoint: list.service.endpoint, named: list.service.profile)
    var run = SimulationRun(
        runtime: runtime, client: client, city: list.city, pageSize: list.pageSize,
        viewport: window.viewport, concurrency: window.concurrency, policy: window.windowPolicy, filter: chain,
        script: script, speed: speed, trace: traceFile)
    run.memoryCacheLimit = window.memoryCache << 20
    run.keepsTimeline = keepsTimeline
    run.endWait = .seconds(window.endWait)
    let progress = ProgressLine(total: script.events.count, label: "events", quiet: quiet)
    defer { progress.finish() }
    let outcome: SimulationRun.Outcome
    do {
        outcome = try await run.run { progress.advance(by: 1) }
    } catch let failure as ScrollSimulation.FirstPageFailed {
        await runtime.close()
        throw Diagnostics.report(failure.underlying, context: "page 1 of \(list.service.endpoint)").code
    } catch {
        await runtime.close()
        throw error
    }
    // A stateful service's sessions end with the run.
    await runtime.close()
    if let trace, let error = outcome.traceError {
        Diagnostics.warning("the trace \(trace) stopped early: \(error.localizedDescription)")
    }
    return outcome
}

extension SimulationRun.Outcome {
    func writeReport(to folder: URL) throws -> URL {
        do {
            return try report.write(to: folder)
        } catch {
            Diagnostics.error("cannot write the report into \(folder.path): \(error)", hint: nil)
            throw ExitStatus.ioError.code
        }
    }
}

extension SimulationSummary {
    func print(json: Bool, report: String?) {
        var summary = self
        summary.report = report
        writeAll(Array(((json ? JSONLine.string(summary) : summary.description) + "\n").utf8), to: STDOUT_FILENO)
    }
}
