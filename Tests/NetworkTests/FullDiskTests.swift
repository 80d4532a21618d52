import Foundation
import TestSupport
import Testing

/// A full file system, for real: a 200 KiB tmpfs mounted for the test (the tests run as root, as they do
/// to start PostgreSQL as a user of their own).
@Suite("hotels fetch on a full disk")
struct FullDiskTests {
    /// Runs `body` with a fresh tmpfs of `kibibytes` mounted at a new folder, unmounted after whatever happens.
    func withTinyFileSystem(kibibytes: Int, _ body: (URL) async throws -> Void) async throws {
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("tiny-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        func run(_ arguments: [String]) async throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            return try await ChildProcess(starting: process).ended().status
        }
        let mounted = try await run(["mount", "-t", "tmpfs", "-o", "size=\(kibibytes)k", "tmpfs", mountPoint.path])
        try #require(mounted == 0, "mount needs root: the tests run as root, as they do to start PostgreSQL as a user of their own")
        do {
            try await body(mountPoint)
        } catch {
            _ = try await run(["umount", mountPoint.path])
            throw error
        }
        _ = try await run(["umount", mountPoint.path])
    }

    @Test(
        "an --out folder on a full file system: exit 74 and the OS's words, no space left on device, never Foundation's; the list is kept, and a rerun with space writes every hotel once"
    )
    func outOfSpace() async throws {
        let serve = try await ServeProcess(["--hotels", "5000"])
        defer { withExtendedLifetime(serve) {} }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("full-disk-cache-\(UUID().uuidString)").path
        let arguments = ["fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--page-size", "200", "--cache", cache]
        try await withTinyFileSystem(kibibytes: 200) { tiny in
            let full = try await HotelsProcess.run(arguments + ["--out", tiny.appendingPathComponent("out").path])
            #expect(full.status == 74, "\(full.stderr)")
            #expect(full.stderr.contains("cannot write \(tiny.path)/out/hotels.jsonl: no space left on device"), "\(full.stderr)")
            #expect(!full.stderr.contains("NSCocoaErrorDomain") && !full.stderr.contains("Error Domain"), "\(full.stderr)")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("full-disk-out-\(UUID().uuidString)")
        let rerun = try await HotelsProcess.run(arguments + ["--out", out.path])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let codes = try String(contentsOf: out.appendingPathComponent("hotels.jsonl"), encoding: .utf8).split(separator: "\n")
            .compactMap { line in (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["code"] as? String }
        #expect(codes.count == 1_000 && Set(codes).count == 1_000)
    }
}
