/// How to encode a result.
public enum ImageEncoding: Sendable, Hashable {
    /// zlib level 0–9.
    case png(compressionLevel: Int = 6)
    /// Quality 1–100; alpha is composited on white.
    case jpeg(quality: Int = 85)

    /// The encoding a file name asks for: `.png`, or `.jpg`/`.jpeg`.
    public init?(fileName: String) {
        let lowercased = fileName.lowercased()
        if lowercased.hasSuffix(".png") {
            self = .png()
        } else if lowercased.hasSuffix(".jpg") || lowercased.hasSuffix(".jpeg") {
            self = .jpeg()
        } else {
            return nil
        }
    }

    public func encode(_ image: RGBAImage) throws(ImageError) -> [UInt8] {
        switch self {
        case .png(let level): try PNGCodec.encode(image, compressionLevel: level)
        case .jpeg(let quality): try JPEGCodec.encode(image, quality: quality)
        }
    }
}
