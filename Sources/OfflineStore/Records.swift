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
        hotel = HotelRowDecoder(columns: Array(row.columnNames), fields: .standard).hotel(row)
        position = row["position"] ?? 0
    }

    public func encode(to container: inout PersistenceContainer) {
        container["listId"] = listId
        for spec in HotelFields.all { container[spec.column] = SQLiteHotelStore.databaseValue(spec.value(hotel)) }
        container["position"] = position
    }
}

/// Reads a ``Hotel`` from a row by column name, as a ``HotelFieldTable``
/// names the columns: the names are looked up once per statement, not per
/// row. A field whose column the row lacks stays empty; an added field is
/// then `.null`, so the hotel holds a value for each of the table's.
struct HotelRowDecoder {
    private let fields: HotelFieldTable
    private let blankExtensions: [HotelExtensionValue]?
    /// Each field's column index in the row, or nil.
    private let indexes: [Int?]

    init(columns: [String], fields: HotelFieldTable) {
        self.fields = fields
        blankExtensions = fields.blankExtensions
        indexes = fields.fields.map { spec in columns.firstIndex { $0.caseInsensitiveCompare(spec.column) == .orderedSame } }
    }

    func hotel(_ row: Row) -> Hotel {
        var hotel = Hotel(code: "", extensions: blankExtensions)
        for (spec, index) in zip(fields.fields, indexes) {
            guard let index else { continue }
            spec.assign(&hotel, Self.value(row, index, spec.type))
        }
        return hotel
    }

    private static func value(_ row: Row, _ index: Int, _ type: HotelFieldSpec.ValueType) -> HotelFieldSpec.Value {
        switch type {
        case .text: (row[index] as String?).map(HotelFieldSpec.Value.text) ?? .null
        case .real: (row[index] as Double?).map(HotelFieldSpec.Value.real) ?? .null
        case .integer: (row[index] as Int64?).map(HotelFieldSpec.Value.integer) ?? .null
        case .references:
            (row[index] as String?).flatMap(HotelFieldSpec.Value.references(json:)).map(HotelFieldSpec.Value.references) ?? .null
        }
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
    /// The list's bounds as the last page's plan left them (``PagePlan/top``,
    /// ``PagePlan/next``), as PostgreSQL's store keeps them: a merge that moves
    /// the last row up leaves its place free, and a later page does not take
    /// it. Nil in a file written before they were kept.
    public var firstPosition: Int64?
    public var nextPosition: Int64?

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
        self.init(
            url: row["url"], filter: row["filter"], file: row["file"], bytes: row["bytes"],
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
