import Foundation
import GRDB
import Hotels

extension HotelStore {
    /// The cached list for `key`, or nil if there is none.
    public func cachedList(_ key: ListKey) throws -> CachedList? {
        try pool.read { db in try Self.list(db, key) }
    }

    /// The most recently fetched list of `city`, from any endpoint, for
    /// `hotels list` when no endpoint is given.
    public func latestList(city: String, profile: String?, keyword: String? = nil) throws -> CachedList? {
        try pool.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT profile, endpoint FROM lists WHERE city = ? AND keyword = ? AND (? IS NULL OR profile = ?)
                ORDER BY fetchedAt DESC LIMIT 1
                """, arguments: [city, keyword ?? "", profile, profile])
            guard let row else { return nil }
            return try Self.list(db, ListKey(profile: row["profile"], endpoint: row["endpoint"], city: city, keyword: keyword))
        }
    }

    /// Every cached list, newest first.
    public func allLists() throws -> [CachedList] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT profile, endpoint, city, keyword FROM lists ORDER BY fetchedAt DESC").compactMap { row in
                try Self.list(db, ListKey(profile: row["profile"], endpoint: row["endpoint"], city: row["city"], keyword: row["keyword"]))
            }
        }
    }

    /// Rows of a list in service order: `limit` of them from `offset`, or all.
    public func hotels(in list: CachedList, offset: Int = 0, limit: Int? = nil) throws -> [Hotel] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT code, name, address, latitude, longitude, logoURL, addtime FROM hotels
                WHERE listId = ? ORDER BY position LIMIT ? OFFSET ?
                """, arguments: [list.id, limit ?? -1, offset]).map(Self.hotel(from:))
        }
    }

    /// Merges a fresh first page: new codes are inserted, changed rows
    /// updated, and the page's rows take the top of the list in its order,
    /// so a row whose addtime changed moves to its new place. A page that
    /// shares no row with the cache replaces the list, paging included.
    @discardableResult
    public func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) throws -> MergeResult {
        try pool.write { db in
            let id = try Self.upsertList(db, key, now: now)
            let wasEmpty = try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM hotels WHERE listId = ?)", arguments: [id]) ?? false)
            let existing = try Self.existing(db, id, codes: page.map(\.code))
            var result = MergeResult()
            if !wasEmpty, existing.isEmpty, !page.isEmpty {
                try db.execute(sql: "DELETE FROM hotels WHERE listId = ?", arguments: [id])
                result.replaced = true
            }
            let top = result.replaced ? 0 : (try Int64.fetchOne(db, sql: "SELECT min(position) FROM hotels WHERE listId = ?", arguments: [id]) ?? 0)
            var seen = Set<String>()
            for (index, hotel) in page.enumerated() where seen.insert(hotel.code).inserted {
                let position = top - Int64(page.count) + Int64(index)
                if let old = result.replaced ? nil : existing[hotel.code] {
                    if old.addtime != hotel.addtime {
                        result.moved += 1
                    } else if old != hotel {
                        result.updated += 1
                    }
                    try Self.update(db, id, hotel, position: position)
                } else {
                    try Self.insert(db, id, hotel, position: position)
                    result.inserted += 1
                }
            }
            // The cached continuation still holds unless the list started over.
            let hasCheckpoint = try Bool.fetchOne(db, sql: "SELECT checkpoint IS NOT NULL FROM lists WHERE id = ?", arguments: [id]) ?? false
            if result.replaced || !hasCheckpoint || wasEmpty {
                try Self.saveCheckpoint(db, id, checkpoint)
            }
            return result
        }
    }

    /// Appends a "load more" page and saves where paging stands, in one
    /// transaction. A row already in the list is updated in place.
    /// Returns how many rows were new.
    @discardableResult
    public func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) throws -> Int {
        try pool.write { db in
            let id = try Self.upsertList(db, key, now: now)
            let existing = try Self.existing(db, id, codes: page.map(\.code))
            var next = (try Int64.fetchOne(db, sql: "SELECT max(position) FROM hotels WHERE listId = ?", arguments: [id]) ?? -1) + 1
            var added = 0
            var seen = Set<String>()
            for hotel in page where seen.insert(hotel.code).inserted {
                if existing[hotel.code] != nil {
                    try Self.update(db, id, hotel, position: nil)
                } else {
                    try Self.insert(db, id, hotel, position: next)
                    next += 1
                    added += 1
                }
            }
            try Self.saveCheckpoint(db, id, checkpoint)
            return added
        }
    }

    // MARK: Rows

    private static func list(_ db: Database, _ key: ListKey) throws -> CachedList? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT id, checkpoint, fetchedAt, (SELECT count(*) FROM hotels WHERE listId = lists.id) AS count
            FROM lists WHERE profile = ? AND endpoint = ? AND city = ? AND keyword = ?
            """, arguments: [key.profile, key.endpoint, key.city, key.keyword]) else { return nil }
        let checkpoint = (row["checkpoint"] as String?).flatMap { try? JSONDecoder().decode(Pager.Checkpoint.self, from: Data($0.utf8)) }
        return CachedList(key: key, id: row["id"], count: row["count"], fetchedAt: Date(timeIntervalSince1970: row["fetchedAt"]),
                          checkpoint: checkpoint)
    }

    private static func upsertList(_ db: Database, _ key: ListKey, now: Date) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO lists (profile, endpoint, city, keyword, fetchedAt) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (profile, endpoint, city, keyword) DO UPDATE SET fetchedAt = excluded.fetchedAt
            """, arguments: [key.profile, key.endpoint, key.city, key.keyword, now.timeIntervalSince1970])
        return try Int64.fetchOne(db, sql: "SELECT id FROM lists WHERE profile = ? AND endpoint = ? AND city = ? AND keyword = ?",
                                  arguments: [key.profile, key.endpoint, key.city, key.keyword]) ?? db.lastInsertedRowID
    }

    private static func saveCheckpoint(_ db: Database, _ id: Int64, _ checkpoint: Pager.Checkpoint) throws {
        let json = String(decoding: try JSONEncoder().encode(checkpoint), as: UTF8.self)
        try db.execute(sql: "UPDATE lists SET checkpoint = ?, exhausted = ? WHERE id = ?", arguments: [json, checkpoint.end != nil, id])
    }

    private static func existing(_ db: Database, _ id: Int64, codes: [String]) throws -> [String: Hotel] {
        guard !codes.isEmpty else { return [:] }
        var found: [String: Hotel] = [:]
        // SQLite limits bound parameters; a page is looked up in slices.
        for start in stride(from: 0, to: codes.count, by: 500) {
            let slice = Array(codes[start..<min(codes.count, start + 500)])
            let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: """
                SELECT code, name, address, latitude, longitude, logoURL, addtime FROM hotels WHERE listId = ? AND code IN (\(marks))
                """, arguments: StatementArguments([id] + slice))
            for row in rows {
                let hotel = hotel(from: row)
                found[hotel.code] = hotel
            }
        }
        return found
    }

    // Statements a page runs hundreds of times are compiled once per connection.
    private static func insert(_ db: Database, _ id: Int64, _ hotel: Hotel, position: Int64) throws {
        try db.cachedStatement(sql: """
            INSERT INTO hotels (listId, code, name, address, latitude, longitude, logoURL, addtime, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [id, hotel.code, hotel.name, hotel.address, hotel.latitude, hotel.longitude, hotel.logoURL, hotel.addtime, position])
    }

    /// Updates a row's fields, and its place unless `position` is nil.
    private static func update(_ db: Database, _ id: Int64, _ hotel: Hotel, position: Int64?) throws {
        try db.cachedStatement(sql: """
            UPDATE hotels SET name = ?, address = ?, latitude = ?, longitude = ?, logoURL = ?, addtime = ?,
                position = coalesce(?, position)
            WHERE listId = ? AND code = ?
            """).execute(arguments: [hotel.name, hotel.address, hotel.latitude, hotel.longitude, hotel.logoURL, hotel.addtime, position, id, hotel.code])
    }

    static func hotel(from row: Row) -> Hotel {
        Hotel(code: row["code"], name: row["name"], address: row["address"], latitude: row["latitude"],
              longitude: row["longitude"], logoURL: row["logoURL"], addtime: row["addtime"])
    }
}
