import Foundation

/// A 64-bit perceptual hash of a picture: two copies of one logo, re-encoded
/// at other sizes, in PNG or JPEG at another quality, hash a few bits apart;
/// two different pictures about 32 bits apart.
///
/// The classic DCT hash: the picture flattened onto white (a transparent
/// logo looks as it does on a page), its centre square (``ResizeMode/fill``)
/// resampled to 32×32 grey levels, then the 8×8 lowest frequencies of its
/// two-dimensional DCT but the first row and column (the average brightness
/// and the plain gradients); each bit says whether a coefficient is above
/// their median. A picture of one colour has no hash: its coefficients are
/// rounding noise, the same for every such placeholder.
///
/// ```swift
/// let hash = try PerceptualHash(data: logoBytes)
/// let bits = hash.distance(to: other)   // 0…64
/// ```
public struct PerceptualHash: Sendable, Hashable, CustomStringConvertible {
    public var value: UInt64

    /// The side of the grey picture the DCT reads.
    static let side = 32
    /// The frequencies kept along each axis, after the first.
    static let kept = 8

    public init(value: UInt64) {
        self.value = value
    }

    /// The hash of an encoded PNG or JPEG, decoded straight to 32×32; nil for a picture of one colour.
    public init?(data: [UInt8], decoder: ImageDecoder = ImageDecoder()) throws(ImageError) {
        let side = Self.side
        self.init(of: try decoder.decode(data, resizedTo: ScaleHint(width: side, height: side, mode: .fill)).image)
    }

    /// The hash of a decoded picture of any size; nil for a picture of one colour.
    public init?(of image: RGBAImage) {
        let side = Self.side
        let small = image.width == side && image.height == side ? image : Resampler.resize(image, width: side, height: side, mode: .fill)
        let grey = Self.greyOnWhite(small)
        let mean = grey.reduce(0, +) / Double(grey.count)
        guard grey.contains(where: { abs($0 - mean) >= 1 }) else { return nil }
        let coefficients = Self.lowFrequencies(grey)
        let median = coefficients.sorted()[coefficients.count / 2]
        var value: UInt64 = 0
        for (bit, coefficient) in coefficients.enumerated() where coefficient > median {
            value |= 1 << UInt64(bit)
        }
        self.init(value: value)
    }

    /// How many of the 64 bits differ.
    public func distance(to other: PerceptualHash) -> Int {
        (value ^ other.value).nonzeroBitCount
    }

    /// Sixteen lower-case hex digits.
    public var description: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The hash written by ``description``; nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 16, let value = UInt64(hex, radix: 16) else { return nil }
        self.init(value: value)
    }

    /// Luma (Rec. 601) of each pixel composited over white.
    private static func greyOnWhite(_ image: RGBAImage) -> [Double] {
        (0..<image.pixelCount).map { pixel in
            let red = Double(image.pixels[pixel * 4])
            let green = Double(image.pixels[pixel * 4 + 1])
            let blue = Double(image.pixels[pixel * 4 + 2])
            let alpha = Double(image.pixels[pixel * 4 + 3]) / 255
            let luma = 0.299 * red + 0.587 * green + 0.114 * blue
            return luma * alpha + 255 * (1 - alpha)
        }
    }

    /// cos((2x + 1) u π / 2N) for the frequencies kept: `[u][x]`.
    private static let cosines: [[Double]] = (0...kept).map { frequency in
        (0..<side).map { x -> Double in
            let angle: Double = Double(2 * x + 1) * Double(frequency) * Double.pi / Double(2 * side)
            return cos(angle)
        }
    }

    /// The DCT coefficients at frequencies 1…8 along both axes, row by row:
    /// a separable transform, rows first, computed only where it is kept.
    private static func lowFrequencies(_ grey: [Double]) -> [Double] {
        let side = Self.side
        // rows[y][u]: each row's coefficient at horizontal frequency u.
        var rows = [Double](repeating: 0, count: side * kept)
        for y in 0..<side {
            for u in 1...kept {
                var sum = 0.0
                for x in 0..<side { sum += grey[y * side + x] * cosines[u][x] }
                rows[y * kept + (u - 1)] = sum
            }
        }
        var coefficients: [Double] = []
        coefficients.reserveCapacity(kept * kept)
        for v in 1...kept {
            for u in 0..<kept {
                var sum = 0.0
                for y in 0..<side { sum += rows[y * kept + u] * cosines[v][y] }
                coefficients.append(sum)
            }
        }
        return coefficients
    }
}
