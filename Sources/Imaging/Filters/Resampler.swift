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

/// Resizes an image whose rows arrive one at a time, as a decoder produces
/// them: top to bottom, or, for an interlaced PNG, pass by pass, each pass
/// row holding every `columnStep`-th pixel. Each row is added into the output
/// rows it covers at once, so memory is the output and one row, whatever the
/// source's size or row order. When the box is the image's own size, rows are
/// kept as they come and the image is returned unchanged.
struct RowResampler {
    let outputWidth: Int
    let outputHeight: Int
    let isIdentity: Bool
    private let sourceWidth: Int
    /// The rows themselves, when the output is the source.
    private var passThrough: [UInt8]
    /// For each output column, the source columns and their weights.
    private let columns: [[(Int, Float)]]
    /// For each output row, the source rows and their weights.
    private let rows: [[(Int, Float)]]
    /// The last source row each output row reads: ascending, so the output
    /// rows a source row falls in are found by binary search.
    private let lastRows: [Int]
    /// The output, premultiplied linear light, summed row by row.
    private var accumulated: [SIMD4<Float>]
    /// One source row resampled horizontally.
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
        var last = -1
        lastRows = rows.map { list in
            last = max(last, list.map(\.0).max() ?? last)
            return last
        }
        accumulated = [SIMD4<Float>](repeating: .zero, count: isIdentity ? 0 : output.width * output.height)
        horizontal = [SIMD4<Float>](repeating: .zero, count: isIdentity ? 0 : output.width)
        passThrough = [UInt8](repeating: 0, count: isIdentity ? sourceWidth * sourceHeight * 4 : 0)
    }

    /// Takes `rows` consecutive source rows, packed, starting at row `firstRow`.
    mutating func consume(band: UnsafeBufferPointer<UInt8>, rows: Int, firstRow: Int) {
        let stride = sourceWidth * 4
        for row in 0..<rows {
            consume(row: UnsafeBufferPointer(rebasing: band[(row * stride)..<((row + 1) * stride)]), y: firstRow + row)
        }
    }

    /// Takes the pixels of source row `y` at columns `firstColumn`,
    /// `firstColumn + columnStep`, …: RGBA, packed, as many as `row` holds.
    mutating func consume(row: UnsafeBufferPointer<UInt8>, y: Int, firstColumn: Int = 0, columnStep: Int = 1) {
        if isIdentity {
            passThrough.withUnsafeMutableBufferPointer { pixels in
                for pixel in 0..<(row.count / 4) {
                    let target = (y * sourceWidth + firstColumn + pixel * columnStep) * 4
                    for channel in 0..<4 { pixels[target + channel] = row[pixel * 4 + channel] }
                }
            }
            return
        }
        var outputRow = firstOutputRow(reading: y)
        guard outputRow < outputHeight, rows[outputRow].contains(where: { $0.0 == y }) else { return }
        resampleHorizontally(row, firstColumn: firstColumn, columnStep: columnStep)
        while outputRow < outputHeight, let first = rows[outputRow].first?.0, first <= y {
            let weight = rows[outputRow].reduce(Float(0)) { $1.0 == y ? $0 + $1.1 : $0 }
            let base = outputRow * outputWidth
            for x in 0..<outputWidth { accumulated[base + x] += horizontal[x] * weight }
            outputRow += 1
        }
    }

    /// The first output row whose source rows reach down to `y`.
    private func firstOutputRow(reading y: Int) -> Int {
        var (low, high) = (0, outputHeight)
        while low < high {
            let middle = (low + high) / 2
            if lastRows[middle] < y { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Fills `horizontal` from the row's pixels: premultiplied, in linear light.
    private mutating func resampleHorizontally(_ row: UnsafeBufferPointer<UInt8>, firstColumn: Int, columnStep: Int) {
        let count = row.count / 4
        Resampler.toLinear.withUnsafeBufferPointer { linear in
            func premultiplied(_ pixel: Int) -> SIMD4<Float> {
                let offset = pixel * 4
                let alpha = Float(row[offset + 3]) * (1 / 255)
                return SIMD4(
                    linear[Int(row[offset])] * alpha, linear[Int(row[offset + 1])] * alpha,
                    linear[Int(row[offset + 2])] * alpha, alpha)
            }
            let isWhole = firstColumn == 0 && columnStep == 1
            for x in 0..<outputWidth {
                var sum = SIMD4<Float>.zero
                for (index, weight) in columns[x] {
                    if isWhole {
                        sum += premultiplied(index) * weight
                    } else if index >= firstColumn, (index - firstColumn) % columnStep == 0, (index - firstColumn) / columnStep < count {
                        sum += premultiplied((index - firstColumn) / columnStep) * weight
                    }
                }
                horizontal[x] = sum
            }
        }
    }

    func finish() -> RGBAImage {
        if isIdentity { return RGBAImage(width: outputWidth, height: outputHeight, pixels: passThrough) }
        return Resampler.fromPremultipliedLinear(accumulated, width: outputWidth, height: outputHeight)
    }
}
