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
        guard data.count <= limits.maxInputBytes else { throw .tooManyBytes(data.count, limit: limits.maxInputBytes) }
        switch try ImageFormat.detect(data) {
        case .png: return try PNGCodec.decode(data, limits: limits)
        case .jpeg: return try JPEGCodec.decode(data, limits: limits, hint: hint)
        }
    }

    /// Decodes `data` already resized to `box`, streaming rows into the
    /// resize: a large image is never held whole (interlaced PNGs excepted).
    public func decode(_ data: [UInt8], resizedTo box: ScaleHint) throws(ImageError) -> DecodedImage {
        guard data.count <= limits.maxInputBytes else { throw .tooManyBytes(data.count, limit: limits.maxInputBytes) }
        switch try ImageFormat.detect(data) {
        case .png: return try PNGCodec.decodeResized(data, limits: limits, box: box)
        case .jpeg: return try JPEGCodec.decodeResized(data, limits: limits, box: box)
        }
    }
}
