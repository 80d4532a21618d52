import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hotels` processes sharing one PostgreSQL store, as they would across machines.
@Suite("hotels with --store")
struct SharedStoreCommandTests {
    func folder(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("shared-cli-\(name)-\(UUID().uuidString)").path
    }

    @Test("fetch in one process, list in another, then offline: as with SQLite; store migrate and status; no password anywhere")
    func fetchListOffline() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let serve = try await ServeProcess(["--hotels", "300"])
        defer { withExtendedLifetime(serve) {} }
        let migrated = try await HotelsProcess.run(["store", "migrate", "--store", url])
        #expect(migrated.status == 0 && migrated.stdout.contains("applied 1:"), "\(migrated.stderr)")
        let again = try await HotelsProcess.run(["store", "migrate", "--store", url])
        #expect(again.status == 0 && again.stdout.contains("up to date"))

        let out = folder("out")
        let fetched = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--page-size", "20",
            "--store", url, "--cache", folder("cache"), "--out", out,
        ])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains("60 in the list"))
        // Another process, another cache folder: the list comes from the shared store.
        let listed = try await HotelsProcess.run(
            ["list", "--city", "Paris", "--cache", folder("other")], environment: ["HOTELKIT_STORE": url])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == (try String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8)))

        let offline = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--offline",
            "--store", url, "--cache", folder("third"), "--out", folder("offline"),
        ])
        #expect(offline.status == 0 && offline.stderr.contains("offline: showing 60 hotels for Paris"), "\(offline.stderr)")
        let nothing = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Rome", "--offline",
            "--store", url, "--out", folder("rome"),
        ])
        #expect(nothing.status == 69)

        let stats = try await HotelsProcess.run(["cache", "stats", "--store", url, "--json"])
        #expect(stats.status == 0 && stats.stdout.contains("\"hotels\":60"))
        for result in [migrated, again, fetched, listed, offline, nothing, stats] {
            #expect(!(result.stdout + result.stderr).contains(TestPostgres.password))
        }
    }

    @Test("logos processed by one process are served by another from the store's logo index, byte for byte")
    func logosFromTheStore() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let serve = try await ServeProcess(["--hotels", "100"])
        defer { withExtendedLifetime(serve) {} }
        let out = folder("out")
        let fetched = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--logos", "--filter", "resize:16x16:fill",
            "--store", url, "--cache", folder("cache"), "--out", out,
        ])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let written = folder("written")
        let listed = try await HotelsProcess.run([
            "list", "--city", "Paris", "--store", url, "--cache", folder("elsewhere"), "--limit", "0",
            "--logos-out", written, "--filter", "resize:16x16:fill",
        ])
        #expect(listed.status == 0 && listed.stderr.contains("20 logos"), "\(listed.stderr)")
        let expected = try FileManager.default.contentsOfDirectory(atPath: out + "/logos").sorted()
        #expect(expected.count == 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: written).sorted() == expected)
        for name in expected {
            #expect(
                FileManager.default.contents(atPath: written + "/" + name) == FileManager.default.contents(atPath: out + "/logos/" + name))
        }
        // Under another filter the index holds nothing: said, not invented.
        let other = try await HotelsProcess.run(["list", "--city", "Paris", "--store", url, "--limit", "0", "--logos-out", folder("none")])
        #expect(other.status == 0 && other.stderr.contains("0 logos") && other.stderr.contains("20 not in the store's logo index"))
    }

    @Test("a machine with an empty logo cache revalidates the logos another processed from the store's index (304s, no download)")
    func revalidatesFromTheIndex() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        // max-age 0: every logo is stale at once, so each is asked for with its validators.
        let serve = try await ServeProcess(["--hotels", "100", "--logo-max-age", "0"])
        defer { withExtendedLifetime(serve) {} }
        let arguments = [
            "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--logos", "--filter", "resize:16x16:fill", "--store", url,
        ]
        let first = try await HotelsProcess.run(arguments + ["--cache", folder("first"), "--out", folder("out")])
        #expect(
            first.status == 0 && first.stdout.contains("20 logos (0 cached, 0 revalidated, 0 failed)"), "\(first.stdout)\(first.stderr)")
        let out = folder("second-out")
        let second = try await HotelsProcess.run(arguments + ["--cache", folder("second"), "--out", out])
        #expect(
            second.status == 0 && second.stdout.contains("20 logos (0 cached, 20 revalidated, 0 failed)"),
            "\(second.stdout)\(second.stderr)")
        let logos = try FileManager.default.contentsOfDirectory(atPath: out + "/logos")
        #expect(logos.count == 20 && logos.allSatisfy { $0.hasSuffix(".png") })
    }

    @Test("kill -9 mid-list leaves the list and its checkpoint in step, and the next run resumes from the last stored page")
    func killedMidList() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        // 20 pages of 10, 300 ms each: time to see 5 pages stored and kill the fetch mid-list, however loaded the machine.
        let serve = try await ServeProcess(["--hotels", "1000", "--latency", "300"])
        defer { withExtendedLifetime(serve) {} }
        let arguments = [
            "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--page-size", "10", "--store", url,
            "--cache", folder("cache"), "--out", folder("out"),
        ]
        let victim = Process()
        victim.executableURL = HotelsProcess.executable
        victim.arguments = arguments
        victim.standardOutput = FileHandle.nullDevice
        let victimErrors = folder("victim-stderr")
        try #require(FileManager.default.createFile(atPath: victimErrors, contents: nil))
        victim.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: victimErrors))
        let child = try ChildProcess(starting: victim)
        let rows: @Sendable () -> Int = {
            Int((try? server.psqlBlocking("SELECT count(*) FROM hotels", database: database))?.trimmed ?? "") ?? 0
        }
        // The kill is timed on a thread of its own: a poll on Swift concurrency's threads waited, on a loaded machine, until the list had ended.
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(120)
            while rows() < 50, !child.hasEnded, Date() < deadline { usleep(20_000) }
            child.signal(SIGKILL)
        }
        await child.ended()
        #expect(child.terminationReason == .uncaughtSignal, "\((try? String(contentsOfFile: victimErrors, encoding: .utf8)) ?? "")")

        // In step: every stored page is whole, and the checkpoint counts exactly those pages.
        let stored = rows()
        let pages = try await server.psql("SELECT checkpoint::json->>'pagesReceived' FROM lists", database: database).trimmed
        #expect(stored >= 50 && stored < 200 && stored % 10 == 0)
        #expect(pages == String(stored / 10))

        let resumed = try await HotelsProcess.run(arguments)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("fetched \(200 - stored + 10) hotels"), "\(resumed.stdout)")  // page 1 again, then the rest
        #expect(rows() == 200)
        #expect(try await server.psql("SELECT count(DISTINCT code) FROM hotels", database: database).trimmed == "200")
        #expect(try await server.psql("SELECT exhausted FROM lists", database: database).trimmed == "t")
    }
}
