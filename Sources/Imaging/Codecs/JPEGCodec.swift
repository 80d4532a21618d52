import CJPEG

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The size a decode is for, so a JPEG can be decoded smaller with DCT scaling.
public struct ScaleHint: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var mode: ResizeMode

    public init(width: Int, height: Int, mode: ResizeMode) {
        self.width = width
        self.height = height
        self.mode = mode
    }

    /// The smallest size the image must keep, in both dimensions, to be
    /// resized to this box with `mode`.
    func requiredSize(width sourceWidth: Int, height sourceHeight: Int) -> (width: Double, height: Double) {
        let scaleX = Double(width) / Double(sourceWidth)
        let scaleY = Double(height) / Double(sourceHeight)
        let scale = mode == .fill ? max(scaleX, scaleY) : min(scaleX, scaleY)
        return (Double(sourceWidth) * scale, Double(sourceHeight) * scale)
    }
}

/// JPEG through libjpeg-turbo: baseline, progressive, greyscale, CMYK and YCCK,
/// restart markers, EXIF orientation, and DCT scaling.
enum JPEGCodec {
    static func decode(_ stream: UnsafeMutablePointer<FILE>, limits: ImageLimits, hint: ScaleHint?) throws(ImageError) -> DecodedImage {
        try withDecoder { decoder throws(ImageError) in
            let started = try start(stream, decoder: decoder, limits: limits, hint: hint)
            var pixels = [UInt8](repeating: 0, count: started.outputWidth * started.outputHeight * 4)
            let status = pixels.withUnsafeMutableBufferPointer { buffer in
                var rows: UInt32 = 0
                return hk_jpeg_read_rows(decoder, buffer.baseAddress, started.outputWidth * 4, UInt32(started.outputHeight), &rows)
            }
            guard status == 0 else { throw failure(decoder) }
            if started.isCMYK { convertCMYKToRGBA(&pixels, inverted: started.isAdobeInverted) }
            let image = RGBAImage(width: started.outputWidth, height: started.outputHeight, pixels: pixels)
            return started.decoded(started.orientation.apply(to: image), warnings: finish(decoder))
        }
    }

    /// Decodes straight into a resize to `box`, a band of rows at a time, so
    /// only the scaled-down output and one band are ever in memory. The EXIF
    /// turn is applied to the small result.
    static func decodeResized(_ stream: UnsafeMutablePointer<FILE>, limits: ImageLimits, box: ScaleHint) throws(ImageError) -> DecodedImage
    {
        try withDecoder { decoder throws(ImageError) in
            let started = try start(stream, decoder: decoder, limits: limits, hint: box)
            let storedBox = started.orientation.swapsAxes ? ScaleHint(width: box.height, height: box.width, mode: box.mode) : box
            var resampler = RowResampler(
                sourceWidth: started.outputWidth, sourceHeight: started.outputHeight,
                width: storedBox.width, height: storedBox.height, mode: storedBox.mode)
            let band = 16
            let stride = started.outputWidth * 4
            var buffer = [UInt8](repeating: 0, count: stride * band)
            var first = 0
            while first < started.outputHeight {
                var rows: UInt32 = 0
                let status = buffer.withUnsafeMutableBufferPointer {
                    hk_jpeg_read_rows(decoder, $0.baseAddress, stride, UInt32(min(band, started.outputHeight - first)), &rows)
                }
                guard status == 0, rows > 0 else { throw failure(decoder) }
                if started.isCMYK { convertCMYKToRGBA(&buffer, inverted: started.isAdobeInverted) }
                buffer.withUnsafeBufferPointer { resampler.consume(band: $0, rows: Int(rows), firstRow: first) }
                first += Int(rows)
            }
            return started.decoded(started.orientation.apply(to: resampler.finish()), warnings: finish(decoder))
        }
    }

    /// What is known once decompression has started.
    private struct Started {
        var width: Int
        var height: Int
        var outputWidth: Int
        var outputHeight: Int
        var isCMYK: Bool
        var isAdobeInverted: Bool
        var orientation: ExifOrientation

        func decoded(_ image: RGBAImage, warnings: [String]) -> DecodedImage {
            DecodedImage(image: image, format: .jpeg, originalWidth: width, originalHeight: height, warnings: warnings)
        }
    }

    private static func withDecoder<T>(
        _ body: (UnsafeMutablePointer<hk_jpeg_decoder>) throws(ImageError) -> T
    ) throws(ImageError) -> T {
        guard let decoder = hk_jpeg_decoder_create() else { throw .corrupt(format: .jpeg, reason: "out of memory") }
        defer { hk_jpeg_decoder_destroy(decoder) }
        return try body(decoder)
    }

    /// Reads the header, checks the size before anything is allocated, and
    /// starts decompression at the DCT scale the hint allows.
    private static func start(
        _ stream: UnsafeMutablePointer<FILE>, decoder: UnsafeMutablePointer<hk_jpeg_decoder>,
        limits: ImageLimits, hint: ScaleHint?
    ) throws(ImageError) -> Started {
        guard hk_jpeg_read_header(decoder, stream) == 0 else { throw failure(decoder) }
        let width = Int(decoder.pointee.info.image_width)
        let height = Int(decoder.pointee.info.image_height)
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= limits.maxPixels,
            width <= limits.maxPixels, height <= limits.maxPixels
        else {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
        let orientation = ExifOrientation(markers: decoder.pointee.info.marker_list)
        let colorSpace = decoder.pointee.info.jpeg_color_space
        let isCMYK = colorSpace == JCS_CMYK || colorSpace == JCS_YCCK
        let storedHint = orientation.swapsAxes ? hint.map { ScaleHint(width: $0.height, height: $0.width, mode: $0.mode) } : hint
        let denominator = scaleDenominator(width: width, height: height, hint: storedHint)
        guard hk_jpeg_start(decoder, UInt32(denominator), isCMYK ? JCS_CMYK : JCS_EXT_RGBA) == 0 else { throw failure(decoder) }
        return Started(
            width: width, height: height,
            outputWidth: Int(decoder.pointee.info.output_width), outputHeight: Int(decoder.pointee.info.output_height),
            isCMYK: isCMYK, isAdobeInverted: decoder.pointee.info.saw_Adobe_marker != 0, orientation: orientation)
    }

    /// Ends decompression; a stream cut short mid-scan is a warning, not an error.
    private static func finish(_ decoder: UnsafeMutablePointer<hk_jpeg_decoder>) -> [String] {
        var warnings: [String] = []
        if hk_jpeg_finish(decoder) != 0 { warnings.append(text(of: decoder.pointee.error.message)) }
        if decoder.pointee.error.warning_count > 0 { warnings.append(text(of: decoder.pointee.error.warning)) }
        return warnings
    }

    /// The largest of 8, 4, 2, 1 that keeps the image at least twice the size
    /// the hint needs: 1/2, 1/4 and 1/8 DCT scaling aliases on its own, so a
    /// resampling filter always does the last step.
    static func scaleDenominator(width: Int, height: Int, hint: ScaleHint?) -> Int {
        guard let hint else { return 1 }
        let required = hint.requiredSize(width: width, height: height)
        for denominator in [8, 4, 2] {
            let scaledWidth = Double((width + denominator - 1) / denominator)
            let scaledHeight = Double((height + denominator - 1) / denominator)
            if scaledWidth >= 2 * required.width, scaledHeight >= 2 * required.height { return denominator }
        }
        return 1
    }

    /// CMYK to RGB, multiplying by K. Adobe writes inverted values (0 is full ink).
    private static func convertCMYKToRGBA(_ pixels: inout [UInt8], inverted: Bool) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                var cyan = Int(buffer[index])
                var magenta = Int(buffer[index + 1])
                var yellow = Int(buffer[index + 2])
                var black = Int(buffer[index + 3])
                if !inverted {
                    cyan = 255 - cyan
                    magenta = 255 - magenta
                    yellow = 255 - yellow
                    black = 255 - black
                }
                buffer[index] = UInt8((cyan * black + 127) / 255)
                buffer[index + 1] = UInt8((magenta * black + 127) / 255)
                buffer[index + 2] = UInt8((yellow * black + 127) / 255)
                buffer[index + 3] = 255
                index += 4
            }
        }
    }

    static func encode(_ image: RGBAImage, quality: Int) throws(ImageError) -> [UInt8] {
        // JPEG has no alpha: composite on white.
        var rgb = [UInt8](repeating: 0, count: image.pixelCount * 3)
        image.pixels.withUnsafeBufferPointer { source in
            for pixel in 0..<image.pixelCount {
                let alpha = Int(source[pixel * 4 + 3])
                for channel in 0..<3 {
                    let value = Int(source[pixel * 4 + channel])
                    rgb[pixel * 3 + channel] = UInt8((value * alpha + 255 * (255 - alpha) + 127) / 255)
                }
            }
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let status = rgb.withUnsafeBufferPointer { pixels in
            hk_jpeg_encode_rgb(
                pixels.baseAddress, UInt32(image.width), UInt32(image.height),
                Int32(max(1, min(100, quality))), &output, &size, &message)
        }
        guard status == 0, let output else {
            throw .encodingFailed(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { hk_jpeg_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func failure(_ decoder: UnsafeMutablePointer<hk_jpeg_decoder>) -> ImageError {
        .corrupt(format: .jpeg, reason: text(of: decoder.pointee.error.message))
    }

    private static func text<T>(of tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
