import Dashboard
import Fetching
import Foundation
import Hotels
import Imaging
import Locking
import Runtime
import SampleService
import Testing
import TestSupport

/// A list page in headless Chromium: the tutorials' window loading, in a browser.
@Suite("hotels dashboard in Chromium")
struct DashboardBrowserTests {
    @Test("logos load for the rows in view only, rows a fling leaves are aborted, nothing starts until it settles, the next page loads past 90%, and a second visit gets 304s",
          .timeLimit(.minutes(5)))
    func listWindow() async throws {
        let (runtime, fetched, summary) = try await sampleParis(hotels: 3000)
        #expect(summary.failure == nil && summary.hotels >= 300, "\(summary)")
        let list = try #require(fetched)
        // A folder for the script's output.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

        let logoAnswers = PosixMutex<[Int: Int]>([:])
        var configuration = DashboardServer.Configuration(port: 0)
        configuration.onResponse = { _, path, status in
            if path == "/logo" { logoAnswers.withLock { $0[status, default: 0] += 1 } }
        }
        let listening = AsyncStream<Int>.makeStream()
        let server = Task { try await DashboardServer(runtime: runtime, configuration: configuration).run { listening.continuation.yield($0) } }
        let port = try #require(await listening.stream.first { _ in true })

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/list_window.py").path,
                             "http://127.0.0.1:\(port)", "/lists/\(list.id)"]
        // Into files, read once the script has ended: no cooperative thread blocks on a pipe meanwhile.
        let outputFile = folder.appendingPathComponent("browser.json"), errorFile = folder.appendingPathComponent("browser.log")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        let child = try ChildProcess(starting: process)
        await child.ended()
        let printed = try Data(contentsOf: outputFile)
        let complaint = String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
        server.cancel()
        await runtime.close()
        #expect(process.terminationStatus == 0, "\(complaint)")
        let result = try #require(try JSONSerialization.jsonObject(with: printed) as? [String: Any], "\(complaint)")
        func stats(_ key: String) throws -> [String: Int] { try #require(result[key] as? [String: Int], "\(key) in \(result)") }
        let visible = try #require(result["visibleRows"] as? Int)
        let first = try stats("first"), before = try stats("beforeFling"), during = try stats("duringFling")
        let settled = try stats("settled"), more = try stats("afterMore"), second = try stats("secondVisit")

        // The first screen: its rows' logos, and no more than the small margin beyond (64 px, a row or two each side).
        #expect(first["started"]! >= visible - 1 && first["started"]! <= visible + 4, "\(result)")
        #expect(first["loaded"] == first["started"] && first["failed"] == 0)
        #expect(try #require(result["rowsLoaded"] as? Int) == 100, "one page of rows until the user scrolls")
        // The fling: rows it passed did not start, and rows it left with logos in flight were aborted.
        #expect(during["deferred"]! > 0, "\(result)")
        #expect(during["started"]! - before["started"]! <= visible + 4, "only the fling's first frame can start rows: \(result)")
        #expect(settled["aborted"]! > 0, "\(result)")
        #expect(settled["failed"] == 0)
        // Past 90% of the loaded rows: the next page, from the API.
        #expect(more["pages"]! >= 1 && (result["rowsAfterMore"] as? Int ?? 0) > 100, "\(result)")
        // The second visit: the first screen's logos revalidated, answered 304.
        #expect(second["loaded"]! >= visible - 1)
        #expect(logoAnswers.withLock { $0[304, default: 0] } >= visible - 1, "\(logoAnswers.withLock { $0 })")
        #expect(logoAnswers.withLock { $0[404, default: 0] } == 0)
    }
}
