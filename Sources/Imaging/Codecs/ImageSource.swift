#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where an encoded image comes from. The codecs read either one as a C
/// stream, as decoding goes, so a file is never held whole: memory is bounded
/// by pixels and rows, not by the file's size.
public enum ImageSource: Sendable {
    /// Bytes already in memory, such as a downloaded logo.
    case bytes([UInt8])
    /// A file, read as the decoder asks for more.
    case file(path: String)

    /// The most bytes of the start that format and size checks look at.
    static let headLength = 32

    /// Opens the source as a stream, checks its size against `maxBytes`, tells
    /// its format, and runs `body` with the stream at its start and its first bytes.
    func withStream<T>(
        maxBytes: Int?,
        _ body: (UnsafeMutablePointer<FILE>, ImageFormat, [UInt8]) throws(ImageError) -> T
    ) throws(ImageError) -> T {
        switch self {
        case .bytes(let bytes):
            if let maxBytes, bytes.count > maxBytes { throw .tooManyBytes(bytes.count, limit: maxBytes) }
            let head = Array(bytes.prefix(Self.headLength))
            let format = try ImageFormat.detect(head)  // before fmemopen, which refuses empty data
            let result: Result<T, ImageError> = bytes.withUnsafeBytes { buffer in
                // Opened read-only: the stream never writes through the pointer.
                guard let base = buffer.baseAddress, let stream = fmemopen(UnsafeMutableRawPointer(mutating: base), buffer.count, "r")
                else {
                    return .failure(.unreadable(path: "memory", reason: String(cString: strerror(errno))))
                }
                defer { fclose(stream) }
                return Result { () throws(ImageError) in try body(stream, format, head) }
            }
            return try result.get()
        case .file(let path):
            guard let stream = fopen(path, "rb") else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            defer { fclose(stream) }
            var status = stat()
            if let maxBytes, fstat(fileno(stream), &status) == 0, Int(status.st_size) > maxBytes {
                throw .tooManyBytes(Int(status.st_size), limit: maxBytes)
            }
            var head = [UInt8](repeating: 0, count: Self.headLength)
            let count = fread(&head, 1, head.count, stream)
            guard ferror(stream) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            head.removeLast(head.count - count)
            let format = try ImageFormat.detect(head)
            rewind(stream)
            return try body(stream, format, head)
        }
    }

    /// libpng and libjpeg say only "Read Error" when a stream ends early.
    static func reason(_ message: String, stream: UnsafeMutablePointer<FILE>) -> String {
        feof(stream) != 0 ? "unexpected end of data (\(message))" : message
    }
}
