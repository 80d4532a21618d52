import AtomicFiles
import Foundation
import Hotels
import OfflineStore

/// A stored list's logos, from the store's logo index to files, as
/// `hotels fetch --logos` names them (`CODE.png`, `.jpg` for an unfiltered
/// JPEG): how a reader on another machine serves what a worker processed.
///
/// ```swift
/// let store = PostgresHotelStore(database: try await PostgresDatabase.open(location))
/// if let list = try await store.cachedList(key) {
///     let written = try await LogoExport(storage: store, filter: "resize:64x64:fill").write(list, to: folder)
/// }
/// ```
public struct LogoExport: Sendable {
    /// What was written.
    public struct Summary: Sendable, Codable, Equatable, CustomStringConvertible {
        /// Logo files written.
        public var written = 0
        /// Their bytes.
        public var bytes = 0
        /// Codes of rows with a logo URL whose logo the index does not hold (not yet fetched, or under another filter).
        public var missing: [String] = []

        /// `12 logos (3456 bytes); 2 not in the store's logo index, first P7`.
        public var description: String {
            "\(written) logos (\(bytes) bytes)"
                + (missing.first.map { "; \(missing.count) not in the store's logo index, first \($0)" } ?? "")
        }
    }

    public var storage: any HotelStorage
    /// The filter chain's description the logos were processed with ("" for none), as `FilterChain.description` gives it.
    public var filter: String

    public init(storage: any HotelStorage, filter: String) {
        self.storage = storage
        self.filter = filter
    }

    /// Writes each of `list`'s logos into `folder`, atomically, a batch of rows at a time.
    public func write(_ list: CachedList, to folder: URL) async throws -> Summary {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw AtomicFileError(path: folder.path, operation: "create the folder", error: error)
        }
        var summary = Summary()
        try await storage.forEachBatch(in: list, batchSize: 500) { hotels in
            for hotel in hotels {
                guard let url = hotel.logoURL else { continue }
                guard let bytes = try await storage.logoData(url: url, filter: filter) else {
                    summary.missing.append(hotel.code)
                    continue
                }
                let file = LogoFile(code: hotel.code, bytes: bytes, format: LogoFile.Format(of: bytes, filtered: !filter.isEmpty))
                try AtomicFile.write(bytes, to: folder.appendingPathComponent(file.fileName))
                summary.written += 1
                summary.bytes += bytes.count
            }
        }
        return summary
    }
}
