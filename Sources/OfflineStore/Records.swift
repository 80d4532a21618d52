import Foundation
import GRDB
import Hotels
import Imaging

/// A cached hotel: one row of the `hotels` table.
public struct HotelRecord: Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "hotels"

    public enum Columns {
        public static let listId = Column("listId")
        public static let code = Column("code")
        public static let position = Column("position")
    }

    public var listId: Int64
    public var hotel: Hotel
    /// Service order: the first page's rows take positions below the
    /// smallest, so a merge touches only the rows it changes.
    public var position: Int64

    public init(listId: Int64, hotel: Hotel, position: Int64) {
        self.listId = listId
        self.hotel = hotel
        self.position = position
    }

    public init(row: Row) {
        listId = row["listId"] ?? 0
        hotel = Self.hotel(row)
        position = row["position"] ?? 0
    }

    /// The hotel of a row that holds the record's columns.
    static func hotel(_ row: Row) -> Hotel {
        Hotel(code: row["code"], name: row["name"], address: row["address"], latitude: row["latitude"],
              longitude: row["longitude"], logoURL: row["logoURL"], addtime: row["addtime"])
    }

    public func encode(to container: inout PersistenceContainer) {
        container["listId"] = listId
        container["code"] = hotel.code
        container["name"] = hotel.name
        container["address"] = hotel.address
        container["latitude"] = hotel.latitude
        container["longitude"] = hotel.longitude
        container["logoURL"] = hotel.logoURL
        container["addtime"] = hotel.addtime
        container["position"] = position
    }
}

/// A cached list's bookkeeping: one row of the `lists` table.
public struct ListRecord: Sendable, Equatable, Codable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "lists"

    public var id: Int64?
    public var profile: String
    public var endpoint: String
    public var city: String
    /// The keyword, and the search's area after it (``ListKey/storedKeyword``).
    public var keyword: String
    /// Where "load more" stands, as JSON.
    public var checkpoint: String?
    public var exhausted: Bool
    /// Unix seconds.
    public var fetchedAt: Double

    public var key: ListKey { ListKey(profile: profile, endpoint: endpoint, city: city, storedKeyword: keyword) }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The paging checkpoint; one that no longer decodes counts as none, so the list pages from the start.
    var decodedCheckpoint: Pager.Checkpoint? {
        checkpoint.flatMap { try? JSONDecoder().decode(Pager.Checkpoint.self, from: Data($0.utf8)) }
    }
}

/// The logo index: one row of the `images` table.
extension ImageIndexEntry: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "images"

    public init(row: Row) {
        self.init(url: row["url"], filter: row["filter"], file: row["file"], bytes: row["bytes"],
                  lastAccess: Date(timeIntervalSince1970: row["lastAccess"]), etag: row["etag"], lastModified: row["lastModified"])
    }

    public func encode(to container: inout PersistenceContainer) {
        container["url"] = url
        container["filter"] = filter
        container["file"] = file
        container["bytes"] = bytes
        container["lastAccess"] = lastAccess.timeIntervalSince1970
        container["etag"] = etag
        container["lastModified"] = lastModified
    }
}
