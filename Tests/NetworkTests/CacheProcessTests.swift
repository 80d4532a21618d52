import Foundation
import Imaging
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every entry in a cache folder's logo cache reads back whole: none is damaged. Returns how many there are.
func everyEntryValidates(_ folder: String) throws -> Int {
    let cache = try DiskImageCache(directory: URL(fileURLWithPath: folder).appendingPathComponent("images"))
    let damaged = cache.damagedEntries()
    #expect(damaged.isEmpty, "damaged entries \(damaged)")
    return cache.usage().entries
}

@Suite("The logo cache across processes")
struct CacheProcessTests {
    func fetch(_ serve: ServeProcess, cache: String, out: String) -> Process {
        let process = Process()
        process.executableURL = HotelsProcess.executable
        process.arguments = [
            "fetch", "--endpoint", serve.endpoint, "--city", "Shanghai", "--page-size", "25",
            "--logos", "--filter", "resize:16x16:fill", "--cache", cache, "--out", out,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }

    @Test("two fetches sharing one cache folder both succeed, and every entry is whole")
    func twoProcesses() async throws {
        let serve = try await ServeProcess(["--hotels", "300"])
        defer { withExtendedLifetime(serve) {} }
        let cache = temporaryPath("shared-cache")
        let processes = try [fetch(serve, cache: cache, out: temporaryPath("a")), fetch(serve, cache: cache, out: temporaryPath("b"))]
            .map(ChildProcess.init(starting:))
        for process in processes { await process.ended() }
        #expect(processes.map(\.terminationStatus) == [0, 0])
        #expect(try everyEntryValidates(cache) == 60)
        await #expect(try integrityCheck(cache) == "ok")
        let listed = try await HotelsProcess.run(["list", "--city", "Shanghai", "--cache", cache])
        #expect(listed.stdout.split(separator: "\n").count == 60)
    }

    @Test("kill -9 in the middle of writing logos leaves no damaged entry, and the next run goes on")
    func killed() async throws {
        let serve = try await ServeProcess(["--hotels", "1000", "--latency", "3"])
        defer { withExtendedLifetime(serve) {} }
        let cache = temporaryPath("killed-cache")
        let victim = try ChildProcess(starting: fetch(serve, cache: cache, out: temporaryPath("killed")))
        // Once it has written some entries, it is killed mid-flight. The kill is timed on a thread of its own: a poll on
        // Swift concurrency's two threads waited, on a loaded machine, until the fetch had ended.
        Thread.detachNewThread {
            // A guard against a fetch that never writes, not a timing: a build under ThreadSanitizer beside the browser
            // tests had written 14 entries when a one-minute guard fired.
            let deadline = Date().addingTimeInterval(600)
            while everyEntryFileCount(cache) < 20, !victim.hasEnded, Date() < deadline { usleep(5_000) }
            victim.signal(SIGKILL)
        }
        await victim.ended()
        #expect(victim.terminationReason == .uncaughtSignal)
        let survived = try everyEntryValidates(cache)
        #expect(survived >= 20)
        await #expect(try integrityCheck(cache) == "ok")
        let next = try ChildProcess(starting: fetch(serve, cache: cache, out: temporaryPath("after")))
        await next.ended()
        #expect(next.terminationStatus == 0)
        #expect(try everyEntryValidates(cache) == 200)
        await #expect(try integrityCheck(cache) == "ok")
        #expect(try temporaryFiles(cache).isEmpty, "a partial file was left behind")
        let listed = try await HotelsProcess.run(["list", "--city", "Shanghai", "--cache", cache])
        #expect(listed.stdout.split(separator: "\n").count == 200)
    }
}

/// `PRAGMA integrity_check` of the store in a cache folder, read by a separate process.
private func integrityCheck(_ folder: String) async throws -> String {
    let result = try await HotelsProcess.run(["cache", "check", "--cache", folder])
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Files under the cache's temporary folder.
private func temporaryFiles(_ folder: String) throws -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder + "/images/tmp")) ?? []
}

private func everyEntryFileCount(_ folder: String) -> Int {
    FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".img") }.count ?? 0
}

@Suite("hotels fetch and list --near")
struct NearCommandTests {
    @Test(
        "a search by position is its own list: fetched with --near, found with the same --near, absent without it; bad ones are usage errors"
    )
    func near() async throws {
        let serve = try await ServeProcess(["--hotels", "30"])
        defer { withExtendedLifetime(serve) {} }
        let cache = temporaryPath("near-cache")
        let fetched = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Shanghai", "--near", "47.6062,-122.3321",
            "--radius", "8", "--cache", cache, "--out", temporaryPath("near-out"), "--json",
        ])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains(#""near":"47.6062,-122.3321~8km""#) && fetched.stdout.contains(#""hotels":6,"#))
        let listed = try await HotelsProcess.run([
            "list", "--city", "Shanghai", "--near", "47.6062,-122.3321", "--radius", "8", "--cache", cache,
        ])
        #expect(listed.status == 0 && listed.stdout.split(separator: "\n").count == 6)
        let stats = try await HotelsProcess.run(["cache", "stats", "--cache", cache])
        #expect(stats.stdout.contains("Shanghai near 47.6062,-122.3321~8km (sample at"))
        let elsewhere = try await HotelsProcess.run(["list", "--city", "Shanghai", "--near", "47.45,-122.31", "--cache", cache])
        #expect(elsewhere.status == 66 && elsewhere.stderr.contains("nothing is cached for Shanghai near 47.45,-122.31~5km"))
        #expect(try await HotelsProcess.run(["list", "--city", "Shanghai", "--cache", cache]).status == 66)
        for bad in [["--near", "47.6"], ["--near", "91,0"], ["--radius", "3"], ["--near", "1,2", "--radius", "-1"]] {
            let refused = try await HotelsProcess.run(["fetch", "--endpoint", serve.endpoint, "--city", "Seattle", "--cache", cache] + bad)
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
        }
    }
}

@Suite("hotels fetch's summary")
struct FetchSummaryTests {
    @Test("the summary says what was new to the list in the run before page 1's merge, so no reader takes the difference for losses")
    func newToTheList() async throws {
        let serve = try await ServeProcess(["--hotels", "300"])
        defer { withExtendedLifetime(serve) {} }
        let cache = temporaryPath("summary-cache")
        func fetch(_ extra: [String]) async throws -> HotelsProcess {
            try await HotelsProcess.run(
                [
                    "fetch", "--endpoint", serve.endpoint, "--city", "Shanghai", "--page-size", "20", "--cache", cache,
                    "--out", temporaryPath("summary-out"),
                ] + extra)
        }
        let first = try await fetch(["--max-pages", "2", "--json"])
        #expect(first.status == 0 && first.stdout.contains(#""added":40,"#), "\(first.stdout)")
        let resumed = try await fetch(["--max-pages", "2"])
        #expect(
            resumed.stdout.contains(": 20 new to the list (page 1 merged: 0 new, 0 updated, 0 moved); 60 in the list"), "\(resumed.stdout)")
    }
}
