import Foundation
import HTTP
import Scheduling
import Simulation
import TestSupport
import Testing

@Suite("Simulation trace")
struct SimulationTraceTests {
    /// A regression: `hotels demo` crashed when a cancelled download finished
    /// after the run had closed the trace, because FileHandle.write(_:) traps.
    @Test("events after the trace is closed are kept for the summary but not written, and nothing traps")
    func lateEvents() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-trace-\(getpid()).jsonl").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = SimulationRecorder(
            policy: "tutorial", viewport: 10, unixOrigin: 0,
            trace: try FileHandle(forWritingTo: URL(fileURLWithPath: path)))
        recorder.record(harness.loader, 1, .start(row: 3, queueSuspended: false))
        recorder.closeTrace()
        recorder.record(harness.loader, 2, .done(row: 3, downloadedBytes: 100, wasted: true))
        recorder.closeTrace()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines == [#"{"t":1,"event":"start","row":3}"#])
        #expect(recorder.summary.bytes == 100 && recorder.summary.wasted == 1)
        #expect(recorder.traceError == nil)
    }

    @Test("a trace that cannot be written stops with its error, and the run goes on")
    func fullDisk() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial))
        let recorder = SimulationRecorder(
            policy: "tutorial", viewport: 10, unixOrigin: 0,
            trace: try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full")))
        recorder.record(harness.loader, 1, .start(row: 3, queueSuspended: false))
        recorder.record(harness.loader, 2, .done(row: 3, downloadedBytes: 100, wasted: false))
        #expect(recorder.traceError != nil)
        #expect(recorder.summary.bytes == 100)
    }
}

extension SimulationTraceTests {
    /// The 10-minute soak (scripts/chaos) grew 73 KiB a minute, all of it
    /// the report's timeline; `simulate` without --report keeps none.
    @Test("without a timeline the recorder keeps no span, band or drag, and sums up the same")
    func withoutTimeline() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .tutorial))
        let events: [WindowEvent] = [
            .dragBegin, .scroll(top: 4), .dragEnd(decelerate: true), .decelerateEnd, .settle(visible: 4..<14),
            .queued(row: 5, priority: .normal), .start(row: 5, queueSuspended: false), .decoding(row: 5),
            .done(row: 5, downloadedBytes: 100, wasted: false), .queued(row: 6, priority: .normal), .cancel(row: 6, started: false), .end,
        ]
        let full = SimulationRecorder(policy: "tutorial", viewport: 10, unixOrigin: 0, trace: nil)
        let lean = SimulationRecorder(policy: "tutorial", viewport: 10, unixOrigin: 0, trace: nil, keepsTimeline: false)
        for (time, event) in events.enumerated() {
            full.record(harness.loader, Double(time), event)
            lean.record(harness.loader, Double(time), event)
        }
        #expect(full.spans.count == 2 && !full.band.isEmpty && full.motion.count == 2)  // the drag, then its deceleration
        #expect(lean.spans.isEmpty && lean.band.isEmpty && lean.motion.isEmpty)
        #expect(lean.summary == full.summary)
    }
}

@Suite("Download accounting")
struct DownloadAccountingTests {
    /// A regression: `hotels demo` said 75 downloads started, 68 completed,
    /// 4 cancelled and 0 failed. Rows that shared a transfer each counted a
    /// start, and only the first one's completion was counted.
    @Test("every transfer that starts ends exactly once, and the summary adds up, with shared logos, failures and cancels")
    func summaryAddsUp() throws {
        let harness = try LoaderHarness(policy: WindowPolicy(kind: .ours, prefetch: 4), concurrency: 10, sharedLogos: true)
        let recorder = SimulationRecorder(policy: "ours", viewport: 10, unixOrigin: 0, trace: nil)
        // Visible rows 0–9 share 5 logos: 5 transfers, not 10.
        #expect(harness.transport.inFlight.count == 5)
        harness.transport.complete("http://logos.test/0.png")
        harness.transport.complete("http://logos.test/1.png", error: TransportError.httpStatus(500, snippet: ""))
        harness.settleQueues()
        harness.drag(through: 30, 60)
        // What is still in flight is cancelled at the end of a run.
        harness.downloads.cancelAll()
        harness.settleQueues()
        harness.transfers.withLock { $0 }.forEach(recorder.recordTransfer)
        let summary = recorder.summary
        #expect(summary.downloadsStarted > 5)
        #expect(summary.downloadsCompleted >= 1 && summary.downloadsFailed == 1 && summary.downloadsCancelled >= 1)
        #expect(summary.downloadsStarted == summary.downloadsCompleted + summary.downloadsCancelled + summary.downloadsFailed)
        #expect(summary.downloadsStarted == harness.transport.starts.count)
    }
}

@Suite("Scroll scripts and the fling generator")
struct ScrollScriptTests {
    @Test("The sample scripts parse; `end` is added when missing")
    func parses() throws {
        let script = try ScrollScript(jsonLines: Data(contentsOf: Samples.url("Scroll/read-and-fling.jsonl")))
        #expect(script.events.count == 14)
        #expect(script.events.first == ScrollEvent(at: 0, event: .scroll, top: 0))
        let open = try ScrollScript(jsonLines: Data(#"{"at": 5, "event": "scroll", "top": 2.5}"#.utf8))
        #expect(open.events.last?.event == .end)
    }

    @Test(
        "Mistakes are refused with their line",
        arguments: [
            ("bad-time.jsonl", "line 2: “at” goes back in time"),
            ("bad-drag.jsonl", "line 1: “dragEnd” without “dragBegin”"),
            ("bad-event.jsonl", "line 1: not a scroll event"),
        ])
    func refuses(file: String, message: String) throws {
        let data = try Data(contentsOf: Samples.url("Scroll/\(file)"))
        #expect { try ScrollScript(jsonLines: data) } throws: { String(describing: $0).hasPrefix(message) }
    }

    @Test("--fling: the same seed gives the same session; it reaches the end, drags pair up, flings decelerate")
    func fling() throws {
        let script = FlingGenerator(rows: 500, viewport: 10, seed: 7).script()
        #expect(script == FlingGenerator(rows: 500, viewport: 10, seed: 7).script())
        #expect(script != FlingGenerator(rows: 500, viewport: 10, seed: 8).script())
        // It is a valid script.
        #expect(try ScrollScript(jsonLines: Data(script.jsonLines().utf8)).events.count == script.events.count)
        #expect(script.events.compactMap(\.top).max() == 490)
        #expect(script.events.contains { $0.event == .decelerateEnd })
        #expect(script.events.contains { $0.event == .dragEnd && $0.decelerate == false })
        // Some drags go back up.
        let tops = script.events.compactMap(\.top)
        #expect(zip(tops, tops.dropFirst()).contains { $1 < $0 })
    }

    @Test("--fling-laps: down to the end, back to the top, down again; one lap is the session without laps")
    func flingLaps() throws {
        let three = FlingGenerator(rows: 200, viewport: 10, seed: 7, laps: 3).script()
        let tops = three.events.compactMap(\.top)
        let firstBottom = try #require(tops.firstIndex(of: 190))
        let backAtTop = try #require(tops[firstBottom...].firstIndex(of: 0))
        #expect(tops[backAtTop...].contains(190))
        #expect(tops.last == 190)
        // The first lap is the one-lap session up to its closing `end`.
        let one = FlingGenerator(rows: 200, viewport: 10, seed: 7).script().events
        #expect(one.last?.event == .end)
        #expect(Array(three.events.prefix(one.count - 1)) == Array(one.dropLast()))
    }
}

@Suite("hotels simulate against hotels serve")
struct SimulateEndToEndTests {
    @Test("Rows that leave are cancelled: the server sees the hang-ups, and every logo request is one the summary counts")
    func cancelsReachTheServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("requests.jsonl").path
        let server = try await ServeProcess(["--latency", "400", "--log", log])
        defer { withExtendedLifetime(server) {} }
        let trace = folder.appendingPathComponent("trace.jsonl").path
        let result = try await HotelsProcess.run([
            "simulate", "--endpoint", server.endpoint, "--city", "Shanghai", "--script", Samples.url("Scroll/jump-away.jsonl").path,
            "--filter", "resize:32x32:fill", "--trace", trace, "--report", folder.appendingPathComponent("report").path, "--json",
            // The visible logos are waited for, however slow the machine (a sanitizer's build).
            "--end-wait", "600",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["startedWhileSuspended"] as? Int == 0)
        #expect(summary["visibleWithoutLogoAtEnd"] as? Int == 0)
        #expect(summary["duplicatePageRequests"] as? Int == 0)
        let cancelled = try #require(summary["downloadsCancelled"] as? Int)
        #expect(cancelled == 4, "rows 0-3 were downloading when the table jumped to row 40")

        let requests = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { ($0["path"] as? String)?.hasPrefix("/logos/") == true }
        #expect(requests.count == summary["downloadsStarted"] as? Int)
        #expect(requests.filter { $0["hungUp"] as? Bool == true }.count == cancelled)

        let events = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let names = events.compactMap { $0["event"] as? String }
        for name in ["pageRequest", "pageReceived", "start", "cancel", "done", "display", "dragBegin", "scroll", "dragEnd", "end"] {
            #expect(names.contains(name), "no \(name) in the trace")
        }
        #expect(events.allSatisfy { ($0["t"] as? Int ?? 0) > 1_700_000_000_000 })
        let html = try String(contentsOf: folder.appendingPathComponent("report/report.html"), encoding: .utf8)
        #expect(html.contains("<svg"))
        // The final window: every visible row's logo beside its name and address, as text.
        let window = try #require(html.components(separatedBy: "<ul class=\"window\">").last?.components(separatedBy: "</ul>").first)
        let rows = window.components(separatedBy: "<li>").dropFirst()
        #expect(rows.count == 10, "the default viewport")
        for row in rows {
            #expect(row.contains("src=\"data:image/png;base64,"), "\(row.prefix(200))")
            #expect(
                row.range(of: #"<b>[^<]+</b><br><small>\d+ [^<]+, Shanghai</small>"#, options: .regularExpression) != nil,
                "\(row.suffix(200))")
        }
        #expect(!html.contains("src=\"http") && !html.contains("href=\"http"), "the report must open with no network")
    }

    @Test(
        "A bad script is bad data (65); neither --script nor --fling, a --memory-cache below 0 or past 1 TiB, or --fling-laps outside 1–1000, is a usage error (64)"
    )
    func badInput() async throws {
        let bad = try await HotelsProcess.run([
            "simulate", "--endpoint", "http://127.0.0.1:9/soap", "--city", "X",
            "--script", Samples.url("Scroll/bad-time.jsonl").path,
        ])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("line 2"))
        let usage = try await HotelsProcess.run(["simulate", "--endpoint", "http://127.0.0.1:9/soap", "--city", "X"])
        #expect(usage.status == 64)
        for size in ["-1", "9007199254740992"] {
            let refused = try await HotelsProcess.run([
                "simulate", "--endpoint", "http://127.0.0.1:9/soap", "--city", "X", "--fling", "--memory-cache", size,
            ])
            #expect(refused.status == 64 && refused.stderr.contains("--memory-cache"), "\(size): \(refused.stderr)")
        }
        for laps in ["0", "1001"] {
            let refused = try await HotelsProcess.run([
                "simulate", "--endpoint", "http://127.0.0.1:9/soap", "--city", "X", "--fling", "--fling-laps", laps,
            ])
            #expect(refused.status == 64 && refused.stderr.contains("--fling-laps"), "\(laps): \(refused.stderr)")
        }
    }

    @Test("A SOAP fault for page 1 is exit 76, with the fault's text; an authentication fault is 77")
    func faultOnFirstPage() async throws {
        let fault = try String(contentsOf: Samples.url("Fixtures/fault-soap11-server.xml"), encoding: .utf8)
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(status: 500, reason: "Internal Server Error", contentType: "text/xml", body: fault)
        }
        let result = try await HotelsProcess.run(["simulate", "--endpoint", server.url + "/soap", "--city", "X", "--fling"])
        #expect(result.status == 76, "\(result.stderr)")
        #expect(result.stderr.contains("page 1"))
        let authentication = try String(contentsOf: Samples.url("Fixtures/fault-soap11-client.xml"), encoding: .utf8)
        let refusing = try ScriptedHTTPServer { _, connection in
            connection.respond(status: 500, reason: "Internal Server Error", contentType: "text/xml", body: authentication)
        }
        let refused = try await HotelsProcess.run(["simulate", "--endpoint", refusing.url + "/soap", "--city", "X", "--fling"])
        #expect(refused.status == 77, "\(refused.stderr)")
    }

    @Test("The service down: exit 69 with the reason")
    func serviceDown() async throws {
        let result = try await HotelsProcess.run(["simulate", "--endpoint", "http://127.0.0.1:9/soap", "--city", "X", "--fling"])
        #expect(result.status == 69, "\(result.stderr)")
    }

    /// A regression: the embedded server's shutdown printed two error lines at the end of every demo.
    @Test(
        "hotels demo runs its own service, scrolls, writes its report, matches three suppliers' lists, ends without an error line, and names the dashboard over its cache as the next step"
    )
    func demo() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)").path
        let result = try await HotelsProcess.run([
            "demo", "--out", out, "--rows", "30", "--latency", "20",
            // The visible logos are waited for, however slow the machine (a sanitizer's build).
            "--end-wait", "600",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("error"), "\(result.stderr)")
        #expect(result.stdout.contains("visible without logo at end 0"))
        #expect(FileManager.default.fileExists(atPath: out + "/report/report.html"))
        // The next step it names shows what it fetched: the list is in its cache.
        // With the demo's filter chain: the logo index keeps each logo under the chain it was made with.
        #expect(
            result.stderr.contains("next: hotels dashboard --cache \(out)/cache --filter 'resize:64x64:fill,sepia:0.6,round:10'"),
            "\(result.stderr)")
        let listed = try await HotelsProcess.run(["list", "--cache", out + "/cache", "--city", "Shanghai", "--limit", "1"])
        #expect(listed.status == 0 && listed.stdout.contains("\"code\""), "\(listed.stderr)")
        // Three suppliers' Paris lists matched: the summary, and a page of properties every supplier lists, logos beside each record.
        #expect(
            result.stderr.contains("matching three suppliers' Paris lists: ") && result.stderr.contains(" from 3 suppliers → "),
            "\(result.stderr)")
        let matching = try String(contentsOfFile: out + "/matching.html", encoding: .utf8)
        #expect(matching.contains("<h2>") && matching.contains("<img src=\"matching/supplier-1/logos/"))
        let properties = try await HotelsProcess.run([
            "properties", "--cache", out + "/cache", "--city", "Paris", "--suppliers", "3", "--json",
        ])
        #expect(properties.status == 0 && !properties.stdout.isEmpty, "\(properties.stderr)")
    }
}
