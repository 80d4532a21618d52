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
        let background = (
            UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random)
        )
        let shapes = (0..<Int.random(in: 3...5, using: &random)).map { _ in LogoShape(random: &random) }
        var pixels = [UInt8](repeating: 255, count: size * size * 4)
        pixels.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            for y in 0..<size {
                // Where the row's pixel centres fall in the unit square: every size draws the same picture.
                let v = (Double(y) + 0.5) / Double(size)
                let row = base + y * size * 4
                paint(row, 0..<size, background)
                // Each shape over the ones before it, as the run of columns it covers on this row.
                for shape in shapes {
                    guard let (left, right) = shape.span(atRow: v) else { continue }
                    let first = max(0, Int((left * Double(size) - 0.5).rounded(.up)))
                    let last = min(size - 1, Int((right * Double(size) - 0.5).rounded(.down)))
                    if first <= last { paint(row, first..<(last + 1), shape.colour) }
                }
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

/// Sets `columns` of a row of RGBA pixels to `colour`, leaving alpha as it is.
private func paint(_ row: UnsafeMutablePointer<UInt8>, _ columns: Range<Int>, _ colour: (UInt8, UInt8, UInt8)) {
    for x in columns {
        row[x * 4] = colour.0
        row[x * 4 + 1] = colour.1
        row[x * 4 + 2] = colour.2
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
        colour = (
            UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random)
        )
    }

    /// The horizontal extent it covers at height `v`, nil when it does not reach that row.
    func span(atRow v: Double) -> (Double, Double)? {
        let dy = (v - centre.y) / halfSize.height
        guard abs(dy) <= 1 else { return nil }
        let half = halfSize.width * (isEllipse ? (1 - dy * dy).squareRoot() : 1)
        return (centre.x - half, centre.x + half)
    }
}
