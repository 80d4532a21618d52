import CPNG

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// PNG through libpng's simplified API: every colour type and bit depth,
/// palettes with tRNS, grey with alpha and Adam7 interlace, all to RGBA8.
enum PNGCodec {
    static func decode(_ stream: UnsafeMutablePointer<FILE>, head: [UInt8], limits: ImageLimits) throws(ImageError) -> DecodedImage {
        try checkHeaderSize(head, limits: limits)
        var image = png_image()
        guard hk_png_begin_read(&image, stream) != 0 else { throw failure(message(of: image), stream: stream) }
        defer { png_image_free(&image) }
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= limits.maxPixels,
            width <= limits.maxPixels, height <= limits.maxPixels
        else {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let decoded = pixels.withUnsafeMutableBytes { hk_png_finish_read_rgba(&image, $0.baseAddress, width * 4) }
        guard decoded != 0 else { throw failure(message(of: image), stream: stream) }
        let warnings = hk_png_has_warning(&image) != 0 ? [message(of: image)] : []
        return DecodedImage(
            image: RGBAImage(width: width, height: height, pixels: pixels), format: .png,
            originalWidth: width, originalHeight: height, warnings: warnings)
    }

    /// Decodes straight into a resize to `box`, a band of rows at a time. An
    /// interlaced image's rows are final only after its last pass, so each
    /// pass's rows go into the resize as they come, its pixels at their
    /// places: the resize adds them up whatever the order.
    static func decodeResized(
        _ stream: UnsafeMutablePointer<FILE>, head: [UInt8], limits: ImageLimits,
        box: ScaleHint
    ) throws(ImageError) -> DecodedImage {
        try checkHeaderSize(head, limits: limits)
        var reader = hk_png_reader()
        defer { hk_png_reader_close(&reader) }
        guard hk_png_reader_open(&reader, stream, limits.verifiesChecksums ? 1 : 0) == 0 else {
            throw failure(message(of: reader), stream: stream)
        }
        let (width, height) = (Int(reader.width), Int(reader.height))
        var resampler = RowResampler(sourceWidth: width, sourceHeight: height, width: box.width, height: box.height, mode: box.mode)
        let band = 16
        var buffer = [UInt8](repeating: 0, count: width * 4 * band)
        for pass in reader.interlaced != 0 ? Adam7Pass.all : [Adam7Pass.whole] {
            let (rows, columns) = (
                pass.count(height, start: pass.row, step: pass.rowStep),
                pass.count(width, start: pass.column, step: pass.columnStep)
            )
            guard rows > 0, columns > 0 else { continue }  // libpng skips empty passes
            var first = 0
            while first < rows {
                let count = min(band, rows - first)
                let status = buffer.withUnsafeMutableBufferPointer {
                    hk_png_reader_read_rows(&reader, $0.baseAddress, width * 4, UInt32(count))
                }
                guard status == 0 else { throw failure(message(of: reader), stream: stream) }
                buffer.withUnsafeBufferPointer { band in
                    for row in 0..<count {
                        let pixels = UnsafeBufferPointer(rebasing: band[(row * width * 4)..<(row * width * 4 + columns * 4)])
                        resampler.consume(
                            row: pixels, y: pass.row + (first + row) * pass.rowStep,
                            firstColumn: pass.column, columnStep: pass.columnStep)
                    }
                }
                first += count
            }
        }
        return DecodedImage(
            image: resampler.finish(), format: .png, originalWidth: width, originalHeight: height,
            warnings: reader.warning_count > 0 ? ["\(reader.warning_count) libpng warnings"] : [])
    }

    /// Where a pass's pixels lie in the image (PNG spec, 8.2).
    private struct Adam7Pass {
        var row: Int, rowStep: Int, column: Int, columnStep: Int

        static let whole = Adam7Pass(row: 0, rowStep: 1, column: 0, columnStep: 1)
        static let all = [
            Adam7Pass(row: 0, rowStep: 8, column: 0, columnStep: 8), Adam7Pass(row: 0, rowStep: 8, column: 4, columnStep: 8),
            Adam7Pass(row: 4, rowStep: 8, column: 0, columnStep: 4), Adam7Pass(row: 0, rowStep: 4, column: 2, columnStep: 4),
            Adam7Pass(row: 2, rowStep: 4, column: 0, columnStep: 2), Adam7Pass(row: 0, rowStep: 2, column: 1, columnStep: 2),
            Adam7Pass(row: 1, rowStep: 2, column: 0, columnStep: 1),
        ]

        /// How many of `length` pixels, from `start` every `step`, the pass holds.
        func count(_ length: Int, start: Int, step: Int) -> Int {
            max(0, (length - start + step - 1) / step)
        }
    }

    private static func failure(_ message: String, stream: UnsafeMutablePointer<FILE>) -> ImageError {
        .corrupt(format: .png, reason: ImageSource.reason(message, stream: stream))
    }

    private static func message(of reader: hk_png_reader) -> String {
        withUnsafeBytes(of: reader.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The size in IHDR, always the first chunk, checked before libpng reads
    /// further: a bomb is refused from its first 24 bytes.
    private static func checkHeaderSize(_ head: [UInt8], limits: ImageLimits) throws(ImageError) {
        guard head.count >= 24, Array(head[12..<16]) == Array("IHDR".utf8) else { return }  // libpng says why
        let width = head[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = head[20..<24].reduce(0) { $0 << 8 | Int($1) }
        if width > limits.maxPixels || height > limits.maxPixels || width * height > limits.maxPixels {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
    }

    static func encode(_ image: RGBAImage, compressionLevel: Int) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 128)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            hk_png_encode_rgba(
                pixels.baseAddress, UInt32(image.width), UInt32(image.height),
                Int32(max(0, min(9, compressionLevel))), &output, &size, &message)
        }
        guard status == 0, let output else {
            throw .encodingFailed(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { hk_png_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
