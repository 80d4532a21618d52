import ArgumentParser
import Console
import Fetching
import Browsing
import Foundation
import Hotels
import Imaging
import Runtime
import SampleService
import Simulation

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The main job, end to end: the sample service with latency, and a fling through its hotels.",
        discussion: """
        Starts the sample SOAP service on a free loopback port with some latency, then scrolls \
        a simulated table of Shanghai's hotels with a generated fling session, loading \
        filtered logos for the visible rows only (prefetch and priorities on). Prints the \
        summary and the path of the HTML report. With --browse, on a terminal, you scroll the \
        list yourself in hotels browse instead.
        """
    )

    @Option(help: "Folder for the report and the request log.") var out = "demo-out"
    @Option(help: "Milliseconds of latency the service adds to every response.") var latency = 150
    @Option(help: "Rows the fling scrolls through.") var rows = 150
    @Option(help: "Filter chain for logos.") var filter = "resize:64x64:fill,sepia:0.6,round:10"
    @Option(help: "Rows to load ahead of the scroll.") var prefetch = 4
    @Option(help: "Seconds the scroll's end waits for the visible rows' logos.") var endWait = 30
    @Flag(help: "Open the list in hotels browse, on this terminal, instead of the simulation.") var browse = false

    func validate() throws {
        guard latency >= 0, rows > 0, prefetch >= 0, endWait >= 0 else {
            throw ValidationError("--latency, --rows, --prefetch and --end-wait must not be negative")
        }
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var options = SampleServiceOptions()
        options.latency = latency
        options.jitter = latency / 4
        options.hotels = 5000
        options.logFile = folder.appendingPathComponent("requests.jsonl").path
        // Hummingbird logs the demo's own stop as errors; a server that cannot start is reported below all the same.
        options.logLevel = .critical
        let server: SampleServer.Running
        do {
            server = try await SampleServer.start(options)
        } catch {
            Diagnostics.error("cannot start the sample service: \(error)", hint: nil)
            throw ExitStatus.unavailable.code
        }
        do {
            try await (browse ? browseSample(endpoint: server.endpoint) : simulate(endpoint: server.endpoint, folder: folder))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A fling through the sample's Shanghai list, its report and trace into `folder`.
    private func simulate(endpoint: String, folder: URL) async throws {
        Diagnostics.note("sample service on \(endpoint), \(latency) ms latency; scrolling \(rows) rows of Shanghai")
        let list = try ListOptions.parse(["--endpoint", endpoint, "--city", "Shanghai"])
        let window = try WindowOptions.parse(["--prefetch", String(prefetch), "--filter", filter, "--end-wait", String(endWait)])
        let script = FlingGenerator(rows: rows, viewport: window.viewport, seed: 2026).script()
        let cache = folder.appendingPathComponent("cache")  // emptied: every demo starts cold; the dashboard shows what it fetched
        try? FileManager.default.removeItem(at: cache)
        let outcome = try await runSimulation(list: list, window: window, script: script, speed: 1, cache: cache,
                                              trace: folder.appendingPathComponent("trace.jsonl").path)
        outcome.summary.print(json: false, report: try outcome.writeReport(to: folder.appendingPathComponent("report")).path)
        Diagnostics.note("next: hotels dashboard --cache \(cache.path) --filter '\(filter)', then open http://127.0.0.1:8080/lists")
    }

    /// The sample's Shanghai list in the view, from an in-memory store, so every demo starts cold.
    private func browseSample(endpoint: String) async throws {
        let chain = try reported("--filter") { try FilterChain(parsing: filter) }
        let runtime = try await openRuntime(store: nil, folder: nil) { $0.logger = browseLogger }
        let client = try await runtime.client(try ServiceProfile.named("sample"), endpoint: endpoint, named: "sample")
        try await runBrowse(BrowseConfiguration(runtime: runtime, client: client, city: "Shanghai", filter: chain,
                                                title: "hotels demo: Shanghai from the sample service, \(latency) ms latency"),
                            withoutTerminal: "leave out --browse for the simulation, which needs no terminal")
    }
}
