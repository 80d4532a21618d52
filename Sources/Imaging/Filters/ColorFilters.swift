import Foundation

/// Per-pixel filters: sepia, grayscale and rounded corners.
enum ColorFilters {
    static func sepia(_ image: RGBAImage, amount: Double) -> RGBAImage {
        let mix = Float(amount)
        return mapColour(image) { colour in
            let toned = SIMD3<Float>(
                (colour * SIMD3(0.393, 0.769, 0.189)).sum(),
                (colour * SIMD3(0.349, 0.686, 0.168)).sum(),
                (colour * SIMD3(0.272, 0.534, 0.131)).sum()
            )
            return colour + (toned - colour) * mix
        }
    }

    /// Rec. 709 luma.
    static func grayscale(_ image: RGBAImage) -> RGBAImage {
        mapColour(image) { colour in SIMD3(repeating: (colour * SIMD3(0.2126, 0.7152, 0.0722)).sum()) }
    }

    private static func mapColour(_ image: RGBAImage, _ transform: (SIMD3<Float>) -> SIMD3<Float>) -> RGBAImage {
        var output = image
        output.pixels.withUnsafeMutableBufferPointer { pixels in
            var index = 0
            while index < pixels.count {
                let colour = SIMD3<Float>(Float(pixels[index]), Float(pixels[index + 1]), Float(pixels[index + 2]))
                let result = transform(colour).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255))
                pixels[index] = UInt8(result.x.rounded())
                pixels[index + 1] = UInt8(result.y.rounded())
                pixels[index + 2] = UInt8(result.z.rounded())
                index += 4
            }
        }
        return output
    }

    /// Multiplies alpha by how much of each pixel lies inside the rounded
    /// rectangle, so the curve is antialiased.
    static func roundCorners(_ image: RGBAImage, radius: Double) -> RGBAImage {
        let radius = min(radius, Double(min(image.width, image.height)) / 2)
        guard radius > 0 else { return image }
        var output = image
        let width = Double(image.width)
        let height = Double(image.height)
        output.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<image.height {
                let centreY = Double(y) + 0.5
                let cornerY = centreY < radius ? radius : (centreY > height - radius ? height - radius : nil)
                guard let cornerY else { continue }
                for x in 0..<image.width {
                    let centreX = Double(x) + 0.5
                    let cornerX = centreX < radius ? radius : (centreX > width - radius ? width - radius : nil)
                    guard let cornerX else { continue }
                    let distance = ((centreX - cornerX) * (centreX - cornerX) + (centreY - cornerY) * (centreY - cornerY)).squareRoot()
                    let coverage = max(0, min(1, radius - distance + 0.5))
                    let index = (y * image.width + x) * 4 + 3
                    pixels[index] = UInt8((Double(pixels[index]) * coverage).rounded())
                }
            }
        }
        return output
    }
}

/// A separable Gaussian blur on premultiplied values, edges clamped.
enum GaussianBlur {
    static func apply(to image: RGBAImage, sigma: Double) -> RGBAImage {
        guard sigma > 0 else { return image }
        let radius = Int((sigma * 3).rounded(.up))
        var kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let (width, height) = (image.width, image.height)
        let source = image.pixels.withUnsafeBufferPointer { pixels in
            (0..<image.pixelCount).map { index in
                let alpha = Float(pixels[index * 4 + 3]) / 255
                return SIMD4(
                    Float(pixels[index * 4]) * alpha, Float(pixels[index * 4 + 1]) * alpha,
                    Float(pixels[index * 4 + 2]) * alpha, alpha * 255)
            }
        }
        var horizontal = [SIMD4<Float>](repeating: .zero, count: source.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum = SIMD4<Float>.zero
                for (offset, weight) in kernel.enumerated() {
                    sum += source[y * width + min(width - 1, max(0, x + offset - radius))] * weight
                }
                horizontal[y * width + x] = sum
            }
        }
        var pixels = [UInt8](repeating: 0, count: image.pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum = SIMD4<Float>.zero
                for (offset, weight) in kernel.enumerated() {
                    sum += horizontal[min(height - 1, max(0, y + offset - radius)) * width + x] * weight
                }
                let index = (y * width + x) * 4
                guard sum.w > 0 else { continue }
                let alpha = sum.w / 255
                pixels[index] = UInt8(min(255, (sum.x / alpha).rounded()))
                pixels[index + 1] = UInt8(min(255, (sum.y / alpha).rounded()))
                pixels[index + 2] = UInt8(min(255, (sum.z / alpha).rounded()))
                pixels[index + 3] = UInt8(min(255, sum.w.rounded()))
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
