import Foundation
import Imaging
import Locking
import SOAP
import Seeding

/// Makes each hotel's logo: a size from 64 to 1024 px and colours drawn from
/// its code and the seed, PNG or JPEG. Made once, then kept (up to a budget).
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
        var pixels = [UInt8](repeating: 255, count: size * size * 4)
        let centre = Double(size) / 2, radius = Double(size) * 0.35
        for y in 0..<size {
            for x in 0..<size {
                let index = (y * size + x) * 4
                let dx = Double(x) - centre, dy = Double(y) - centre
                let inside = dx * dx + dy * dy < radius * radius
                pixels[index] = inside ? 255 &- background.0 : background.0 &+ UInt8(x * 64 / size)
                pixels[index + 1] = inside ? 255 &- background.1 : background.1
                pixels[index + 2] = inside ? 255 &- background.2 : background.2 &+ UInt8(y * 64 / size)
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
