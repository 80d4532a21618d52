import Foundation
import Imaging
import Testing

@Suite("Perceptual hashes")
struct PerceptualHashTests {
    /// A logo-like picture: a background and a few rectangles in the unit
    /// square, so every size draws the same picture. `seed` picks the shapes.
    static func picture(seed: Int, size: Int, transparentBackground: Bool = false) -> RGBAImage {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 10_000) / 10_000
        }
        let background: [UInt8] = [UInt8(next() * 255), UInt8(next() * 255), UInt8(next() * 255), transparentBackground ? 0 : 255]
        let shapes = (0..<4).map { _ in
            (
                x: 0.1 + next() * 0.5, y: 0.1 + next() * 0.5, width: 0.15 + next() * 0.35, height: 0.15 + next() * 0.35,
                colour: [UInt8(next() * 255), UInt8(next() * 255), UInt8(next() * 255), 255]
            )
        }
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size {
                let (u, v) = ((Double(x) + 0.5) / Double(size), (Double(y) + 0.5) / Double(size))
                let shape = shapes.last { u >= $0.x && u < $0.x + $0.width && v >= $0.y && v < $0.y + $0.height }
                let colour = shape?.colour ?? background
                for channel in 0..<4 { pixels[(y * size + x) * 4 + channel] = colour[channel] }
            }
        }
        return RGBAImage(width: size, height: size, pixels: pixels)
    }

    /// Each supplier of the sample worlds re-encodes a logo its own way.
    static let encodings: [(size: Int, encoding: ImageEncoding)] = [
        (400, .png()), (120, .jpeg(quality: 70)), (256, .png()), (64, .jpeg(quality: 80)), (600, .jpeg(quality: 88)),
    ]

    @Test("one picture re-encoded at five sizes, in PNG or JPEG, hashes at most 12 bits apart; ten other pictures at least 20 bits away")
    func reencodedAgainstOther() throws {
        var closestOther = 64
        for seed in 1...5 {
            let copies = try Self.encodings.map { try #require(try PerceptualHash(data: $1.encode(Self.picture(seed: seed, size: $0)))) }
            let spread = copies.flatMap { a in copies.map { a.distance(to: $0) } }.max() ?? 0
            // A 64 px JPEG is the roughest copy: its edges fall on a coarse grid, and its 8×8 blocks are an eighth of it.
            #expect(spread <= 12, "picture \(seed): copies \(copies.map { a in copies.map { a.distance(to: $0) } }) bits apart")
            for other in (seed + 1)...(seed + 10) {
                let hash = try #require(PerceptualHash(of: Self.picture(seed: other * 7, size: 256)))
                closestOther = min(closestOther, copies[0].distance(to: hash))
            }
        }
        #expect(closestOther >= 20)
    }

    @Test("a transparent background is read as white: the logo as it shows on a page")
    func alphaFlattened() throws {
        let transparent = Self.picture(seed: 3, size: 128, transparentBackground: true)
        var onWhite = transparent
        for pixel in 0..<onWhite.pixelCount where onWhite.pixels[pixel * 4 + 3] == 0 {
            onWhite.pixels.replaceSubrange((pixel * 4)..<(pixel * 4 + 4), with: [255, 255, 255, 255])
        }
        // Edges mix in linear light on one side and on white on the other: a bit or two at most.
        let (hash, white) = (try #require(PerceptualHash(of: transparent)), try #require(PerceptualHash(of: onWhite)))
        #expect(hash.distance(to: white) <= 2)
        // Not the hash of whatever colour the transparent pixels hold.
        #expect(hash.distance(to: try #require(PerceptualHash(of: Self.picture(seed: 3, size: 128)))) >= 8)
    }

    @Test("a picture of one colour (a placeholder) has no hash, whatever its colour: its coefficients are rounding noise")
    func flatPicturesHaveNoHash() throws {
        for colour: [UInt8] in [[0, 0, 0, 255], [255, 255, 255, 255], [200, 30, 90, 255], [10, 10, 10, 0]] {
            let flat = RGBAImage(width: 64, height: 64, pixels: Array([[UInt8]](repeating: colour, count: 64 * 64).joined()))
            #expect(PerceptualHash(of: flat) == nil, "\(colour)")
            #expect(try PerceptualHash(data: ImageEncoding.png().encode(flat)) == nil)
        }
    }

    @Test("a hash is 16 hex digits and reads back; bytes that are no picture are refused with the codec's error")
    func hexAndBadInput() {
        let hash = PerceptualHash(value: 0x00AB_0000_0000_00CD)
        #expect(hash.description == "00ab0000000000cd" && PerceptualHash(hex: hash.description) == hash)
        #expect(PerceptualHash(hex: "xyz") == nil && PerceptualHash(hex: "00ab0000000000cd0") == nil)
        #expect(hash.distance(to: PerceptualHash(value: 0)) == hash.value.nonzeroBitCount)
        #expect(throws: ImageError.self) { try PerceptualHash(data: Array("not a picture".utf8)) }
    }
}
