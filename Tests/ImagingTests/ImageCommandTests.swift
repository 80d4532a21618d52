import Foundation
import Imaging
import TestSupport
import Testing

@Suite("hotels image")
struct ImageCommandTests {
    @Test("one file: decode, filter, encode")
    func single() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("thumb.png").path
        let result = try await HotelsProcess.run([
            "image", "Samples/Images/jpeg-large.jpg", "--out", out, "--filter", "resize:64x64:fill,round:8",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let decoded = try ImageDecoder().decode([UInt8](Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(decoded.format == .png && decoded.image.width == 64 && decoded.image.height == 64)
    }

    @Test("a bad image exits 65 with the reason; a bad filter exits 64; a missing file 66")
    func failures() async throws {
        let bad = try await HotelsProcess.run(["image", "Samples/Images/broken-image.gif", "--out", "/tmp/never.png"])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("unsupported image format: GIF"))
        let bomb = try await HotelsProcess.run(["image", "Samples/Images/bomb-real-20000.png", "--out", "/tmp/never.png"])
        #expect(bomb.status == 65 && bomb.stderr.contains("20000×20000"))
        let filter = try await HotelsProcess.run([
            "image", "Samples/Images/png-rgb8.png", "--out", "/tmp/never.png", "--filter", "resize:9",
        ])
        #expect(filter.status == 64 && filter.stderr.contains("“resize:9”"))
        let missing = try await HotelsProcess.run(["image", "Samples/Images/missing.png", "--out", "/tmp/never.png"])
        #expect(missing.status == 66 && missing.stderr.contains("cannot read Samples/Images/missing.png: No such file or directory"))
    }

    @Test("a batch converts every good image and reports the bad ones")
    func batch() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for name in ["jpeg-large.jpg", "png-rgba8.png", "jpeg-exif-6.jpg", "broken-random.bin"] {
            try FileManager.default.copyItem(at: Samples.url("Images/\(name)"), to: input.appendingPathComponent(name))
        }
        let out = folder.appendingPathComponent("out").path
        let result = try await HotelsProcess.run([
            "image", "--batch", input.path, "--out", out, "--filter", "resize:32x32:fill", "--jobs", "2", "--json",
        ])
        #expect(result.status == 65)
        #expect(result.stdout.contains(#""images": 4, "converted": 3, "failed": 1"#))
        #expect(result.stderr.contains("broken-random.bin"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["jpeg-exif-6.png", "jpeg-large.png", "png-rgba8.png"])
    }
}
