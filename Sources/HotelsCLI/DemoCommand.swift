import ArgumentParser
import AtomicFiles
import Browsing
import Console
import Dashboard
import Failures
import Fetching
import Foundation
import Hotels
import Imaging
import Matching
import OfflineStore
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
        let outcome = try await runSimulation(
            list: list, window: window, script: script, speed: 1, cache: cache,
            trace: folder.appendingPathComponent("trace.jsonl").path)
        outcome.summary.print(json: false, report: try outcome.writeReport(to: folder.appendingPathComponent("report")).path)
        try await matchSuppliers(cache: cache, folder: folder)
        Diagnostics.note(
            "next: hotels dashboard --cache \(cache.path) --filter '\(filter)', then open http://127.0.0.1:8080/lists "
                + "and http://127.0.0.1:8080/properties")
    }

    /// Three suppliers' views of one world of hotels (`hotels serve --supplier 1…3`), their Paris lists fetched
    /// into the demo's store with their logos, matched into properties with their logos' hashes; `matching.html` shows a few properties
    /// every supplier lists, their records and logos side by side.
    private func matchSuppliers(cache: URL, folder: URL) async throws {
        var servers: [SampleServer.Running] = []
        for supplier in 1...3 {
            var options = SampleServiceOptions()
            options.supplier = supplier
            options.hotels = 400
            options.logLevel = .critical
            do {
                servers.append(try await SampleServer.start(options))
            } catch {
                for server in servers { await server.stop() }
                Diagnostics.error("cannot start supplier \(supplier)'s sample service: \(error)", hint: nil)
                throw ExitStatus.unavailable.code
            }
        }
        let runtime = try await openRuntime(store: nil, folder: cache)
        let outcome: Result<(CatalogueSummary, URL), any Error>
        do {
            outcome = .success(try await fetchAndMatch(servers, runtime: runtime, folder: folder))
        } catch {
            outcome = .failure(error)
        }
        await runtime.close()
        for server in servers { await server.stop() }
        let (summary, report) = try reported("demo") { try outcome.get() }
        Diagnostics.note("matching three suppliers' Paris lists: \(summary); side by side in \(report.path)")
    }

    private func fetchAndMatch(_ servers: [SampleServer.Running], runtime: HotelRuntime, folder: URL) async throws -> (
        CatalogueSummary, URL
    ) {
        let logos = try FilterChain(parsing: "resize:48x48:fit")
        let matching = folder.appendingPathComponent("matching")
        try? FileManager.default.removeItem(at: matching)
        var suppliers: [String: Int] = [:]
        for (index, server) in servers.enumerated() {
            let client = try runtime.client(profile: try .named("sample"), endpoint: server.endpoint)
            let sink = FolderSink(folder: matching.appendingPathComponent("supplier-\(index + 1)"))
            let summary = try await runtime.listJob(client, city: "Paris", logos: logos, sink: sink).run()
            if let failure = summary.failure { throw failure }
            suppliers[ShownURL.of(server.endpoint)] = index + 1
        }
        // With the logos' perceptual hashes: the same picture from two suppliers is evidence, a brand's is not.
        let summary = try await runtime.catalogue.match(cities: ["Paris"], logos: runtime.originalLogos)
        let report = MatchingReport(suppliers: suppliers, folder: folder)
        // The properties with the most logos side by side show the matching best.
        let shown = try await runtime.storage.properties(PropertyQuery(city: "Paris", minimumSuppliers: 3))
            .sorted { report.logoCount($0) > report.logoCount($1) }.prefix(8)
        let file = folder.appendingPathComponent("matching.html")
        try AtomicFile.write(Array(report.html(Array(shown), summary: summary).utf8), to: file)
        return (summary, file)
    }

    /// The sample's Shanghai list in the view, from an in-memory store, so every demo starts cold.
    private func browseSample(endpoint: String) async throws {
        let chain = try reported("--filter") { try FilterChain(parsing: filter) }
        let runtime = try await openRuntime(store: nil, folder: nil) { $0.logger = browseLogger }
        let client = try await runtime.client(try ServiceProfile.named("sample"), endpoint: endpoint, named: "sample")
        try await runBrowse(
            BrowseConfiguration(
                runtime: runtime, client: client, city: "Shanghai", filter: chain,
                title: "hotels demo: Shanghai from the sample service, \(latency) ms latency"),
            withoutTerminal: "leave out --browse for the simulation, which needs no terminal")
    }
}

/// `matching.html` of `hotels demo`: properties with their members side by side, each with its logo.
struct MatchingReport {
    /// Each supplier's number, by its endpoint as members show it.
    let suppliers: [String: Int]
    /// Where the report goes; each supplier's fetched list and logos are in `matching/supplier-N` under it.
    let folder: URL

    /// A member's logo, relative to the report, when its supplier's folder has one.
    func logo(_ member: CatalogueMember) -> String? {
        let path = "matching/\(supplier(member))/logos/\(SafeFileName.base(for: member.code)).png"
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path) ? path : nil
    }

    func logoCount(_ property: CatalogueProperty) -> Int {
        property.members.count { logo($0) != nil }
    }

    private func supplier(_ member: CatalogueMember) -> String {
        suppliers[member.endpoint].map { "supplier-\($0)" } ?? ""
    }

    func html(_ properties: [CatalogueProperty], summary: CatalogueSummary) -> String {
        let escaped = HTMLText.escaped
        let sections = properties.map { property -> String in
            let cells = property.members.map { member -> String in
                let image =
                    logo(member).map { "<img src=\"\(escaped($0))\" alt=\"\" width=\"48\" height=\"48\">" } ?? "<small>no logo</small>"
                return "<td>\(image)<br>\(escaped(supplier(member))) \(escaped(member.code))"
                    + "<br><b>\(escaped(member.name ?? ""))</b></td>"
            }.joined()
            return "<h2>\(escaped(property.name ?? property.id)) <small>\(property.id), \(property.confidence.rawValue)</small></h2>"
                + "<table><tr>\(cells)</tr></table>"
        }.joined(separator: "\n")
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>hotels demo: matching</title>
            <style>body{font:15px system-ui;margin:2em}td{vertical-align:top;padding:.5em 1.5em .5em 0}small{color:#666}</style></head>
            <body><h1>Three suppliers, one catalogue</h1><p>\(escaped(summary.description))</p>
            \(sections)
            </body></html>
            """
    }
}
