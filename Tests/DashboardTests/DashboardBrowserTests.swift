import Dashboard
import Fetching
import Foundation
import Hotels
import Imaging
import Locking
import PostgresStore
import Runtime
import SampleService
import TestSupport
import Testing
import Workers

/// A list page in headless Chromium: the tutorials' window loading, in a browser. One browser at a time: three
/// at once, beside the other suites, loaded a 2-core machine so that the terminal view's timing tests paused.
@Suite("hotels dashboard in Chromium", .serialized)
struct DashboardBrowserTests {
    @Test(
        "logos load for the rows in view only, rows a fling leaves are aborted, nothing starts until it settles, the next page loads past 90%, and a second visit gets 304s",
        .timeLimit(.minutes(5)))
    func listWindow() async throws {
        let (runtime, fetched, summary, _) = try await sampleParis(hotels: 3000)
        #expect(summary.failure == nil && summary.hotels >= 300, "\(summary)")
        let list = try #require(fetched)
        let logoAnswers = PosixMutex<[Int: Int]>([:])
        var configuration = DashboardServer.Configuration(port: 0)
        configuration.onResponse = { access in
            if access.path == "/logo" { logoAnswers.withLock { $0[access.status, default: 0] += 1 } }
        }
        let listening = AsyncStream<Int>.makeStream()
        let server = Task {
            try await DashboardServer(runtime: runtime, configuration: configuration).run { listening.continuation.yield($0) }
        }
        let port = try #require(await listening.stream.first { _ in true })

        let browser = try HotelsProcess.start(
            ["python3", Self.script("list_window.py"), "http://127.0.0.1:\(port)", "/lists/\(list.id)"],
            executable: Self.python)
        let ended = try await browser.finish()
        server.cancel()
        await runtime.close()
        let result = try Self.printed(ended)
        func stats(_ key: String) throws -> [String: Int] { try #require(result[key] as? [String: Int], "\(key) in \(result)") }
        let visible = try #require(result["visibleRows"] as? Int)
        let first = try stats("first")
        let before = try stats("beforeFling")
        let during = try stats("duringFling")
        let settled = try stats("settled")
        let more = try stats("afterMore")
        let second = try stats("secondVisit")

        // The first screen: its rows' logos, and no more than the small margin beyond (64 px, a row or two each side).
        #expect(first["started"]! >= visible - 1 && first["started"]! <= visible + 4, "\(result)")
        #expect(first["loaded"] == first["started"] && first["failed"] == 0)
        #expect(try #require(result["rowsLoaded"] as? Int) == 100, "one page of rows until the user scrolls")
        // The fling: rows it passed did not start, and rows it left with logos in flight were aborted.
        #expect(during["deferred"]! > 0, "\(result)")
        #expect(during["started"]! - before["started"]! <= visible + 4, "only the fling's first frame can start rows: \(result)")
        #expect((result["inFlightAtFling"] as? Int ?? 0) > 0 && settled["aborted"]! > 0, "\(result)")
        #expect(settled["failed"] == 0)
        // Past 90% of the loaded rows: the next page, from the API.
        #expect(more["pages"]! >= 1 && (result["rowsAfterMore"] as? Int ?? 0) > 100, "\(result)")
        // The second visit: the first screen's logos revalidated, answered 304.
        #expect(second["loaded"]! >= visible - 1)
        #expect(logoAnswers.withLock { $0[304, default: 0] } >= visible - 1, "\(logoAnswers.withLock { $0 })")
        #expect(logoAnswers.withLock { $0[404, default: 0] } == 0)
    }

    @Test(
        "the real hotels dashboard on the test PostgreSQL: no console errors, the queue's counts are hotels jobs --json's and refresh in place, retry revives a dead job, a POST without the CSRF token is refused, a hostile name, phone, city and chain are text on the page and in the rows loaded later, a fling of a 2,000-row list asks the server for the settled rows' logos only, and 90% loads the next page once",
        .timeLimit(.minutes(8)))
    func fleetInChromium() async throws {
        let postgres = try await TestPostgres.shared()
        let url = try await postgres.makeDatabase()
        let database = TestPostgres.database(in: url)
        // Paris with 2,000 rows and their logos, fetched from the sample service into the shared store.
        let (runtime, fetched, summary, endpoint) = try await sampleParis(hotels: 10_000, store: .shared(try PostgresLocation(url: url)))
        #expect(summary.failure == nil && summary.hotels == 2_000, "\(summary)")
        let list = try #require(fetched)
        // A supplier's hostile name, on the first screen.
        _ = try await postgres.psql(
            "UPDATE hotels SET name = '\(DashboardTests.hostile)' WHERE list_id = \(list.id) AND code = "
                + "(SELECT code FROM hotels WHERE list_id = \(list.id) ORDER BY position LIMIT 1 OFFSET 1)", database: database)
        // A hostile phone, city and chain on that row and on one the script loads later (the 151st).
        let hostileFields = DashboardTests.hostileFields.map(\.value)
        let literal = { (text: String) in "'" + text.replacing("'", with: "''") + "'" }
        for offset in [1, 150] {
            _ = try await postgres.psql(
                "UPDATE hotels SET phone = \(literal(hostileFields[0])), city = \(literal(hostileFields[1])), "
                    + "chain_code = \(literal(hostileFields[2])) WHERE list_id = \(list.id) AND code = "
                    + "(SELECT code FROM hotels WHERE list_id = \(list.id) ORDER BY position LIMIT 1 OFFSET \(offset))",
                database: database)
        }
        // The queue: Rome dead after its one attempt, Tokyo waiting.
        let queue = JobQueue<JobKind>(database: try #require(runtime.sharedStore).database)
        let profile = try JobProfile(nameOrPath: "sample")
        let job = { (city: String, attempts: Int) in
            ListJobArguments(profile: profile, endpoint: endpoint, city: city).job(maxAttempts: attempts)
        }
        try await queue.enqueue([job("Rome", 1)])
        let rome = try #require(try await queue.claim(worker: "test", limit: 1, lease: 30).first)
        #expect(try await queue.fail(rome.lease, error: "HTTP 503", retryIn: 0) == .dead)
        try await queue.enqueue([job("Tokyo", 5)])
        await runtime.close()

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let dashboard = try HotelsProcess.start(["dashboard", "--store", url, "--port", "0", "--access-log"])
        let base = try await dashboard.dashboardAddress().base
        let jobs = try await HotelsProcess.run(["jobs", "--store", url, "--json"])
        let config: [String: Any] = [
            "base": base, "list": "/lists/\(list.id)", "accessLog": dashboard.errors.path, "hostileName": DashboardTests.hostile,
            "hostileFields": hostileFields,
            "screenshot": ProcessInfo.processInfo.environment["HOTELKIT_SCREENSHOT"] ?? folder.appendingPathComponent("list.png").path,
            "deadJob": rome.id,
            "enqueue": [
                HotelsProcess.executable.path, "enqueue", "--store", url, "--profile", "sample", "--endpoint", endpoint, "--city", "Oslo",
            ],
        ]
        let configFile = folder.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configFile)
        let ended = try await HotelsProcess.start(["python3", Self.script("dashboard_fleet.py"), configFile.path], executable: Self.python)
            .finish()
        dashboard.child.signal(SIGTERM)
        let served = try await dashboard.finish()
        let result = try Self.printed(ended)

        #expect(served.status == 0, "\(served.stderr)")
        #expect(!served.stderr.contains(TestPostgres.password) && !ended.stdout.contains(TestPostgres.password))
        #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "\(result["consoleErrors"] ?? "")")
        // The queue page counts what hotels jobs --json counts, and refreshes in place.
        let report = try #require(try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [String: Any], "\(jobs.stderr)")
        // The page shows every state, 0 included; the JSON only those a job is in.
        let shown = (result["queueCounts"] as? [String: [String: Int]] ?? [:]).mapValues { $0.filter { $0.value != 0 } }
        #expect(shown == report["byKind"] as? [String: [String: Int]] && !shown.isEmpty, "\(shown) vs \(report["byKind"] ?? "")")
        let refreshed = try #require(result["refreshed"] as? [String: Any])
        #expect(refreshed["notReloaded"] as? Bool == true && (refreshed["refreshes"] as? Int ?? 0) >= 1, "\(refreshed)")
        // The buttons: a POST without the token is refused; retry makes the dead job available.
        #expect(result["postWithoutCSRF"] as? Int == 403, "\(result)")
        #expect((result["retrySaid"] as? String)?.contains("\(rome.id)") == true && result["deadAfterRetry"] as? Int == 0, "\(result)")
        let revived = try await postgres.psql("SELECT state FROM jobs WHERE id = \(rome.id)", database: database)
        #expect(revived.trimmingCharacters(in: .whitespacesAndNewlines) == "available", "\(result["retrySaid"] ?? "")")
        // The hostile name is text, and nothing ran.
        #expect(
            result["hostileShown"] as? Bool == true && result["hostileElements"] as? Int == 0 && result["dialog"] as? Bool == false,
            "\(result)")
        // The hostile phone, city and chain: text on the first page's row, and on the row the script loaded later.
        #expect(result["hostileFieldsShown"] as? [Int] == [1, 1, 1], "\(result)")
        let later = try #require(result["later"] as? [String: Any])
        #expect(
            later["hostileFieldsShown"] as? [Int] == [2, 2, 2] && later["hostileElements"] as? Int == 0
                && later["dialog"] as? Bool == false,
            "\(later)")
        #expect(
            later["columns"] as? [String] == ["Logo", "Name", "Address", "City", "Phone", "Chain", "Rating", "Position", "Added"]
                && later["cellsPerRow"] as? [Int] == [9], "every row, the page's and the loaded ones, fills every column: \(later)")
        // The fling: nothing started while it moved; then the server was asked for logos of the settled rows only.
        let fling = try #require(result["fling"] as? [String: Any])
        let asked = try #require(fling["logosAsked"] as? [String])
        let nearView = Set(try #require(fling["nearView"] as? [String]))
        let inView = try #require(fling["inView"] as? Int)
        // Nothing starts while it moves, unless a loaded machine held a frame back so long (150 ms, the settle time) that the scroll paused.
        let paused = (fling["longestFrameGap"] as? Double ?? 0) >= 150
        #expect((paused || fling["startedDuring"] as? Int == 0) && (fling["deferred"] as? Int ?? 0) > 0, "\(fling)")
        #expect((fling["scrolled"] as? Int ?? 0) > 2_500, "the fling went past many rows: \(fling)")
        #expect(
            asked.count >= inView - 1 && Set(asked).isSubset(of: nearView) && Set(asked).count == asked.count,
            "asked \(asked.count) for \(inView) rows in view: \(Set(asked).subtracting(nearView))")
        // Past 90%: one request, one more page.
        let more = try #require(result["more"] as? [String: Int])
        #expect(more["pageRequests"] == 1 && more["pages"] == 1 && more["rowsAfter"] == (more["rowsBefore"] ?? 0) + 100, "\(more)")
        // The screenshot is a PNG.
        let shot = try Data(contentsOf: URL(fileURLWithPath: try #require(config["screenshot"] as? String)))
        #expect(shot.starts(with: [0x89, 0x50, 0x4E, 0x47]) && shot.count > 10_000)
    }

    /// The `python3` on the PATH: the one `make test` installed Selenium into.
    static let python = URL(fileURLWithPath: "/usr/bin/env")

    /// A script of the `Browser` folder beside this file.
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/\(name)").path
    }

    /// The JSON object a browser script printed; its stderr in the failure otherwise.
    static func printed(_ run: HotelsProcess) throws -> [String: Any] {
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stderr)")
    }
}
