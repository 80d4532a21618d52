import Foundation
import Imaging
import Locking
import SOAP
import Seeding

/// Makes each hotel's logo: a size from 64 to 1024 px, and a background with
/// three to five rectangles and ellipses drawn from its picture's seed, PNG or
/// JPEG. Made once, then kept (up to a budget). Two pictures differ in their
/// shapes, not only in colour, as two real logos do: matching compares their
/// perceptual hashes, which see grey levels.
final class LogoGenerator: Sendable {
    private let seed: UInt64
    /// Made logos, and their total size against the budget.
    private let cache = PosixMutex<(logos: [String: [UInt8]], bytes: Int)>(([:], 0))
    private static let cacheBudget = 64 << 20

    init(seed: UInt64) {
        self.seed = seed
    }

    /// The encoded logo and its ETag.
    func logo(for hotel: SampleHotel, _ logo: SampleLogo) throws -> (bytes: [UInt8], etag: String) {
        let etag = "\"\(hotel.code)-\(seed)\""
        if let bytes = cache.withLock({ $0.logos[hotel.code] }) { return (bytes, etag) }
        var random = SeededGenerator(seed: logo.picture)
        let drawn = Int.random(in: 64...1024, using: &random)
        // A supplier's copy of a picture is the same drawing at its own size: the pattern scales with the side.
        let size = logo.size ?? drawn
        let background = (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random))
        let shapes = (0..<Int.random(in: 3...5, using: &random)).map { _ in LogoShape(random: &random) }
        var pixels = [UInt8](repeating: 255, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size {
                let index = (y * size + x) * 4
                // Where the pixel's centre falls in the unit square: every size draws the same picture.
                let point = ((Double(x) + 0.5) / Double(size), (Double(y) + 0.5) / Double(size))
                let colour = shapes.last { $0.covers(point) }?.colour ?? background
                pixels[index] = colour.0
                pixels[index + 1] = colour.1
                pixels[index + 2] = colour.2
            }
        }
        let image = RGBAImage(width: size, height: size, pixels: pixels)
        let bytes = try (logo.isPNG ? ImageEncoding.png(compressionLevel: 3) : ImageEncoding.jpeg(quality: logo.jpegQuality)).encode(image)
        cache.withLock { cache in
            guard cache.logos[hotel.code] == nil, cache.bytes + bytes.count <= Self.cacheBudget else { return }
            cache.logos[hotel.code] = bytes
            cache.bytes += bytes.count
        }
        return (bytes, etag)
    }
}

/// One shape of a logo, in the unit square.
private struct LogoShape {
    let isEllipse: Bool
    let centre: (x: Double, y: Double)
    let halfSize: (width: Double, height: Double)
    let colour: (UInt8, UInt8, UInt8)

    init(random: inout SeededGenerator) {
        isEllipse = Bool.random(using: &random)
        centre = (Double.random(in: 0.15...0.85, using: &random), Double.random(in: 0.15...0.85, using: &random))
        halfSize = (Double.random(in: 0.08...0.35, using: &random), Double.random(in: 0.08...0.35, using: &random))
        colour = (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random))
    }

    func covers(_ point: (Double, Double)) -> Bool {
        let dx = (point.0 - centre.x) / halfSize.width, dy = (point.1 - centre.y) / halfSize.height
        return isEllipse ? dx * dx + dy * dy <= 1 : abs(dx) <= 1 && abs(dy) <= 1
    }
}
