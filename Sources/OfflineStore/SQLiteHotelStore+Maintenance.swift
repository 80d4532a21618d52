import Foundation
import GRDB
import Imaging

/// What the cache holds.
public struct StoreStats: Sendable, Codable, Equatable {
    public struct List: Sendable, Codable, Equatable {
        public var city: String
        /// The search's position (``/Hotels/SearchArea``), for a list fetched near one.
        public var near: String?
        public var profile: String
        public var endpoint: String
        public var hotels: Int
        public var fetchedAt: Date
        public var exhausted: Bool

        public init(city: String, near: String? = nil, profile: String, endpoint: String, hotels: Int, fetchedAt: Date, exhausted: Bool) {
            self.city = city
            self.near = near
            self.profile = profile
            self.endpoint = endpoint
            self.hotels = hotels
            self.fetchedAt = fetchedAt
            self.exhausted = exhausted
        }

        /// A cached list's line, as every backend reports it.
        public init(_ list: CachedList) {
            self.init(
                city: list.key.city, near: list.key.area?.description, profile: list.key.profile, endpoint: list.key.endpoint,
                hotels: list.count, fetchedAt: list.fetchedAt, exhausted: list.isExhausted)
        }
    }

    public var path: String
    public var fileBytes: Int
    public var lists: [List]
    public var hotels: Int
    public var images: Int
    public var imageBytes: Int

    public init(path: String, fileBytes: Int, lists: [List], hotels: Int, images: Int, imageBytes: Int) {
        self.path = path
        self.fileBytes = fileBytes
        self.lists = lists
        self.hotels = hotels
        self.images = images
        self.imageBytes = imageBytes
    }
}

/// What `hotels cache stats` prints: the store, then a line per list.
extension StoreStats: CustomStringConvertible {
    public var description: String {
        var text = "\(path): \(fileBytes) bytes, \(lists.count) lists, \(hotels) hotels, \(images) logos (\(imageBytes) bytes)"
        for list in lists {
            text +=
                "\n  \(list.city)\(list.near.map { " near \($0)" } ?? "") (\(list.profile) at \(list.endpoint)): \(list.hotels) hotels, fetched "
                + "\(OfflineList.age(Date().timeIntervalSince(list.fetchedAt))) ago\(list.exhausted ? ", complete" : "")"
        }
        return text
    }
}

extension SQLiteHotelStore {
    /// Records a logo written to, or read from, the disk cache.
    public func noteImage(_ entry: ImageIndexEntry) throws {
        try writer.write { db in
            // A note with bytes is a download; only then may the picture have changed (a cache hit or a 304 reads nothing more).
            let before =
                entry.data == nil
                ? nil
                : try Row.fetchOne(
                    db, sql: "SELECT bytes, etag FROM images WHERE url = ? AND filter = ?", arguments: [entry.url, entry.filter])
            try entry.upsert(db)
            // Other bytes downloaded: the perceptual hash of the picture before no longer holds.
            if let before, before["bytes"] != entry.bytes || before["etag"] != entry.etag {
                try db.execute(sql: "UPDATE images SET perceptualHash = NULL WHERE url = ?", arguments: [entry.url])
            }
        }
    }

    public func imageEntry(url: String, filter: String) throws -> ImageIndexEntry? {
        try writer.read { db in try ImageIndexEntry.fetchOne(db, key: ["url": url, "filter": filter]) }
    }

    public func stats() throws -> StoreStats {
        let lists = try allLists().map(StoreStats.List.init)
        let (images, imageBytes) = try writer.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM images")
            return (row?["count"] ?? 0, row?["bytes"] ?? 0) as (Int, Int)
        }
        return StoreStats(
            path: path, fileBytes: fileBytes, lists: lists, hotels: lists.reduce(0) { $0 + $1.hotels },
            images: images, imageBytes: imageBytes)
    }

    /// Bytes on disk: the database and its write-ahead log.
    public var fileBytes: Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }

    /// Forgets every list, logo index entry and property; people's match decisions and retired property ids stay.
    public func clear() throws {
        try writer.write { db in
            try db.execute(
                sql:
                    "DELETE FROM hotels; DELETE FROM lists; DELETE FROM images; DELETE FROM properties; DELETE FROM match_reviews; DELETE FROM match_scopes"
            )
        }
    }

    /// Drops index entries whose file is gone, then rebuilds the file
    /// compactly and folds the write-ahead log into it.
    public func vacuum(imageFileExists: (String) -> Bool) throws {
        let gone = try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT url, filter, file FROM images").filter { !imageFileExists($0["file"]) }
                .map { ($0["url"] as String, $0["filter"] as String) }
        }
        try writer.write { db in
            for (url, filter) in gone { try db.execute(sql: "DELETE FROM images WHERE url = ? AND filter = ?", arguments: [url, filter]) }
        }
        try writer.vacuum()
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// `PRAGMA integrity_check`: "ok" when the file is sound.
    public func integrityCheck() throws -> String {
        try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }
}

extension SQLiteHotelStore: HotelStorage {
    public var location: String { path }

    /// SQLite's index leaves the bytes to the disk cache: read its file, when it is still there.
    public func logoData(url: String, filter: String) throws -> [UInt8]? {
        try imageEntry(url: url, filter: filter).flatMap { DiskImageCache.payload(ofFile: $0.file) }
    }
}
