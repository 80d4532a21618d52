import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// The logo index: each processed logo, its validators and bytes, shared by every host.
extension PostgresHotelStore {
    /// A note without bytes (a cache hit, a 304) keeps the bytes already stored.
    public func noteImage(_ entry: ImageIndexEntry) async throws {
        let data = entry.data.map { ByteBuffer(bytes: $0) }
        try await database.writing { [logger] connection in
            // A note with bytes is a download; only then may the picture have changed (a cache hit or a 304 reads nothing more).
            var before: (bytes: Int, etag: String?)?
            if data != nil {
                for try await row in try await connection.query(
                    "SELECT bytes, etag FROM images WHERE url = \(entry.url) AND filter = \(entry.filter)",
                    logger: logger
                ).decode((Int, String?).self) {
                    before = (row.0, row.1)
                }
            }
            try await connection.query(
                """
                INSERT INTO images (url, filter, file, bytes, last_access, etag, last_modified, max_age, stored_at, data)
                VALUES (\(entry.url), \(entry.filter), \(entry.file), \(entry.bytes), \(entry.lastAccess.timeIntervalSince1970),
                        \(entry.etag), \(entry.lastModified), \(entry.maxAge), \(entry.storedAt?.timeIntervalSince1970), \(data))
                ON CONFLICT (url, filter) DO UPDATE SET file = EXCLUDED.file, bytes = EXCLUDED.bytes,
                    last_access = EXCLUDED.last_access, etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,
                    max_age = EXCLUDED.max_age, stored_at = coalesce(EXCLUDED.stored_at, images.stored_at),
                    data = coalesce(EXCLUDED.data, images.data)
                """, logger: logger)
            // Other bytes downloaded: the perceptual hash of the picture before no longer holds.
            if let before, before.bytes != entry.bytes || before.etag != entry.etag {
                try await connection.query("UPDATE images SET perceptual_hash = NULL WHERE url = \(entry.url)", logger: logger)
            }
        }
    }

    public func logoData(url: String, filter: String) async throws -> [UInt8]? {
        try await database.reading { [logger] connection in
            let rows = try await connection.query("SELECT data FROM images WHERE url = \(url) AND filter = \(filter)", logger: logger)
            for try await data in rows.decode(ByteBuffer?.self) { return data.map { Array($0.readableBytesView) } }
            return nil
        }
    }

    public func indexedLogo(url: String, filter: String) async throws -> IndexedLogo? {
        try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT data, etag, last_modified, max_age, stored_at FROM images
                WHERE url = \(url) AND filter = \(filter) AND data IS NOT NULL
                """, logger: logger)
            for try await (data, etag, lastModified, maxAge, storedAt) in rows.decode((ByteBuffer, String?, String?, Double?, Double?).self)
            {
                // Stored with no time, it counts as stale: revalidated before it is served.
                let metadata = CachedImageMetadata(
                    url: url, etag: etag, lastModified: lastModified,
                    storedAt: Date(timeIntervalSince1970: storedAt ?? 0), maxAge: maxAge)
                return IndexedLogo(data: Array(data.readableBytesView), metadata: metadata)
            }
            return nil
        }
    }

    public func imageEntry(url: String, filter: String) async throws -> ImageIndexEntry? {
        try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT file, bytes, last_access, etag, last_modified FROM images WHERE url = \(url) AND filter = \(filter)
                """, logger: logger)
            for try await (file, bytes, lastAccess, etag, lastModified) in rows.decode((String, Int, Double, String?, String?).self) {
                return ImageIndexEntry(
                    url: url, filter: filter, file: file, bytes: bytes, lastAccess: Date(timeIntervalSince1970: lastAccess),
                    etag: etag, lastModified: lastModified)
            }
            return nil
        }
    }
}
