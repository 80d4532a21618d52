import Foundation

/// Resizing of good quality: area averaging when shrinking (each output pixel
/// is the exact average of the source area it covers) and linear
/// interpolation when enlarging, in linear light with premultiplied alpha, so
/// neither dark fringes nor darkened edges appear.
enum Resampler {
    /// sRGB byte to linear light.
    static let toLinear: [Float] = (0..<256).map { value in
        let c = Float(value) / 255
        return c <= 0.04045 ? c / 12.92 : Float(pow(Double((c + 0.055) / 1.055), 2.4))
    }

    /// Linear light, quantised to 4096 steps, to an sRGB byte.
    static let toSRGB: [UInt8] = (0..<4096).map { step in
        let linear = Double(step) / 4095
        let c = linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (c * 255).rounded())))
    }

    static func resize(_ image: RGBAImage, width: Int, height: Int, mode: ResizeMode) -> RGBAImage {
        var resampler = RowResampler(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height, mode: mode)
        guard !resampler.isIdentity else { return image }
        image.pixels.withUnsafeBufferPointer { resampler.consume(band: $0, rows: image.height, firstRow: 0) }
        return resampler.finish()
    }

    /// For each output pixel, the source pixels and weights (summing to 1).
    static func weights(sourceLength: Int, start: Double, span: Double, outputLength: Int) -> [[(Int, Float)]] {
        let step = span / Double(outputLength)
        return (0..<outputLength).map { output in
            if step >= 1 {
                // Shrinking: the exact coverage of [left, right) by each source pixel.
                let left = start + Double(output) * step
                let right = left + step
                var list: [(Int, Float)] = []
                var pixel = Int(left.rounded(.down))
                while Double(pixel) < right, pixel < sourceLength {
                    let covered = min(right, Double(pixel + 1)) - max(left, Double(pixel))
                    if covered > 0 { list.append((max(0, pixel), Float(covered / step))) }
                    pixel += 1
                }
                return list
            }
            // Enlarging: linear interpolation between the two nearest centres.
            let centre = start + (Double(output) + 0.5) * step - 0.5
            let lower = Int(centre.rounded(.down))
            let fraction = Float(centre - Double(lower))
            let clamp = { (value: Int) in min(sourceLength - 1, max(0, value)) }
            return [(clamp(lower), 1 - fraction), (clamp(lower + 1), fraction)]
        }
    }

    static func fromPremultipliedLinear(_ values: [SIMD4<Float>], width: Int, height: Int) -> RGBAImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for (index, value) in values.enumerated() where value.w > 0 {
            let alpha = min(1, value.w)
            let colour = (value / alpha).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
            pixels[index * 4] = toSRGB[Int(colour.x * 4095 + 0.5)]
            pixels[index * 4 + 1] = toSRGB[Int(colour.y * 4095 + 0.5)]
            pixels[index * 4 + 2] = toSRGB[Int(colour.z * 4095 + 0.5)]
            pixels[index * 4 + 3] = UInt8(alpha * 255 + 0.5)
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}

/// Resizes an image whose rows arrive one at a time, top to bottom, as a
/// decoder produces them: only the rows the output needs are read, and only
/// one row of the source is ever looked at, so memory is the output's width
/// times the source's height, not the source. When the box is the image's
/// own size, rows are kept as they come and the image is returned unchanged.
struct RowResampler {
    let outputWidth: Int
    let outputHeight: Int
    let isIdentity: Bool
    private let sourceWidth: Int
    /// The rows themselves, when the output is the source.
    private var passThrough: [UInt8]
    private let columns: [[(Int, Float)]]
    private let rows: [[(Int, Float)]]
    private var neededRows: [Bool]
    /// Each needed source row, already resampled horizontally.
    private var horizontal: [SIMD4<Float>]

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int, mode: ResizeMode) {
        let scaleX = Double(width) / Double(sourceWidth)
        let scaleY = Double(height) / Double(sourceHeight)
        var crop = (x: 0.0, y: 0.0, width: Double(sourceWidth), height: Double(sourceHeight))
        var output = (width: width, height: height)
        switch mode {
        case .fit:
            let scale = min(scaleX, scaleY)
            output = (max(1, Int((Double(sourceWidth) * scale).rounded())), max(1, Int((Double(sourceHeight) * scale).rounded())))
        case .fill:
            let scale = max(scaleX, scaleY)
            crop.width = Double(width) / scale
            crop.height = Double(height) / scale
            crop.x = (Double(sourceWidth) - crop.width) / 2
            crop.y = (Double(sourceHeight) - crop.height) / 2
        }
        self.sourceWidth = sourceWidth
        outputWidth = output.width
        outputHeight = output.height
        isIdentity = output.width == sourceWidth && output.height == sourceHeight && crop.x == 0 && crop.y == 0
        columns = Resampler.weights(sourceLength: sourceWidth, start: crop.x, span: crop.width, outputLength: output.width)
        rows = Resampler.weights(sourceLength: sourceHeight, start: crop.y, span: crop.height, outputLength: output.height)
        neededRows = [Bool](repeating: false, count: sourceHeight)
        for list in rows { for (index, _) in list { neededRows[index] = true } }
        horizontal = [SIMD4<Float>](repeating: .zero, count: isIdentity ? 0 : output.width * sourceHeight)
        passThrough = [UInt8](repeating: 0, count: isIdentity ? sourceWidth * sourceHeight * 4 : 0)
    }

    /// Takes `rows` consecutive source rows, packed, starting at row `firstRow`.
    mutating func consume(band: UnsafeBufferPointer<UInt8>, rows: Int, firstRow: Int) {
        let stride = sourceWidth * 4
        for row in 0..<rows where neededRows[firstRow + row] {
            consume(row: UnsafeBufferPointer(rebasing: band[(row * stride)..<((row + 1) * stride)]), y: firstRow + row)
        }
    }

    /// Takes source row `y`: `sourceWidth` RGBA pixels.
    mutating func consume(row: UnsafeBufferPointer<UInt8>, y: Int) {
        guard neededRows[y] else { return }
        if isIdentity {
            passThrough.withUnsafeMutableBufferPointer { pixels in
                _ = UnsafeMutableBufferPointer(rebasing: pixels[(y * row.count)..<((y + 1) * row.count)]).initialize(from: row)
            }
            return
        }
        let base = y * outputWidth
        Resampler.toLinear.withUnsafeBufferPointer { linear in
            for x in 0..<outputWidth {
                var sum = SIMD4<Float>.zero
                for (index, weight) in columns[x] {
                    let offset = index * 4
                    let alpha = Float(row[offset + 3]) * (1 / 255)
                    sum += SIMD4(linear[Int(row[offset])] * alpha, linear[Int(row[offset + 1])] * alpha,
                                 linear[Int(row[offset + 2])] * alpha, alpha) * weight
                }
                horizontal[base + x] = sum
            }
        }
    }

    func finish() -> RGBAImage {
        if isIdentity { return RGBAImage(width: outputWidth, height: outputHeight, pixels: passThrough) }
        var result = [SIMD4<Float>](repeating: .zero, count: outputWidth * outputHeight)
        for y in 0..<outputHeight {
            for (index, weight) in rows[y] {
                let row = index * outputWidth
                for x in 0..<outputWidth { result[y * outputWidth + x] += horizontal[row + x] * weight }
            }
        }
        return Resampler.fromPremultipliedLinear(result, width: outputWidth, height: outputHeight)
    }
}
