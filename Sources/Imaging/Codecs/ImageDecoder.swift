/// A decoded image, with the warnings the codec gave (for example a JPEG cut
/// short mid-scan, decoded as far as it goes).
public struct DecodedImage: Sendable {
    public var image: RGBAImage
    public var format: ImageFormat
    /// The size stored in the file, before any DCT scaling or EXIF rotation.
    public var originalWidth: Int
    public var originalHeight: Int
    public var warnings: [String]
}

/// Decodes PNG and JPEG to RGBA8, choosing the codec by magic bytes.
public struct ImageDecoder: Sendable {
    public var limits: ImageLimits

    public init(limits: ImageLimits = ImageLimits()) {
        self.limits = limits
    }

    /// Decodes `data`. With a hint, a JPEG is decoded at the smallest DCT
    /// scale (1/2, 1/4, 1/8) still at least twice the size the hint needs in
    /// both dimensions, leaving the last step to a good filter.
    public func decode(_ data: [UInt8], hint: ScaleHint? = nil) throws(ImageError) -> DecodedImage {
        try decode(.bytes(data), hint: hint)
    }

    /// Decodes `source` whole, with the same hint; a file is read as decoding goes.
    public func decode(_ source: ImageSource, hint: ScaleHint? = nil) throws(ImageError) -> DecodedImage {
        try source.withStream(maxBytes: limits.maxInputBytes) { stream, format, head throws(ImageError) in
            switch format {
            case .png: try PNGCodec.decode(stream, head: head, limits: limits)
            case .jpeg: try JPEGCodec.decode(stream, limits: limits, hint: hint)
            }
        }
    }

    /// Decodes `data` already resized to `box`.
    public func decode(_ data: [UInt8], resizedTo box: ScaleHint) throws(ImageError) -> DecodedImage {
        try decode(.bytes(data), resizedTo: box)
    }

    /// Decodes `source` already resized to `box`, streaming rows (an
    /// interlaced PNG's pass by pass) into the resize: neither the file nor
    /// the full-size image is ever held, only the output and a band of rows.
    public func decode(_ source: ImageSource, resizedTo box: ScaleHint) throws(ImageError) -> DecodedImage {
        try source.withStream(maxBytes: limits.maxInputBytes) { stream, format, head throws(ImageError) in
            switch format {
            case .png: try PNGCodec.decodeResized(stream, head: head, limits: limits, box: box)
            case .jpeg: try JPEGCodec.decodeResized(stream, limits: limits, box: box)
            }
        }
    }
}
