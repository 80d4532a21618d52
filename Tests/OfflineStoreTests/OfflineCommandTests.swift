import Foundation
import GRDB
import TestSupport
import Testing

/// `hotels fetch` against a sample service, with one cache folder.
struct FetchRun {
    var endpoint: String
    var cache: String
    var out = temporaryFolder("out").path

    func callAsFunction(_ extra: [String] = [], city: String = "Paris") async throws -> HotelsProcess {
        try await HotelsProcess.run(
            ["fetch", "--endpoint", endpoint, "--city", city, "--page-size", "20", "--cache", cache, "--out", out] + extra)
    }

    func json(_ result: HotelsProcess) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    var lines: [String] {
        (try? String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }
}

@Suite("Offline store through the CLI")
struct OfflineCommandTests {
    @Test("Cache first, then the network: a second run shows the cached rows, merges page 1 and resumes paging")
    func cacheFirstAndResume() async throws {
        let server = try await ServeProcess(["--hotels", "1000"])
        defer { withExtendedLifetime(server) {} }
        let fetch = FetchRun(endpoint: server.endpoint, cache: temporaryFolder("cache").path)
        let first = try await fetch(["--max-pages", "2", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try fetch.json(first)["hotels"] as? Int == 40)
        let second = try await fetch(["--max-pages", "2", "--json"])
        let summary = try fetch.json(second)
        #expect(summary["cached"] as? Int == 40)
        #expect((summary["merge"] as? [String: Any])?["inserted"] as? Int == 0)
        // Page 1 again (merged), then page 3: paging went on from where the first run stopped.
        #expect(summary["hotels"] as? Int == 60)
        #expect(fetch.lines.count == 60)
        #expect(Set(fetch.lines).count == 60)
        let listed = try await HotelsProcess.run(["list", "--city", "Paris", "--cache", fetch.cache])
        #expect(listed.status == 0)
        #expect(listed.stdout.split(separator: "\n").map(String.init) == fetch.lines)
        // --refresh writes nothing before the network answers, and the list stays whole.
        let refreshed = try await fetch(["--refresh", "--max-pages", "1", "--json"])
        #expect(try fetch.json(refreshed)["cached"] as? Int == 0)
        #expect(fetch.lines.count == 60)
    }

    @Test("Offline: the cached list with a banner, exit 0; --require-fresh exits 69; the next run tries the network again")
    func offlineFallback() async throws {
        let cache = temporaryFolder("offline").path
        var endpoint: String
        do {
            let server = try await ServeProcess(["--hotels", "1000"])
            defer { withExtendedLifetime(server) {} }
            endpoint = server.endpoint
            let warm = try await FetchRun(endpoint: endpoint, cache: cache)(["--max-pages", "1", "--logos", "--filter", "resize:16x16"])
            #expect(warm.status == 0, "\(warm.stderr)")
        }
        // The server is gone.
        let fetch = FetchRun(endpoint: endpoint, cache: cache)
        let offline = try await fetch(["--logos", "--filter", "resize:16x16"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(
            offline.stderr.range(of: #"offline: showing 20 hotels for Paris cached \d+ (s|min) ago"#, options: .regularExpression) != nil,
            "\(offline.stderr)")
        #expect(fetch.lines.count == 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fetch.out + "/logos").count == 20, "cached logos were not served")
        let json = try await fetch(["--json"])
        #expect((try fetch.json(json)["offline"] as? String)?.hasPrefix("offline: showing 20 hotels for Paris") == true)
        let strict = try await fetch(["--require-fresh"])
        #expect(strict.status == 69)
        #expect(strict.stderr.contains("--require-fresh"))
        // Never "once offline, always offline": each run asks the network first.
        #expect(strict.stderr.contains("retry"))
    }

    @Test("Offline with nothing cached: exit 69 and a message that says so")
    func offlineEmpty() async throws {
        let fetch = FetchRun(endpoint: "http://127.0.0.1:9/soap", cache: temporaryFolder("empty").path)
        let result = try await fetch()
        #expect(result.status == 69)
        #expect(result.stderr.contains("nothing is cached for Paris"))
        let explicit = try await fetch(["--offline"])
        #expect(explicit.status == 69)
        let listed = try await HotelsProcess.run(["list", "--city", "Paris", "--cache", fetch.cache])
        #expect(listed.status == 66)
    }

    @Test("Logos are revalidated: If-None-Match gets a 304 and the cached logo is kept; within max-age no request is made")
    func revalidation() async throws {
        let log = temporaryFolder("log").path
        let cache = temporaryFolder("revalidate").path
        let stale = try await ServeProcess(["--hotels", "1000", "--logo-max-age", "0", "--log", log])
        defer { withExtendedLifetime(stale) {} }
        let fetch = FetchRun(endpoint: stale.endpoint, cache: cache)
        let arguments = ["--max-pages", "1", "--logos", "--filter", "resize:16x16", "--json"]
        await #expect(try fetch(arguments).status == 0)
        let second = try await fetch.json(try fetch(arguments))
        let logos = try #require(second["logos"] as? [String: Any])
        #expect(logos["revalidated"] as? Int == 20)
        let statuses = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { ($0["path"] as? String)?.hasPrefix("/logos/") == true }.compactMap { $0["status"] as? Int }
        #expect(statuses.filter { $0 == 200 }.count == 20 && statuses.filter { $0 == 304 }.count == 20)

        let fresh = try await ServeProcess(["--hotels", "1000"])
        defer { withExtendedLifetime(fresh) {} }
        let cached = FetchRun(endpoint: fresh.endpoint, cache: temporaryFolder("fresh").path)
        let freshArguments = ["--max-pages", "1", "--logos", "--filter", "resize:16x16", "--json"]
        await #expect(try cached(freshArguments).status == 0)
        let again = try await cached.json(try cached(freshArguments))
        #expect((again["logos"] as? [String: Any])?["fromCache"] as? Int == 20)
    }

    @Test("cache stats, vacuum and clear")
    func cacheCommands() async throws {
        let server = try await ServeProcess(["--hotels", "1000"])
        defer { withExtendedLifetime(server) {} }
        let fetch = FetchRun(endpoint: server.endpoint, cache: temporaryFolder("stats").path)
        await #expect(try fetch(["--max-pages", "1", "--logos"]).status == 0)
        let stats = try await HotelsProcess.run(["cache", "stats", "--cache", fetch.cache, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(object["hotels"] as? Int == 20 && object["images"] as? Int == 20)
        let sound = try await HotelsProcess.run(["cache", "check", "--cache", fetch.cache])
        #expect(sound.status == 0 && sound.stdout == "ok\n", "\(sound.stdout)")
        // One logo entry loses its last byte, as a disk fault would do it.
        let entries =
            FileManager.default.enumerator(atPath: fetch.cache)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".img") }.sorted() ?? []
        let victim = fetch.cache + "/" + (try #require(entries.first))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: victim))
        try bytes.dropLast().write(to: URL(fileURLWithPath: victim))
        let damaged = try await HotelsProcess.run(["cache", "check", "--cache", fetch.cache])
        #expect(damaged.status == 65)
        #expect(damaged.stdout == "damaged logo entry: \(URL(fileURLWithPath: victim).standardizedFileURL.path)\n", "\(damaged.stdout)")
        #expect(try await HotelsProcess.run(["cache", "vacuum", "--cache", fetch.cache]).status == 0)
        #expect(try await HotelsProcess.run(["cache", "clear", "--cache", fetch.cache]).status == 0)
        let after = try await HotelsProcess.run(["cache", "stats", "--cache", fetch.cache, "--json"])
        #expect(after.stdout.contains(#""hotels":0"#))
    }

    /// Warmed by `hotels fetch --logos`: the list and every logo are in the cache, whatever the machine's load,
    /// and `simulate` reads what `fetch` wrote, through the same logo pipeline.
    @Test("simulate with the server down still displays the cached window, logos and all")
    func simulateOffline() async throws {
        let cache = temporaryFolder("simulate").path
        let script = Samples.url("Scroll/read-and-fling.jsonl").path
        var endpoint: String
        do {
            let server = try await ServeProcess(["--hotels", "1000"])
            defer { withExtendedLifetime(server) {} }
            endpoint = server.endpoint
            let warm = try await FetchRun(endpoint: endpoint, cache: cache)(["--logos"])
            #expect(warm.status == 0, "\(warm.stderr)")
        }
        let cold = try await HotelsProcess.run([
            "simulate", "--endpoint", endpoint, "--city", "Paris", "--script", script, "--cache", cache, "--json",
        ])
        #expect(cold.status == 0, "\(cold.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(cold.stdout.utf8)) as? [String: Any])
        #expect(summary["visibleWithoutLogoAtEnd"] as? Int == 0)
        #expect(summary["downloadsStarted"] as? Int == 0)
    }
}
