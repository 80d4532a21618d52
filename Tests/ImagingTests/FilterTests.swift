import Foundation
import Imaging
import TestSupport
import Testing

func solid(_ width: Int, _ height: Int, _ rgba: [UInt8]) -> RGBAImage {
    RGBAImage(width: width, height: height, pixels: Array([[UInt8]](repeating: rgba, count: width * height).joined()))
}

@Suite("Filters and encoding")
struct FilterTests {
    @Test("a spec parses to its canonical form")
    func parsing() throws {
        let chain = try FilterChain(parsing: " resize:64x64:fill , sepia:0.80,round:8,grayscale,blur:1.5")
        #expect(chain.description == "resize:64x64:fill,sepia:0.8,round:8,grayscale,blur:1.5")
        #expect(try FilterChain(parsing: "resize:10x20").description == "resize:10x20:fit")
        #expect(try FilterChain(parsing: "sepia").filters == [.sepia(1)])
        #expect(try FilterChain(parsing: "").filters.isEmpty)
        #expect(chain.scaleHint == ScaleHint(width: 64, height: 64, mode: .fill))
    }

    @Test(
        "a bad spec names the offending part",
        arguments: [
            ("resize:64", "resize:64"), ("resize:0x5", "resize:0x5"), ("resize:5x5:stretch", "resize:5x5:stretch"),
            ("sepia:2", "sepia:2"), ("round", "round"), ("blur:abc", "blur:abc"), ("sharpen", "sharpen"),
            ("grayscale:1", "grayscale:1"), ("resize:8x8,vignette", "vignette"),
        ])
    func refused(spec: String, part: String) {
        do {
            _ = try FilterChain(parsing: spec)
            Issue.record("accepted \(spec)")
        } catch {
            #expect(error.part == part)
            #expect(error.description.contains("“\(part)”"))
        }
    }

    @Test("shrinking averages area in linear light")
    func areaAverage() throws {
        // Black and white halves average to 50% linear light: sRGB 188, not 128.
        let image = RGBAImage(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255, 255, 255])
        let shrunk = try FilterChain(parsing: "resize:1x1").apply(to: image)
        #expect(shrunk.pixels == [188, 188, 188, 255])
        // A uniform image stays uniform at any size, and transparency keeps its colour.
        let uniform = try FilterChain(parsing: "resize:7x5:fill").apply(to: solid(33, 17, [200, 100, 50, 128]))
        #expect(uniform.width == 7 && uniform.height == 5)
        #expect(Set(stride(from: 0, to: uniform.pixels.count, by: 4).map { Array(uniform.pixels[$0..<$0 + 4]) }) == [[200, 100, 50, 128]])
    }

    @Test("fit keeps the aspect ratio inside the box; fill covers it and crops")
    func modes() throws {
        let image = solid(400, 200, [10, 20, 30, 255])
        #expect(try FilterChain(parsing: "resize:64x64:fit").apply(to: image).width == 64)
        #expect(try FilterChain(parsing: "resize:64x64:fit").apply(to: image).height == 32)
        let filled = try FilterChain(parsing: "resize:64x64:fill").apply(to: image)
        #expect(filled.width == 64 && filled.height == 64)
    }

    @Test("sepia, grayscale and rounded corners")
    func colour() throws {
        let grey = try FilterChain(parsing: "grayscale").apply(to: solid(1, 1, [255, 0, 0, 255]))
        #expect(grey.pixels == [54, 54, 54, 255])
        let sepia = try FilterChain(parsing: "sepia").apply(to: solid(1, 1, [100, 100, 100, 255]))
        #expect(sepia.pixels == [135, 120, 94, 255])
        #expect(try FilterChain(parsing: "sepia:0").apply(to: solid(1, 1, [1, 2, 3, 4])).pixels == [1, 2, 3, 4])
        let rounded = try FilterChain(parsing: "round:8").apply(to: solid(32, 32, [9, 9, 9, 255]))
        let alpha = { (x: Int, y: Int) in rounded.pixels[(y * 32 + x) * 4 + 3] }
        #expect(alpha(0, 0) == 0)
        #expect(alpha(16, 16) == 255 && alpha(0, 16) == 255)
        #expect((1...254).contains(alpha(1, 3)))  // on the curve: antialiased
    }

    @Test("blur spreads an edge symmetrically and keeps flat areas")
    func blur() throws {
        var pixels: [UInt8] = []
        for x in 0..<20 { pixels += x < 10 ? [0, 0, 0, 255] : [255, 255, 255, 255] }
        let blurred = try FilterChain(parsing: "blur:2").apply(to: RGBAImage(width: 20, height: 1, pixels: pixels))
        #expect(blurred.pixels[0] == 0 && blurred.pixels[19 * 4] == 255)
        #expect(Int(blurred.pixels[9 * 4]) + Int(blurred.pixels[10 * 4]) == 255)
    }

    @Test("the golden thumbnails still come out the same", arguments: ["jpeg-large.jpg", "png-rgba8-adam7.png", "jpeg-exif-6.jpg"])
    func golden(_ file: String) throws {
        let processor = ImageProcessor(filter: try FilterChain(parsing: "resize:32x32:fill,sepia:0.8,round:6"))
        let output = try processor.process([UInt8](Data(contentsOf: Samples.url("Images/\(file)"))))
        let golden = try ImageDecoder().decode([UInt8](Data(contentsOf: Samples.url("Images/golden/\(file).png"))))
        #expect(output.image.width == golden.image.width && output.image.height == golden.image.height)
        #expect(maxDifference(output.image.pixels, golden.image.pixels) <= 2)
    }

    @Test("PNG round trips exactly; JPEG closely, with alpha over white")
    func encoding() throws {
        let fixture = try #require(try ImageCase.all().first { $0.file == "png-rgba8.png" })
        let image = try ImageDecoder().decode(fixture.bytes()).image
        for level in [0, 6, 9] {
            #expect(try ImageDecoder().decode(ImageEncoding.png(compressionLevel: level).encode(image)).image == image)
        }
        let photo = try ImageDecoder().decode(try ImageCase.all().first { $0.file == "jpeg-large.jpg" }!.bytes()).image
        let jpeg = try ImageDecoder().decode(ImageEncoding.jpeg(quality: 95).encode(photo)).image
        #expect(psnr(jpeg.pixels, photo.pixels) >= 30)  // a stripe pattern, hard for JPEG
        let clear = try ImageDecoder().decode(ImageEncoding.jpeg().encode(solid(8, 8, [0, 0, 0, 0]))).image
        #expect(clear.pixels.allSatisfy { $0 >= 250 })
    }
}
