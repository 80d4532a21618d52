import Failures

/// Caps checked from an image's header before any pixel memory is allocated.
public struct ImageLimits: Sendable, Equatable {
    /// The most pixels a decoded image may have.
    public var maxPixels: Int
    /// The most bytes an encoded image may have; none by default, since the
    /// codecs stream their input and memory follows the pixels, not the bytes.
    public var maxInputBytes: Int?
    /// Whether a PNG decoded into a resize (a thumbnail) must match its chunk
    /// CRCs and its zlib Adler-32. Off by default, as in libvips without
    /// `--fail`: computing them is about 40% of decoding a PNG that does not
    /// compress, and a logo whose checksum alone is wrong still shows. A
    /// broken deflate stream, a truncated file or a bad header are refused
    /// either way. A whole-image decode always checks (libpng's simplified API).
    public var verifiesChecksums: Bool

    public init(maxPixels: Int = 50_000_000, maxInputBytes: Int? = nil, verifiesChecksums: Bool = false) {
        self.maxPixels = maxPixels
        self.maxInputBytes = maxInputBytes
        self.verifiesChecksums = verifiesChecksums
    }
}

/// Why an image could not be decoded or encoded.
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are another format (named) or none at all.
    case unsupportedFormat(String)
    /// The header asks for more pixels than allowed: a decompression bomb or a huge image.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The file is larger than allowed.
    case tooManyBytes(Int, limit: Int)
    /// The codec refused the data; its reason.
    case corrupt(format: ImageFormat, reason: String)
    /// The encoder failed.
    case encodingFailed(String)
    /// The file could not be opened or read; the system's reason.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let name):
            "unsupported image format: \(name)"
        case .tooManyPixels(let width, let height, let limit):
            "image of \(width)×\(height) pixels refused: more than \(limit) pixels"
        case .tooManyBytes(let bytes, let limit):
            "image of \(bytes) bytes refused: more than \(limit) bytes"
        case .corrupt(let format, let reason):
            "corrupt \(format.rawValue.uppercased()): \(reason)"
        case .encodingFailed(let reason):
            "encoding failed: \(reason)"
        case .unreadable(let path, let reason):
            "cannot read \(path): \(reason)"
        }
    }
}

/// The formats HotelKit decodes, told apart by their first bytes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case png, jpeg

    /// The format of `bytes`, or an ``ImageError/unsupportedFormat(_:)`` naming what it is.
    public static func detect(_ bytes: some Collection<UInt8>) throws(ImageError) -> ImageFormat {
        let head = Array(bytes.prefix(16))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        let other: String
        if head.isEmpty {
            other = "empty data"
        } else if starts(Array("GIF8".utf8)) {
            other = "GIF"
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            other = "WebP"
        } else if starts(Array("BM".utf8)) {
            other = "BMP"
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            other = "TIFF"
        } else if starts(Array("ftyp".utf8), at: 4) {
            other = "HEIF/AVIF"
        } else if starts([0x00, 0x00, 0x01, 0x00]) {
            other = "ICO"
        } else if let first = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
            first == UInt8(ascii: "<")
        {
            other = "HTML or XML text"
        } else {
            other = "unknown (first bytes " + head.prefix(4).map { hex($0) }.joined(separator: " ") + ")"
        }
        throw .unsupportedFormat(other)
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

extension ImageError: MeaningfulError {
    /// A file that cannot be read is no input (66); every other image error is bad data (65).
    public var meaning: ErrorMeaning {
        if case .unreadable = self { return ErrorMeaning(kind: .noInput, status: .noInput) }
        return ErrorMeaning(kind: .badData, status: .dataError)
    }
}
