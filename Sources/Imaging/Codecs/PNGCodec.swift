import CPNG

/// PNG through libpng's simplified API: every colour type and bit depth,
/// palettes with tRNS, grey with alpha and Adam7 interlace, all to RGBA8.
enum PNGCodec {
    static func decode(_ data: [UInt8], limits: ImageLimits) throws(ImageError) -> DecodedImage {
        try checkHeaderSize(data, limits: limits)
        var image = png_image()
        let result: Result<DecodedImage, ImageError> = data.withUnsafeBytes { bytes in
            guard hk_png_begin_read(&image, bytes.baseAddress, bytes.count) != 0 else {
                return .failure(.corrupt(format: .png, reason: message(of: image)))
            }
            defer { png_image_free(&image) }
            let width = Int(image.width), height = Int(image.height)
            guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= limits.maxPixels,
                  width <= limits.maxPixels, height <= limits.maxPixels else {
                return .failure(.tooManyPixels(width: width, height: height, limit: limits.maxPixels))
            }
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            let decoded = pixels.withUnsafeMutableBytes { hk_png_finish_read_rgba(&image, $0.baseAddress, width * 4) }
            guard decoded != 0 else { return .failure(.corrupt(format: .png, reason: message(of: image))) }
            let warnings = hk_png_has_warning(&image) != 0 ? [message(of: image)] : []
            return .success(DecodedImage(image: RGBAImage(width: width, height: height, pixels: pixels), format: .png,
                                         originalWidth: width, originalHeight: height, warnings: warnings))
        }
        return try result.get()
    }

    /// Decodes straight into a resize to `box`, a band of rows at a time;
    /// interlaced images, whose rows are final only after the last pass, are
    /// decoded whole and then resized.
    static func decodeResized(_ data: [UInt8], limits: ImageLimits, box: ScaleHint) throws(ImageError) -> DecodedImage {
        try checkHeaderSize(data, limits: limits)
        var reader = hk_png_reader()
        defer { hk_png_reader_close(&reader) }
        let result: Result<DecodedImage?, ImageError> = data.withUnsafeBytes { bytes in
            guard hk_png_reader_open(&reader, bytes.baseAddress, bytes.count) == 0 else {
                return .failure(.corrupt(format: .png, reason: message(of: reader)))
            }
            guard reader.interlaced == 0 else { return .success(nil) }
            let (width, height) = (Int(reader.width), Int(reader.height))
            var resampler = RowResampler(sourceWidth: width, sourceHeight: height, width: box.width, height: box.height, mode: box.mode)
            let band = 16
            var buffer = [UInt8](repeating: 0, count: width * 4 * band)
            var first = 0
            while first < height {
                let count = min(band, height - first)
                let status = buffer.withUnsafeMutableBufferPointer {
                    hk_png_reader_read_rows(&reader, $0.baseAddress, width * 4, UInt32(count))
                }
                guard status == 0 else { return .failure(.corrupt(format: .png, reason: message(of: reader))) }
                buffer.withUnsafeBufferPointer { resampler.consume(band: $0, rows: count, firstRow: first) }
                first += count
            }
            return .success(DecodedImage(image: resampler.finish(), format: .png, originalWidth: width, originalHeight: height,
                                         warnings: reader.warning_count > 0 ? ["\(reader.warning_count) libpng warnings"] : []))
        }
        if let decoded = try result.get() { return decoded }
        var whole = try decode(data, limits: limits)
        whole.image = Resampler.resize(whole.image, width: box.width, height: box.height, mode: box.mode)
        return whole
    }

    private static func message(of reader: hk_png_reader) -> String {
        withUnsafeBytes(of: reader.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The size in IHDR, always the first chunk, checked before libpng reads
    /// further: a bomb is refused from its first 24 bytes.
    private static func checkHeaderSize(_ data: [UInt8], limits: ImageLimits) throws(ImageError) {
        guard data.count >= 24, Array(data[12..<16]) == Array("IHDR".utf8) else { return } // libpng says why
        let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
        if width > limits.maxPixels || height > limits.maxPixels || width * height > limits.maxPixels {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
    }

    static func encode(_ image: RGBAImage, compressionLevel: Int) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 128)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            hk_png_encode_rgba(pixels.baseAddress, UInt32(image.width), UInt32(image.height),
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
