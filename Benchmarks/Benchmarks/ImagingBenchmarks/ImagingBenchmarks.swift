import Benchmark
import Imaging

/// A 12 MP (4000×3000) photographic JPEG, encoded in memory.
private func twelveMegapixelJPEG() -> [UInt8] {
    let (width, height) = (4000, 3000)
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let index = (y * width + x) * 4
            pixels[index] = UInt8((x * 255) / width)
            pixels[index + 1] = UInt8((y * 255) / height)
            pixels[index + 2] = UInt8(((x ^ y) >> 3) & 0xFF)
        }
    }
    return (try? ImageEncoding.jpeg(quality: 90).encode(RGBAImage(width: width, height: height, pixels: pixels))) ?? []
}

let benchmarks: @Sendable () -> Void = {
    let jpeg = twelveMegapixelJPEG()
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 20)

    Benchmark("Decode 12 MP JPEG, full size", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder().decode(jpeg).image.width)
        }
    }

    Benchmark("Decode 12 MP JPEG at 1/8 (DCT scaling)", configuration: configuration) { benchmark in
        let hint = ScaleHint(width: 250, height: 187, mode: .fit) // 1/8 is 500×375, twice the hint
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder().decode(jpeg, hint: hint).image.width)
        }
    }

    Benchmark("12 MP JPEG to a 64×64 fill thumbnail PNG", configuration: configuration) { benchmark in
        let processor = ImageProcessor(filter: try FilterChain(parsing: "resize:64x64:fill"))
        for _ in benchmark.scaledIterations {
            blackHole(try processor.process(jpeg).encoded.count)
        }
    }
}
