import Foundation
import TestSupport
import Testing

/// The programs in `Examples/` run as a user would run them, against `hotels serve`.
@Suite("Examples")
struct ExampleTests {
    func run(_ program: String, _ arguments: [String], cacheHome: String? = nil) async throws -> HotelsProcess {
        try await HotelsProcess.run(arguments, program: program, environment: cacheHome.map { ["XDG_CACHE_HOME": $0] } ?? [:])
    }

    @Test("FetchCity writes the folder hotels fetch --logos --out writes, byte for byte, with the library alone")
    func fetchCity() async throws {
        let serve = try await ServeProcess(["--hotels", "500"])
        defer { withExtendedLifetime(serve) {} }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-fetchcity-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        // Each with a cache of its own, so both start cold.
        let (example, tool) = (root.appendingPathComponent("example"), root.appendingPathComponent("tool"))
        let result = try await run(
            "FetchCity", [serve.endpoint, "Paris", example.appendingPathComponent("out").path],
            cacheHome: example.appendingPathComponent("cache").path)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "page 1: 50 new, 0 updated")
        #expect(lines.last == "end: endMarker; 100 hotels in the list, 100 logos")
        let fetched = try await HotelsProcess.run(
            ["fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--logos", "--out", tool.appendingPathComponent("out").path],
            environment: ["XDG_CACHE_HOME": tool.appendingPathComponent("cache").path])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let files = try folderContents(example.appendingPathComponent("out"))
        #expect(files.count == 101 && files["hotels.jsonl"]?.isEmpty == false)
        #expect(files == (try folderContents(tool.appendingPathComponent("out"))))
    }

    /// Every file under `folder`, by relative path.
    private func folderContents(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let paths = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
        for path in paths {
            var isFolder: ObjCBool = false
            let url = folder.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[path] = try Data(contentsOf: url)
        }
        return files
    }

    @Test("ParseResponse streams a recorded response's records")
    func parseResponse() async throws {
        let result = try await run("ParseResponse", ["Samples/Fixtures/ota-search.xml", "ota-search"])
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("3 records, 0 warnings, next cursor: PAR-PAGE-2\n"))
    }

    @Test("Thumbnail saves a filtered logo, and a failure is an error message, not a crash")
    func thumbnail() async throws {
        let serve = try await ServeProcess(["--hotels", "20"])
        defer { withExtendedLifetime(serve) {} }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-thumbnail-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let saved = try await run("Thumbnail", [serve.baseURL + "/logos/H000002.png", out])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
        let missing = try await run("Thumbnail", [serve.baseURL + "/logos/NOPE.png", out])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: HTTP 404\n")
    }
}
