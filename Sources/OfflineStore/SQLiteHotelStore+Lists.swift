import Foundation
import GRDB
import GRDBSQLite
import Hotels

extension SQLiteHotelStore {
    /// The cached list for `key`, or nil if there is none.
    public func cachedList(_ key: ListKey) throws -> CachedList? {
        try writer.read { db in try Self.list(db, key) }
    }

    /// The most recently fetched list of `city`, from any endpoint, for
    /// `hotels list` when no endpoint is given.
    public func latestList(city: String, profile: String?, keyword: String? = nil, area: SearchArea? = nil) throws -> CachedList? {
        try writer.read { db in
            var request = ListRecord.filter(Column("city") == city && Column("keyword") == ListKey.storedKeyword(keyword, area: area))
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

    /// The first `limit` rows of a list in service order, or all of them.
    public func hotels(in list: CachedList, limit: Int? = nil) throws -> [Hotel] {
        try writer.read { [columns] db in try Self.hotels(db, columns, list, limit: limit) }
    }

    /// Merges a fresh first page: new codes are inserted, changed rows
    /// updated, and the page's rows take the top of the list in its order,
    /// so a row whose addtime changed moves to its new place. A page that
    /// shares no row with the cache replaces the list, paging included.
    @discardableResult
    public func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) throws -> MergeResult {
        try writer.write { [columns] db in try Self.merge(db, columns, page, into: key, checkpoint: checkpoint, now: now) }
    }

    /// Appends a "load more" page and saves where paging stands, in one
    /// transaction. A row already in the list is updated in place.
    /// Returns how many rows were new.
    @discardableResult
    public func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) throws -> Int {
        try writer.write { [columns] db in try Self.append(db, columns, page, to: key, checkpoint: checkpoint, now: now) }
    }

    // MARK: Async twins, for async code: the database work leaves the caller's thread.

    public func cachedList(_ key: ListKey) async throws -> CachedList? {
        try await writer.read { db in try Self.list(db, key) }
    }

    public func list(id: Int64) async throws -> CachedList? {
        try await writer.read { db in try ListRecord.fetchOne(db, key: id).flatMap { try Self.list(db, $0) } }
    }

    public func hotels(in list: CachedList, limit: Int? = nil) async throws -> [Hotel] {
        try await writer.read { [columns] db in try Self.hotels(db, columns, list, limit: limit) }
    }

    public func runBounds(in list: CachedList, rowsPerRun: Int) async throws -> [Int64] {
        try await writer.read { db in
            try Int64.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT min(position) - 1 FROM hotels WHERE listId = ?1 HAVING count(*) > 0
                        UNION ALL
                        SELECT position FROM (
                            SELECT position, row_number() OVER (ORDER BY position) AS n, count(*) OVER () AS total FROM hotels WHERE listId = ?1
                        ) WHERE n % ?2 = 0 OR n = total
                        ORDER BY 1
                        """), arguments: [list.id, max(1, rowsPerRun)])
        }
    }

    @discardableResult
    public func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) async throws
        -> MergeResult
    {
        try await writer.write { [columns] db in try Self.merge(db, columns, page, into: key, checkpoint: checkpoint, now: now) }
    }

    @discardableResult
    public func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) async throws -> Int {
        try await writer.write { [columns] db in try Self.append(db, columns, page, to: key, checkpoint: checkpoint, now: now) }
    }

    /// Each batch is one read that goes on after the last row's position
    /// (the `hotels_by_position` index), so none skips rows again as an offset would.
    public func hotel(inList listID: Int64, code: String) async throws -> Hotel? {
        try await writer.read { [columns] db in
            let statement = try db.cachedStatement(sql: columns.select + " FROM hotels WHERE listId = ? AND code = ?")
            let decoder = HotelRowDecoder(columns: statement.columnNames, fields: columns.table)
            return try Row.fetchOne(statement, arguments: [listID, code]).map(decoder.hotel)
        }
    }

    public func rows(in list: CachedList, after: Int64? = nil, limit: Int, matching: String? = nil) async throws -> ListRows {
        let pattern = ListRows.likePattern(matching)
        return try await writer.read { [columns] db in
            let statement = try db.cachedStatement(
                sql: columns.select + """
                    , position FROM hotels WHERE listId = ? AND position > ? AND (? IS NULL OR name LIKE ? ESCAPE '\\') ORDER BY position LIMIT ?
                    """)
            let decoder = HotelRowDecoder(columns: statement.columnNames, fields: columns.table)
            let rows = try Row.fetchCursor(statement, arguments: [list.id, after ?? Int64.min, pattern, pattern, max(1, limit)])
            var page = ListRows()
            while let row = try rows.next() {
                page.hotels.append(decoder.hotel(row))
                page.positions.append(row["position"])
            }
            return page
        }
    }

    // MARK: Transactions

    private static func merge(
        _ db: Database, _ columns: HotelColumns, _ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date
    ) throws
        -> MergeResult
    {
        var list = try upsertList(db, key, now: now)
        let plan = PagePlan.merge(
            page, existing: try existing(db, columns, list.id ?? 0, codes: page.map(\.code)), list: try state(db, list))
        try write(plan, db, columns, &list, checkpoint)
        return plan.merge
    }

    private static func append(
        _ db: Database, _ columns: HotelColumns, _ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date
    ) throws -> Int {
        var list = try upsertList(db, key, now: now)
        let id = list.id ?? 0
        let state = try state(db, list)
        // The usual "load more" page: no code repeats, and none is in the list
        // yet. Its rows go in at once, a code already there skipped; if one
        // was, this page's rows (all at `next` or after) are taken out again
        // and the page goes the way below, which looks its codes up first.
        // A code twice in the page is skipped the same way, so no set of its codes is made first.
        if !page.isEmpty {
            let inserted = try RowInserter(columns: columns, listId: id, skippingCodesInList: true).insert(page.count, db) {
                index, binder in
                try binder.bind(page[index], position: state.next + Int64(index))
            }
            if inserted == page.count {
                try saveCheckpoint(db, &list, checkpoint)
                try saveBounds(db, list, top: state.top, next: state.next + Int64(page.count))
                return page.count
            }
            try db.cachedStatement(sql: "DELETE FROM hotels WHERE listId = ? AND position >= ?").execute(arguments: [id, state.next])
        }
        let plan = PagePlan.append(page, existing: try existingCodes(db, id, codes: page.map(\.code)), list: state)
        try write(plan, db, columns, &list, checkpoint)
        return plan.added
    }

    /// The list's bounds and checkpoint, as the page's plan needs them: the
    /// bounds the last plan left, widened to any row outside them (a row an
    /// older HotelKit, which kept no bounds, wrote).
    private static func state(_ db: Database, _ list: ListRecord) throws -> PagePlan.ListState {
        // One aggregate per subquery: SQLite answers a lone min() or max() from the index, both in one SELECT by a scan of the list.
        let rows = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT (SELECT min(position) FROM hotels WHERE listId = ?1), (SELECT max(position) FROM hotels WHERE listId = ?1)
                    """), arguments: [list.id ?? 0])
        guard let first: Int64 = rows?[0], let last: Int64 = rows?[1] else {
            return PagePlan.ListState(
                isEmpty: true, hasCheckpoint: list.checkpoint != nil, top: list.firstPosition ?? 0, next: list.nextPosition ?? 0)
        }
        return PagePlan.ListState(
            isEmpty: false, hasCheckpoint: list.checkpoint != nil, top: min(list.firstPosition ?? first, first),
            next: max(list.nextPosition ?? last + 1, last + 1))
    }

    private static func saveBounds(_ db: Database, _ list: ListRecord, top: Int64, next: Int64) throws {
        try db.cachedStatement(sql: "UPDATE lists SET firstPosition = ?, nextPosition = ? WHERE id = ?").execute(arguments: [
            top, next, list.id,
        ])
    }

    /// Executes a page's plan in its transaction.
    private static func write(
        _ plan: PagePlan, _ db: Database, _ columns: HotelColumns, _ list: inout ListRecord, _ checkpoint: Pager.Checkpoint
    ) throws {
        let id = list.id ?? 0
        if plan.replacesList { try HotelRecord.filter(HotelRecord.Columns.listId == id).deleteAll(db) }
        for row in plan.updates { try update(db, columns, row.hotel, in: id, position: row.position) }
        try RowInserter(columns: columns, listId: id).insert(plan.inserts.count, db) { index, binder in
            try binder.bind(plan.inserts[index].hotel, position: plan.inserts[index].position ?? 0)
        }
        if plan.savesCheckpoint { try saveCheckpoint(db, &list, checkpoint) }
        try saveBounds(db, list, top: plan.top, next: plan.next)
    }

    /// Updates a row's columns in place; its position too, when given.
    private static func update(_ db: Database, _ columns: HotelColumns, _ hotel: Hotel, in id: Int64, position: Int64?) throws {
        var arguments = StatementArguments(columns.updatedValues(hotel))
        if let position { arguments += [position] }
        arguments += [id, hotel.code]
        try db.cachedStatement(sql: position == nil ? columns.update : columns.updateWithPosition).execute(arguments: arguments)
    }

    /// A field's value as GRDB binds it; references as their JSON text.
    static func databaseValue(_ value: HotelFieldSpec.Value) -> DatabaseValue {
        switch value {
        case .null: .null
        case .text(let text): text.databaseValue
        case .real(let number): number.databaseValue
        case .integer(let number): number.databaseValue
        case .references(let references): HotelFieldSpec.Value.referencesJSON(references).databaseValue
        }
    }

    /// A column name as SQL: in double quotes.
    static func quoted(_ column: String) -> String { "\"" + column + "\"" }

    /// New rows of one list, inserted by ``MultiRowInsert``.
    private struct RowInserter {
        let columns: HotelColumns
        let listId: Int64
        /// ON CONFLICT DO NOTHING: a row whose code the list holds is skipped, not an error.
        let skipsCodesInList: Bool

        init(columns: HotelColumns, listId: Int64, skippingCodesInList: Bool = false) {
            self.columns = columns
            self.listId = listId
            skipsCodesInList = skippingCodesInList
        }

        /// Inserts `count` rows; `bindRow` binds row `index`'s hotel and position straight from where the
        /// caller keeps it, so no row is copied. Returns how many rows went in.
        @discardableResult
        func insert(_ count: Int, _ db: Database, bindRow: (_ index: Int, inout SQLiteBinder) throws -> Void) throws -> Int {
            let tail = skipsCodesInList ? " ON CONFLICT (listId, code) DO NOTHING" : ""
            let insert = MultiRowInsert(
                head: columns.insertHead, columns: columns.perRow, tail: tail, full: columns.fullInsert,
                added: columns.table.extensions)
            return try insert.insert(count, db) { index, binder in
                try binder.bind(listId)
                try bindRow(index, &binder)
            }
        }
    }

    // MARK: Rows

    private static func list(_ db: Database, _ key: ListKey) throws -> CachedList? {
        try record(db, key).flatMap { try list(db, $0) }
    }

    private static func record(_ db: Database, _ key: ListKey) throws -> ListRecord? {
        try ListRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM lists WHERE profile = ? AND endpoint = ? AND city = ? AND keyword = ?"),
            arguments: [key.profile, key.endpoint, key.city, key.storedKeyword])
    }

    private static func list(_ db: Database, _ record: ListRecord) throws -> CachedList? {
        guard let id = record.id else { return nil }
        let count = try HotelRecord.filter(HotelRecord.Columns.listId == id).fetchCount(db)
        return CachedList(
            key: record.key, id: id, count: count, fetchedAt: Date(timeIntervalSince1970: record.fetchedAt),
            checkpoint: record.decodedCheckpoint)
    }

    private static func hotels(_ db: Database, _ columns: HotelColumns, _ list: CachedList, limit: Int?) throws -> [Hotel] {
        let statement = try db.cachedStatement(sql: columns.select + " FROM hotels WHERE listId = ? ORDER BY position LIMIT ?")
        let decoder = HotelRowDecoder(columns: statement.columnNames, fields: columns.table)
        return try Array(Row.fetchCursor(statement, arguments: [list.id, limit ?? -1]).map(decoder.hotel))
    }

    /// The list's record, made if new; its fetch time is now.
    private static func upsertList(_ db: Database, _ key: ListKey, now: Date) throws -> ListRecord {
        if var list = try record(db, key) {
            list.fetchedAt = now.timeIntervalSince1970
            try db.cachedStatement(sql: "UPDATE lists SET fetchedAt = ? WHERE id = ?").execute(arguments: [list.fetchedAt, list.id])
            return list
        }
        var list = ListRecord(
            id: nil, profile: key.profile, endpoint: key.endpoint, city: key.city, keyword: key.storedKeyword,
            checkpoint: nil, exhausted: false, fetchedAt: now.timeIntervalSince1970, firstPosition: nil, nextPosition: nil)
        try list.insert(db)
        return list
    }

    private static func saveCheckpoint(_ db: Database, _ list: inout ListRecord, _ checkpoint: Pager.Checkpoint) throws {
        list.checkpoint = String(decoding: try JSONEncoder().encode(checkpoint), as: UTF8.self)
        list.exhausted = checkpoint.end != nil
        try db.cachedStatement(sql: "UPDATE lists SET checkpoint = ?, exhausted = ? WHERE id = ?")
            .execute(arguments: [list.checkpoint, list.exhausted, list.id])
    }

    /// `codes` as a JSON array, for `json_each`: one statement looks up a page of any length.
    private static func jsonArray(_ codes: [String]) -> String {
        var json: [UInt8] = [UInt8(ascii: "[")]
        for (index, code) in codes.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            HotelJSONLines.appendString(code, to: &json)
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }

    /// The rows of the list among `codes`, by code.
    private static func existing(_ db: Database, _ columns: HotelColumns, _ id: Int64, codes: [String]) throws -> [String: Hotel] {
        guard !codes.isEmpty else { return [:] }
        let statement = try db.cachedStatement(
            sql: columns.select + " FROM hotels WHERE listId = ? AND code IN (SELECT value FROM json_each(?))")
        let decoder = HotelRowDecoder(columns: statement.columnNames, fields: columns.table)
        let rows = try Row.fetchCursor(statement, arguments: [id, jsonArray(codes)])
        var found: [String: Hotel] = [:]
        while let row = try rows.next() {
            let hotel = decoder.hotel(row)
            found[hotel.code] = hotel
        }
        return found
    }

    /// The codes among `codes` that the list holds.
    private static func existingCodes(_ db: Database, _ id: Int64, codes: [String]) throws -> Set<String> {
        guard !codes.isEmpty else { return [] }
        return try Set(
            String.fetchCursor(
                db.cachedStatement(sql: "SELECT code FROM hotels WHERE listId = ? AND code IN (SELECT value FROM json_each(?))"),
                arguments: [id, jsonArray(codes)]))
    }
}
