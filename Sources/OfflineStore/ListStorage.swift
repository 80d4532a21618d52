import Failures
import Foundation
import Hotels
import Imaging
import Matching

/// Where cached lists live: what ``ListSync`` needs of a store. ``SQLiteHotelStore``
/// keeps them in SQLite; a server-side store (PostgreSQL, shared by many
/// workers) implements the same calls and no caller changes.
///
/// Each write keeps a page and its paging checkpoint together: a writer
/// that dies between pages leaves "load more" in step with the rows.
public protocol ListStorage: Sendable {
    /// The cached list for `key`, or nil if there is none.
    func cachedList(_ key: ListKey) async throws -> CachedList?

    /// The first `limit` rows of a list in service order, or all of them.
    /// Deeper reads go by position (``HotelStorage/rows(in:after:limit:matching:)``),
    /// never by an offset, which a refresh's new rows at the top would shift.
    func hotels(in list: CachedList, limit: Int?) async throws -> [Hotel]

    /// Every row of a list in service order, handed to `body` `batchSize` at
    /// a time, so memory stays flat whatever the list's length: how a whole
    /// list is written out.
    func forEachBatch(in list: CachedList, batchSize: Int, _ body: ([Hotel]) async throws -> Void) async throws

    /// Merges a fresh first page: new codes inserted, changed rows updated,
    /// and the page's rows take the top of the list in its order. A page that
    /// shares no row with the cache replaces the list, paging included.
    @discardableResult
    func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date) async throws -> MergeResult

    /// Appends a "load more" page and saves where paging stands. Returns how many rows were new.
    @discardableResult
    func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date) async throws -> Int
}

/// Which list a set of cached rows belongs to.
///
/// One rule for every caller: the profile is named by ``/Hotels/ServiceProfile/name``
/// (the `name` in a profile file, not the path it was loaded from), and
/// the endpoint is the URL as given.
public struct ListKey: Sendable, Hashable, CustomStringConvertible {
    public var profile: String
    public var endpoint: String
    public var city: String
    public var keyword: String
    /// A search by position: the same city's name near two points is two lists.
    public var area: SearchArea?

    public init(profile: String, endpoint: String, city: String, keyword: String? = nil, area: SearchArea? = nil) {
        self.profile = profile
        self.endpoint = endpoint
        self.city = city
        self.keyword = keyword ?? ""
        self.area = area
    }

    /// The key of `city`'s list from `client`'s service.
    public init(client: HotelClient, city: String, keyword: String? = nil, area: SearchArea? = nil) {
        self.init(profile: client.profile.name, endpoint: client.endpoint, city: city, keyword: keyword, area: area)
    }

    /// The key as a store's `keyword` column holds it (``storedKeyword``).
    public init(profile: String, endpoint: String, city: String, storedKeyword: String) {
        let parts = storedKeyword.split(separator: Self.areaSeparator, maxSplits: 1, omittingEmptySubsequences: false)
        self.init(
            profile: profile, endpoint: endpoint, city: city, keyword: String(parts[0]),
            area: parts.count == 2 ? SearchArea(description: String(parts[1])) : nil)
    }

    /// What a store keeps in its `keyword` column: the keyword, then the
    /// area after a unit separator (U+001F) when there is one. Both stores'
    /// unique keys then cover the area with no new column, and lists stored
    /// before areas existed read back as they were.
    public var storedKeyword: String { Self.storedKeyword(keyword, area: area) }

    public static func storedKeyword(_ keyword: String?, area: SearchArea?) -> String {
        (keyword ?? "") + (area.map { String(areaSeparator) + $0.description } ?? "")
    }

    static let areaSeparator: Character = "\u{1F}"

    public var description: String { "\(city)\(area.map { " near \($0)" } ?? "") (\(profile) at \(shownEndpoint))" }

    /// The endpoint as pages, reports and logs show it (``ShownURL``): no credential in its user part or query.
    public var shownEndpoint: String { ShownURL.of(endpoint) }
}

/// A cached list's bookkeeping.
public struct CachedList: Sendable, Equatable {
    public var key: ListKey
    public var id: Int64
    public var count: Int
    /// When a page of it last came from the network.
    public var fetchedAt: Date
    /// Where "load more" stands; nil before any page.
    public var checkpoint: Pager.Checkpoint?

    public init(key: ListKey, id: Int64, count: Int, fetchedAt: Date, checkpoint: Pager.Checkpoint?) {
        self.key = key
        self.id = id
        self.count = count
        self.fetchedAt = fetchedAt
        self.checkpoint = checkpoint
    }

    /// Whether the service said the list has ended.
    public var isExhausted: Bool { checkpoint?.end != nil }
}

/// What merging a fresh first page into a cached list did.
public struct MergeResult: Sendable, Equatable, Codable {
    public var inserted = 0
    public var updated = 0
    /// Rows whose addtime changed: they moved to their new place.
    public var moved = 0
    /// The fresh page shared no row with the cache, which was too old to
    /// stitch: the list was replaced and its paging started over.
    public var replaced = false

    public init(inserted: Int = 0, updated: Int = 0, moved: Int = 0, replaced: Bool = false) {
        self.inserted = inserted
        self.updated = updated
        self.moved = moved
        self.replaced = replaced
    }
}

/// Why the store could not be used.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for whoever decides what to do next: retry, fix a
    /// setting, or ask for other credentials.
    public enum Kind: String, Sendable {
        /// Reading or writing failed: a file, its folder, a statement.
        case io
        /// The database server could not be reached, or the connection was lost.
        case unavailable
        /// The server refused the user or the password.
        case authentication
        /// The store was written by a newer HotelKit; it is left as it is.
        case newerSchema
        /// The store's location (a `postgres://` URL) is malformed.
        case invalidLocation
        /// The store cannot be used as configured: its database does not exist, say.
        case configuration
        /// The database server refused a statement.
        case server
        /// A job's write was refused: its lease was taken over by another
        /// worker, or the job was cancelled. Nothing was written; the job is
        /// no longer this worker's.
        case leaseLost
    }

    /// The file, or the server's URL without its password.
    public var path: String
    public var reason: String
    public var kind: Kind

    public init(path: String, reason: String, kind: Kind = .io) {
        self.path = path
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "hotel cache \(path): \(reason)" }
}

/// A whole store, beside its lists' pages: what `hotels list` and
/// `hotels cache` ask of one, whichever the backend.
public protocol HotelStorage: ListStorage, ImageIndex, PropertyStorage {
    /// Where the store is, fit to print: a file, or a server's URL without its password.
    var location: String { get }

    /// The most recently fetched list of `city` (near `area`, when given), from any endpoint.
    func latestList(city: String, profile: String?, keyword: String?, area: SearchArea?) async throws -> CachedList?

    /// Every cached list, newest first.
    func allLists() async throws -> [CachedList]

    /// The list with ``CachedList/id`` `id`, or nil.
    func list(id: Int64) async throws -> CachedList?

    /// Up to `limit` rows of a list in service order, after the row at
    /// `after` (from the top when nil), only those whose name contains
    /// `matching` (case-insensitive) when it is given. Keyset paging: a page
    /// deep in a long list costs what the first one costs.
    func rows(in list: CachedList, after: Int64?, limit: Int, matching: String?) async throws -> ListRows

    /// Where a list is cut into runs of `rowsPerRun` rows in service order,
    /// for jobs that each read their run by position: the position just
    /// before the first row, then the last row's of each run (the last,
    /// shorter run's included). Run *k* is the rows after bound *k* up to
    /// bound *k + 1*; a refresh that adds rows at the top, or moves or takes
    /// some out, meanwhile moves no other row into or out of a run. Empty for
    /// an empty list.
    func runBounds(in list: CachedList, rowsPerRun: Int) async throws -> [Int64]

    /// The row of `code` in the list with id `listID`, or nil.
    func hotel(inList listID: Int64, code: String) async throws -> Hotel?

    /// What the store holds.
    func stats() async throws -> StoreStats

    /// Forgets every list, logo index entry and property; people's match
    /// decisions and retired property ids stay.
    func clear() async throws

    /// The processed logo of `url` under the filter chain `filter` (its
    /// description), as the logo index has it; nil when it has none.
    func logoData(url: String, filter: String) async throws -> [UInt8]?
}

/// A page of a list's rows from ``HotelStorage/rows(in:after:limit:matching:)``.
public struct ListRows: Sendable {
    public var hotels: [Hotel]
    /// Each row's position in the list, in the same order.
    public var positions: [Int64]

    public init(hotels: [Hotel] = [], positions: [Int64] = []) {
        self.hotels = hotels
        self.positions = positions
    }

    /// `matching` as a LIKE pattern: its own `%`, `_` and `\` taken literally (`\` is the escape).
    public static func likePattern(_ matching: String?) -> String? {
        guard let matching, !matching.isEmpty else { return nil }
        var escaped = ""
        for character in matching {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}

extension HotelStorage {
    /// Every row of a list in service order, `batchSize` at a time, each
    /// batch one keyset read: memory stays flat whatever the list's length.
    public func forEachBatch(in list: CachedList, batchSize: Int = 5000, _ body: ([Hotel]) async throws -> Void) async throws {
        let batchSize = max(1, batchSize)
        var after: Int64?
        while true {
            let batch = try await rows(in: list, after: after, limit: batchSize, matching: nil)
            if !batch.hotels.isEmpty { try await body(batch.hotels) }
            guard let last = batch.positions.last, batch.hotels.count == batchSize else { return }
            after = last
        }
    }

    /// The list of `city` fetched from `endpoint` with `profile` (the sample's when nil), or, without
    /// an endpoint, the most recently fetched one that matches: what `hotels list` shows.
    public func list(city: String, profile: String?, endpoint: String?, keyword: String?, area: SearchArea?) async throws -> CachedList? {
        guard let endpoint else { return try await latestList(city: city, profile: profile, keyword: keyword, area: area) }
        return try await cachedList(ListKey(profile: profile ?? "sample", endpoint: endpoint, city: city, keyword: keyword, area: area))
    }
}

extension StoreError: MeaningfulError {
    /// By its ``kind``: the folder or a refused statement is 74, a server down 69 (it may pass), refused credentials 77,
    /// a newer schema or another configuration 78, a malformed location 64, a lease taken over 75.
    public var meaning: ErrorMeaning {
        switch kind {
        case .io:
            ErrorMeaning(kind: .storage, status: .ioError, hint: "check the folder's permissions, or give another with --cache DIR")
        case .unavailable:
            ErrorMeaning(
                kind: .transient, status: .unavailable,
                hint: "check that the database server is running and the store URL's host and port are right",
                isRetryable: true)
        case .authentication:
            ErrorMeaning(
                kind: .credentials, status: .permission,
                hint: """
                    the database refused the user or password: give the password in the URL, PGPASSWORD or ~/.pgpass
                    """)
        case .newerSchema:
            ErrorMeaning(kind: .configuration, status: .config, hint: "use the HotelKit that wrote this database, or another database")
        case .configuration:
            ErrorMeaning(kind: .configuration, status: .config)
        case .server:
            ErrorMeaning(
                kind: .storage, status: .ioError,
                hint: "the database refused a statement; hotels store status says whether its schema is this HotelKit's")
        case .invalidLocation:
            ErrorMeaning(kind: .usage, status: .usage, hint: "a store URL reads postgres://USER@HOST:PORT/DATABASE?sslmode=disable")
        case .leaseLost:
            ErrorMeaning(kind: .transient, status: .tempFailure, hint: "another worker holds the job now; this one stopped it")
        }
    }
}
