import Failures
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a file so that a reader, a crash or a power cut sees either the
/// old file or the whole new one, never half of it: the bytes go to a hidden
/// temporary file, which is flushed to disk (`fsync`), renamed over the
/// destination, and the folder is flushed so the rename itself is durable.
///
/// ```swift
/// try AtomicFile.write(Array(json.utf8), to: url)
///
/// let file = try AtomicFile(replacing: url)   // written in parts
/// try file.write(firstPart)
/// try file.write(secondPart)
/// try file.commit()                           // or discard(); dropping it discards
/// ```
///
/// A process killed mid-write leaves its temporary file behind; each is
/// named after its writer's pid, and ``removeLeftovers(in:)`` deletes those
/// whose writer is gone.
public final class AtomicFile {
    public let destination: URL
    /// The temporary file, renamed over ``destination`` by ``commit()``.
    public let temporary: URL
    private var handle: FileHandle?

    /// Opens a new temporary file for `destination`.
    /// - Parameter temporaryFolder: Where the temporary file goes: the
    ///   destination's folder by default. It must be on the same file system.
    public init(replacing destination: URL, temporaryFolder: URL? = nil) throws {
        self.destination = destination
        temporary = (temporaryFolder ?? destination.deletingLastPathComponent())
            .appendingPathComponent(".\(getpid())-\(UUID().uuidString)\(Self.temporarySuffix)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw AtomicFileError(path: destination.path, operation: "create a temporary file for", errno: errno) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit { discard() }

    /// Appends `bytes` to the temporary file.
    public func write(_ bytes: some DataProtocol) throws {
        guard let handle else { throw closed }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            discard()
            throw AtomicFileError(path: destination.path, operation: "write", error: error)
        }
    }

    /// Flushes the temporary file, renames it over the destination, and flushes the folder.
    public func commit() throws {
        guard let handle else { throw closed }
        self.handle = nil
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary.path)
            throw AtomicFileError(path: destination.path, operation: "flush", error: error)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let failure = AtomicFileError(path: destination.path, operation: "replace", errno: errno)
            unlink(temporary.path)
            throw failure
        }
        try Self.synchronizeFolder(of: destination)
    }

    private var closed: AtomicFileError {
        AtomicFileError(path: destination.path, operation: "write", reason: "the file was already committed or discarded")
    }

    /// Drops the temporary file; the destination stays as it was.
    public func discard() {
        guard let handle else { return }
        self.handle = nil
        try? handle.close()
        unlink(temporary.path)
    }

    /// Replaces `destination` with `bytes`.
    public static func write(_ bytes: some DataProtocol, to destination: URL, temporaryFolder: URL? = nil) throws {
        let file = try AtomicFile(replacing: destination, temporaryFolder: temporaryFolder)
        try file.write(bytes)
        try file.commit()
    }

    /// Removes the temporary files in `folder` that a killed writer left:
    /// those whose pid is no longer running, or older than `maxAge` seconds
    /// (a pid can be reused). Returns how many were removed.
    @discardableResult
    public static func removeLeftovers(in folder: URL, maxAge: TimeInterval = 600) -> Int {
        let cutoff = Date().addingTimeInterval(-maxAge)
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard name.hasPrefix("."), name.hasSuffix(temporarySuffix) else { continue }
            let path = folder.appendingPathComponent(name).path
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
            let writer = name.dropFirst().split(separator: "-").first.flatMap { pid_t($0) }
            let writerIsGone = writer.map { kill($0, 0) != 0 && errno == ESRCH } ?? true
            if writerIsGone || (modified ?? .distantPast) < cutoff, unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    private static let temporarySuffix = ".partial"

    /// Makes a rename in the folder of `file` durable.
    private static func synchronizeFolder(of file: URL) throws {
        let folder = file.deletingLastPathComponent().path
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFileError(path: folder, operation: "open the folder", errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw AtomicFileError(path: folder, operation: "flush the folder", errno: errno) }
    }
}

/// A file could not be replaced; the old one, if any, is intact.
public struct AtomicFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// What was being done: `write`, `replace`, `flush`…
    public var operation: String
    public var reason: String
    /// The `errno` of the failing call, when there was one: `EACCES` and `ENOSPC` say what to fix.
    public var code: Int32?

    public init(path: String, operation: String, reason: String, code: Int32? = nil) {
        self.path = path
        self.operation = operation
        self.reason = reason
        self.code = code
    }

    init(path: String, operation: String, errno code: Int32) {
        self.init(path: path, operation: operation, reason: SystemErrorWords.of(errno: code), code: code)
    }

    /// A failure Foundation reported, in the OS's words (`no space left on device`) with its `errno`, rather
    /// than Foundation's (`Error Domain=NSCocoaErrorDomain Code=640 …`), which no user should have to read.
    public init(path: String, operation: String, error: any Error) {
        if let code = Self.errno(of: error) {
            self.init(path: path, operation: operation, errno: code)
        } else {
            self.init(path: path, operation: operation, reason: (error as NSError).localizedDescription)
        }
    }

    /// The `errno` behind a Foundation file error: a POSIX error, one wrapped in it, or a Cocoa file error's meaning.
    static func errno(of error: any Error) -> Int32? {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        guard error.domain == NSCocoaErrorDomain else { return nil }
        return switch CocoaError.Code(rawValue: error.code) {
        case .fileWriteOutOfSpace: ENOSPC
        case .fileWriteNoPermission, .fileReadNoPermission: EACCES
        case .fileNoSuchFile, .fileReadNoSuchFile: ENOENT
        case .fileWriteVolumeReadOnly: EROFS
        case .fileWriteFileExists: EEXIST
        default: nil
        }
    }

    public var description: String { "cannot \(operation) \(path): \(reason)" }
}

extension AtomicFileError: MeaningfulError {
    /// Storage (74).
    public var meaning: ErrorMeaning {
        ErrorMeaning(kind: .storage, status: .ioError, hint: "check the folder's permissions and free space")
    }
}
