import Foundation
import GRDB
import Hotels

extension HotelStore {
    /// The cached list for `key`, or nil if there is none.
    public func cachedList(_ key: ListKey) throws -> CachedList? {
        try writer.read { db in try Self.list(db, key) }
    }

    /// The most recently fetched list of `city`, from any endpoint, for
    /// `hotels list` when no endpoint is given.
    public func latestList(city: String, profile: String?, keyword: String? = nil) throws -> CachedList? {
        try writer.read { db in
            var request = ListRecord.filter(Column("city") == city && Column("keyword") == (keyword ?? ""))
            if let profile { request = request.filter(Column("profile") == profile) }
            return try request.order(Column("fetchedAt").desc).fetchOne(db).flatMap { try Self.list(db, $0) }
        }
    }

    /// Every cached list, newest first.
    public func allLists() throws -> [CachedList] {
        try writer.read { db in
            try ListRecord.order(Column("fetchedAt").desc).fetchAll(db).compactMap { try Self.list(db, $0) }
        }
    }

    /// Rows of a list in service order: `limit` of them from `offset`, or all.
    public func hotels(in list: CachedList, offset: Int = 0, limit: Int? = nil) throws -> [Hotel] {
        try writer.read { db in try Self.hotels(db, list, offset: offset, limit: limit) }
    }

    /// Merges a fresh first page: new codes are inserted, changed rows
    /// updated, and the page's rows take the top of the list in its order,
    /// so a row whose addtime changed moves to its new place. A page that
    /// shares no row with the cache replaces the list, paging included.
    @discardableResult
    public func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) throws -> MergeResult {
        try writer.write { db in try Self.merge(db, page, into: key, checkpoint: checkpoint, now: now) }
    }

    /// Appends a "load more" page and saves where paging stands, in one
    /// transaction. A row already in the list is updated in place.
    /// Returns how many rows were new.
    @discardableResult
    public func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) throws -> Int {
        try writer.write { db in try Self.append(db, page, to: key, checkpoint: checkpoint, now: now) }
    }

    // MARK: Async twins, for async code: the database work leaves the caller's thread.

    public func cachedList(_ key: ListKey) async throws -> CachedList? {
        try await writer.read { db in try Self.list(db, key) }
    }

    public func hotels(in list: CachedList, offset: Int = 0, limit: Int? = nil) async throws -> [Hotel] {
        try await writer.read { db in try Self.hotels(db, list, offset: offset, limit: limit) }
    }

    @discardableResult
    public func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) async throws -> MergeResult {
        try await writer.write { db in try Self.merge(db, page, into: key, checkpoint: checkpoint, now: now) }
    }

    @discardableResult
    public func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) async throws -> Int {
        try await writer.write { db in try Self.append(db, page, to: key, checkpoint: checkpoint, now: now) }
    }

    // MARK: Transactions

    private static func merge(_ db: Database, _ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date) throws -> MergeResult {
        var list = try upsertList(db, key, now: now)
        let id = list.id ?? 0
        let wasEmpty = try HotelRecord.filter(HotelRecord.Columns.listId == id).isEmpty(db)
        let existing = try existing(db, id, codes: page.map(\.code))
        var result = MergeResult()
        if !wasEmpty, existing.isEmpty, !page.isEmpty {
            try HotelRecord.filter(HotelRecord.Columns.listId == id).deleteAll(db)
            result.replaced = true
        }
        let top = result.replaced ? 0 : try Int64.fetchOne(db, HotelRecord.filter(HotelRecord.Columns.listId == id)
            .select(min(HotelRecord.Columns.position))) ?? 0
        var seen = Set<String>()
        for (index, hotel) in page.enumerated() where seen.insert(hotel.code).inserted {
            let record = HotelRecord(listId: id, hotel: hotel, position: top - Int64(page.count) + Int64(index))
            if let old = result.replaced ? nil : existing[hotel.code] {
                if old.addtime != hotel.addtime {
                    result.moved += 1
                } else if old != hotel {
                    result.updated += 1
                }
                try record.update(db)
            } else {
                try record.insert(db)
                result.inserted += 1
            }
        }
        // The cached continuation still holds unless the list started over.
        if result.replaced || list.checkpoint == nil || wasEmpty {
            try saveCheckpoint(db, &list, checkpoint)
        }
        return result
    }

    private static func append(_ db: Database, _ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date) throws -> Int {
        var list = try upsertList(db, key, now: now)
        let id = list.id ?? 0
        let existing = try existing(db, id, codes: page.map(\.code))
        var next = (try Int64.fetchOne(db, HotelRecord.filter(HotelRecord.Columns.listId == id)
            .select(max(HotelRecord.Columns.position))) ?? -1) + 1
        var added = 0
        var seen = Set<String>()
        for hotel in page where seen.insert(hotel.code).inserted {
            if existing[hotel.code] != nil {
                try db.cachedStatement(sql: """
                    UPDATE hotels SET name = ?, address = ?, latitude = ?, longitude = ?, logoURL = ?, addtime = ?
                    WHERE listId = ? AND code = ?
                    """).execute(arguments: [hotel.name, hotel.address, hotel.latitude, hotel.longitude, hotel.logoURL,
                                             hotel.addtime, id, hotel.code])
            } else {
                try HotelRecord(listId: id, hotel: hotel, position: next).insert(db)
                next += 1
                added += 1
            }
        }
        try saveCheckpoint(db, &list, checkpoint)
        return added
    }

    // MARK: Rows

    private static func list(_ db: Database, _ key: ListKey) throws -> CachedList? {
        try record(db, key).flatMap { try list(db, $0) }
    }

    private static func record(_ db: Database, _ key: ListKey) throws -> ListRecord? {
        try ListRecord.filter(Column("profile") == key.profile && Column("endpoint") == key.endpoint
            && Column("city") == key.city && Column("keyword") == key.keyword).fetchOne(db)
    }

    private static func list(_ db: Database, _ record: ListRecord) throws -> CachedList? {
        guard let id = record.id else { return nil }
        let count = try HotelRecord.filter(HotelRecord.Columns.listId == id).fetchCount(db)
        return CachedList(key: record.key, id: id, count: count, fetchedAt: Date(timeIntervalSince1970: record.fetchedAt),
                          checkpoint: record.decodedCheckpoint)
    }

    private static func hotels(_ db: Database, _ list: CachedList, offset: Int, limit: Int?) throws -> [Hotel] {
        try HotelRecord.filter(HotelRecord.Columns.listId == list.id).order(HotelRecord.Columns.position)
            .limit(limit ?? -1, offset: offset).fetchAll(db).map(\.hotel)
    }

    /// The list's record, made if new; its fetch time is now.
    private static func upsertList(_ db: Database, _ key: ListKey, now: Date) throws -> ListRecord {
        if var list = try record(db, key) {
            list.fetchedAt = now.timeIntervalSince1970
            try list.update(db, columns: ["fetchedAt"])
            return list
        }
        var list = ListRecord(id: nil, profile: key.profile, endpoint: key.endpoint, city: key.city, keyword: key.keyword,
                              checkpoint: nil, exhausted: false, fetchedAt: now.timeIntervalSince1970)
        try list.insert(db)
        return list
    }

    private static func saveCheckpoint(_ db: Database, _ list: inout ListRecord, _ checkpoint: Pager.Checkpoint) throws {
        list.checkpoint = String(decoding: try JSONEncoder().encode(checkpoint), as: UTF8.self)
        list.exhausted = checkpoint.end != nil
        try list.update(db, columns: ["checkpoint", "exhausted"])
    }

    private static func existing(_ db: Database, _ id: Int64, codes: [String]) throws -> [String: Hotel] {
        guard !codes.isEmpty else { return [:] }
        var found: [String: Hotel] = [:]
        // SQLite limits bound parameters; a page is looked up in slices.
        for start in stride(from: 0, to: codes.count, by: 500) {
            let slice = codes[start..<min(codes.count, start + 500)]
            let records = try HotelRecord.filter(HotelRecord.Columns.listId == id && slice.contains(HotelRecord.Columns.code)).fetchAll(db)
            for record in records { found[record.hotel.code] = record.hotel }
        }
        return found
    }
}
