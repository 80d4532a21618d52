import Foundation
import Testing
import TestSupport

/// The programs in `Examples/` run as a user would run them, against `hotels serve`.
@Suite("Examples")
struct ExampleTests {
    func run(_ program: String, _ arguments: [String]) throws -> HotelsProcess {
        try HotelsProcess.run(arguments, program: program)
    }

    @Test("FetchCity fetches a city through the store and loads the visible logos")
    func fetchCity() throws {
        let serve = try ServeProcess(["--hotels", "500"])
        defer { withExtendedLifetime(serve) {} }
        let result = try run("FetchCity", [serve.endpoint, "Paris"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "page 1: 50 new, 0 updated")
        #expect(lines.contains("end: endMarker; 100 hotels in the list"))
        #expect(lines.filter { $0.hasSuffix("64×64 from network") }.count == 10)
    }

    @Test("ParseResponse streams a recorded response's records")
    func parseResponse() throws {
        let result = try run("ParseResponse", ["Samples/Fixtures/ota-search.xml", "ota-search"])
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("3 records, 0 warnings, next cursor: PAR-PAGE-2\n"))
    }

    @Test("Thumbnail saves a filtered logo, and a failure is an error message, not a crash")
    func thumbnail() throws {
        let serve = try ServeProcess(["--hotels", "20"])
        defer { withExtendedLifetime(serve) {} }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-thumbnail-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let saved = try run("Thumbnail", [serve.baseURL + "/logos/H000002.png", out])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
        let missing = try run("Thumbnail", [serve.baseURL + "/logos/NOPE.png", out])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: HTTP 404\n")
    }
}
