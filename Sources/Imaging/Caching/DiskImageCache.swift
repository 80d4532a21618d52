import AtomicFiles
import Crypto
import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// What HTTP said about the original of a cached image, kept for revalidation.
public struct CachedImageMetadata: Codable, Sendable, Equatable {
    public var url: String
    public var etag: String?
    public var lastModified: String?
    /// When it was stored or last revalidated.
    public var storedAt: Date
    /// Cache-Control max-age, in seconds: fresh without asking until then.
    public var maxAge: Double?

    public init(url: String, etag: String? = nil, lastModified: String? = nil, storedAt: Date = Date(), maxAge: Double? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.maxAge = maxAge
    }

    /// Whether max-age still covers it: usable without asking the server.
    public func isFresh(at now: Date = Date()) -> Bool {
        guard let maxAge else { return false }
        return now.timeIntervalSince(storedAt) < maxAge
    }

    /// The max-age of a Cache-Control header value, if any (no-store and no-cache give none).
    public static func maxAge(cacheControl: String?) -> Double? {
        guard let cacheControl else { return nil }
        let directives = cacheControl.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !directives.contains("no-store"), !directives.contains("no-cache") else { return nil }
        return directives.lazy.compactMap { directive in
            directive.hasPrefix("max-age=") ? Double(directive.dropFirst("max-age=".count)) : nil
        }.first
    }
}

/// Encoded images on disk, keyed by SHA-256 of the URL and the filter spec.
///
/// - Writes are atomic: a temporary file is written, fsynced, then renamed
///   over the entry, so a killed process never leaves half a file under a key.
/// - Reads are validated: each entry starts with a magic, its length and the
///   SHA-256 of its bytes; a corrupt entry is a miss and is removed.
/// - Past the size limit, a sweep removes the least recently read entries
///   (reads touch the file's mtime) until 70% of the limit is left.
/// - Several processes may share the folder: every change is a rename or an
///   unlink, and each tolerates the other process having been first.
public final class DiskImageCache: Sendable {
    private static let magic = Array("HKIMG001".utf8)
    private static let headerSize = 8 + 8 + 32

    public let directory: URL
    public let sizeLimit: Int
    private let approximateSize: PosixMutex<Int>

    /// The default folder: `$XDG_CACHE_HOME/hotelkit/images`, else `~/.cache/hotelkit/images`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("hotelkit/images")
    }

    public init(directory: URL = DiskImageCache.defaultDirectory, sizeLimit: Int = 256 << 20) throws {
        self.directory = directory
        self.sizeLimit = sizeLimit
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        approximateSize = PosixMutex(0)
        removeStaleTemporaryFiles()
        approximateSize.withLock { $0 = entries().reduce(0) { $0 + $1.size } }
    }

    /// The cache key for an image URL seen through a filter chain.
    public static func key(url: String, filter: FilterChain) -> String {
        SHA256.hash(data: Data((url + "\n" + filter.description).utf8)).map { byte in
            String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    /// The bytes stored under `key`, or nil; a damaged entry is removed.
    public func data(for key: String) -> [UInt8]? {
        let path = entryURL(key).path
        guard let stored = FileManager.default.contents(atPath: path) else { return nil }
        guard let payload = Self.validatedPayload(stored) else {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: metadataURL(key).path)
            return nil
        }
        utimensat(AT_FDCWD, path, nil, 0)  // now: the entry was just used
        return payload
    }

    public func metadata(for key: String) -> CachedImageMetadata? {
        guard let data = FileManager.default.contents(atPath: metadataURL(key).path) else { return nil }
        return try? JSONDecoder().decode(CachedImageMetadata.self, from: data)
    }

    /// Stores `bytes` under `key`, atomically, with the original's metadata.
    public func store(_ bytes: [UInt8], for key: String, metadata: CachedImageMetadata? = nil) throws {
        var file = Self.magic
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(contentsOf: SHA256.hash(data: bytes))
        file.append(contentsOf: bytes)
        let entry = entryURL(key)
        try FileManager.default.createDirectory(at: entry.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let metadata {
            try writeAtomically(Array(try JSONEncoder().encode(metadata)), to: metadataURL(key))
        }
        try writeAtomically(file, to: entry)
        let total = approximateSize.withLock { size in
            size += file.count
            return size
        }
        if total > sizeLimit { sweep() }
    }

    /// Replaces the metadata of an entry, as after a 304 revalidation.
    public func storeMetadata(_ metadata: CachedImageMetadata, for key: String) throws {
        try writeAtomically(Array(try JSONEncoder().encode(metadata)), to: metadataURL(key))
    }

    /// The file an entry lives in, for indexes.
    public func file(for key: String) -> String {
        entryURL(key).path
    }

    /// Removes the least recently used entries until 70% of the limit is left.
    public func sweep() {
        var all = entries().sorted { $0.modified < $1.modified }
        var total = all.reduce(0) { $0 + $1.size }
        let target = sizeLimit * 7 / 10
        while total > target, !all.isEmpty {
            let oldest = all.removeFirst()
            try? FileManager.default.removeItem(at: oldest.url)
            try? FileManager.default.removeItem(at: oldest.url.deletingPathExtension().appendingPathExtension("meta"))
            total -= oldest.size
        }
        approximateSize.withLock { $0 = total }
    }

    /// Bytes on disk and entries, counted now.
    public func usage() -> (bytes: Int, entries: Int) {
        let all = entries()
        return (all.reduce(0) { $0 + $1.size }, all.count)
    }

    /// The entries whose bytes no longer match their length and SHA-256, as
    /// files, sorted; nothing is removed. A writer renames whole files into
    /// place, so in a sound cache this is empty whatever killed a writer.
    public func damagedEntries() -> [String] {
        entries().compactMap { entry in
            let stored = FileManager.default.contents(atPath: entry.url.path)
            return stored.flatMap(Self.validatedPayload) == nil ? entry.url.path : nil
        }.sorted()
    }

    public func removeAll() throws {
        for entry in entries() { try? FileManager.default.removeItem(at: entry.url) }
        approximateSize.withLock { $0 = 0 }
    }

    // MARK: Files

    private func entryURL(_ key: String) -> URL {
        directory.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key + ".img")
    }

    private func metadataURL(_ key: String) -> URL {
        directory.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key + ".meta")
    }

    /// The logo in an entry file (``file(for:)``, as an image index records
    /// it), if the file is there and whole.
    public static func payload(ofFile path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).flatMap(validatedPayload)
    }

    private static func validatedPayload(_ data: Data) -> [UInt8]? {
        let bytes = [UInt8](data)
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == magic else { return nil }
        let length = bytes[8..<16].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard length == UInt64(bytes.count - headerSize) else { return nil }
        let payload = Array(bytes[headerSize...])
        guard Array(SHA256.hash(data: payload)) == Array(bytes[16..<48]) else { return nil }
        return payload
    }

    private func writeAtomically(_ bytes: [UInt8], to destination: URL) throws {
        try AtomicFile.write(bytes, to: destination, temporaryFolder: directory.appendingPathComponent("tmp"))
    }

    private struct EntryFile {
        var url: URL
        var size: Int
        var modified: Date
    }

    private func entries() -> [EntryFile] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys) else { return [] }
        return enumerator.compactMap { item in
            guard let url = item as? URL, url.pathExtension == "img",
                let values = try? url.resourceValues(forKeys: Set(keys))
            else { return nil }
            return EntryFile(url: url, size: values.fileSize ?? 0, modified: values.contentModificationDate ?? .distantPast)
        }
    }

    /// Removes temporary files left by a process that died mid-write.
    private func removeStaleTemporaryFiles() {
        AtomicFile.removeLeftovers(in: directory.appendingPathComponent("tmp"))
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
