import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

extension PostgresHotelStore {
    public func cachedList(_ key: ListKey) async throws -> CachedList? {
        try await database.reading { [logger] connection in
            try await Self.lists(
                connection, where: "l.profile = $1 AND l.endpoint = $2 AND l.city = $3 AND l.keyword = $4",
                [key.profile, key.endpoint, key.city, key.storedKeyword], logger: logger
            ).first
        }
    }

    public func latestList(city: String, profile: String?, keyword: String? = nil, area: SearchArea? = nil) async throws -> CachedList? {
        try await database.reading { [logger] connection in
            let condition = "l.city = $1 AND l.keyword = $2" + (profile == nil ? "" : " AND l.profile = $3")
            return try await Self.lists(
                connection, where: condition, [city, ListKey.storedKeyword(keyword, area: area)] + (profile.map { [$0] } ?? []),
                order: "ORDER BY l.fetched_at DESC LIMIT 1", logger: logger
            ).first
        }
    }

    public func list(id: Int64) async throws -> CachedList? {
        try await database.reading { [logger] connection in
            try await Self.lists(connection, where: "l.id = $1::bigint", [String(id)], logger: logger).first
        }
    }

    public func allLists() async throws -> [CachedList] {
        try await database.reading { [logger] connection in
            try await Self.lists(connection, where: "true", [], order: "ORDER BY l.fetched_at DESC", logger: logger)
        }
    }

    public func hotels(in list: CachedList, limit: Int? = nil) async throws -> [Hotel] {
        try await database.reading { [logger, statements] connection in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: statements.readList) FROM hotels
                WHERE list_id = \(list.id) ORDER BY position LIMIT \(limit.map(Int64.init))
                """, logger: logger)
            return try await Self.hotels(rows, statements)
        }
    }

    public func runBounds(in list: CachedList, rowsPerRun: Int) async throws -> [Int64] {
        try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT min(position) - 1 FROM hotels WHERE list_id = \(list.id) HAVING count(*) > 0
                UNION ALL
                SELECT position FROM (
                    SELECT position, row_number() OVER (ORDER BY position) AS n, count(*) OVER () AS total FROM hotels WHERE list_id = \(list.id)
                ) AS runs WHERE n % \(Int64(max(1, rowsPerRun))) = 0 OR n = total
                ORDER BY 1
                """, logger: logger)
            var ends: [Int64] = []
            for try await position in rows.decode(Int64.self) { ends.append(position) }
            return ends
        }
    }

    public func hotel(inList listID: Int64, code: String) async throws -> Hotel? {
        try await database.reading { [logger, statements] connection in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: statements.readList) FROM hotels WHERE list_id = \(listID) AND code = \(code)
                """, logger: logger)
            return try await Self.hotels(rows, statements).first
        }
    }

    public func rows(in list: CachedList, after: Int64? = nil, limit: Int, matching: String? = nil) async throws -> ListRows {
        let pattern = ListRows.likePattern(matching)
        return try await database.reading { [logger, statements] connection in
            let rows = try await connection.query(
                """
                SELECT position, \(unescaped: statements.readList) FROM hotels
                WHERE list_id = \(list.id) AND position > \(after ?? .min) AND (\(pattern)::text IS NULL OR name ILIKE \(pattern))
                ORDER BY position LIMIT \(Int64(max(1, limit)))
                """, logger: logger)
            var page = ListRows()
            var decoder = HotelRowDecoder(statements.table)
            for try await row in rows {
                page.hotels.append(try decoder.hotel(row))
                page.positions.append(try row.first.map { try $0.decode(Int64.self) } ?? 0)
            }
            return page
        }
    }

    @discardableResult
    public func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) async throws
        -> MergeResult
    {
        try await database.writing { [logger, statements] connection in
            try await Self.merge(page, into: key, checkpoint: checkpoint, now: now, statements, connection, logger: logger)
        }
    }

    @discardableResult
    public func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date = Date()) async throws -> Int {
        if let added = try await appendAtOnce(page, to: key, checkpoint: checkpoint, now: now, lease: nil) { return added }
        return try await database.writing { [logger, statements] connection in
            try await Self.append(page, to: key, checkpoint: checkpoint, now: now, statements, connection, logger: logger)
        }
    }

    /// The usual "load more" page (no code repeats, none is in the list yet,
    /// the list exists, and the lease holds) in one statement, on its own
    /// atomic without a transaction: its rows, the list's count and bounds,
    /// and its checkpoint. Any other page makes the statement fail, which
    /// undoes all of it: a code already in the list breaks the key (SQLSTATE
    /// 23505, cheaper than `ON CONFLICT` for rows that are new), anything
    /// else refuses itself (`hotelkit_refuse`, HK001). Nil then, and the page
    /// goes the general way, in a transaction. One round trip a page instead
    /// of five; the statement is ``appendAtOnceSQL(table:columnList:selectList:)``, called as ``LoadMoreFunction``, its rows bound as ``Rows`` binds them.
    func appendAtOnce(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date, lease: JobLease?) async throws -> Int? {
        // A code twice in the page breaks the key like a stored one, so no set of its codes is made first.
        guard !page.isEmpty else { return nil }
        var rows = Rows(statements)
        for hotel in page { rows.add(hotel, position: nil) }
        let json = try String(decoding: JSONEncoder().encode(checkpoint), as: UTF8.self)
        var bindings = PostgresBindings(capacity: 10 + statements.table.fields.count)
        for value in [key.profile, key.endpoint, key.city, key.storedKeyword] { bindings.append(value) }
        bindings.append(lease?.job)
        bindings.append(lease?.fence)
        bindings.append(json)
        bindings.append(checkpoint.end != nil)
        bindings.append(now.timeIntervalSince1970)
        bindings.append(page.count)
        rows.appendColumns(to: &bindings)
        let query = PostgresQuery(unsafeSQL: statements.loadMore.call, binds: bindings)
        do {
            // The refusal comes with the rows: they are read, or it would go unseen.
            try await database.withConnection { [logger] connection in
                for try await _ in try await connection.query(query, logger: logger) {}
            }
            return page.count
        } catch let error as PSQLError
            where [PostgresSchema.refusedState, Self.uniqueViolation, LoadMoreFunction.undefinedFunction].contains(
                error.serverInfo?[.sqlState]) || StoreFailure.isConnectionGone(error)
        {
            // Refused, the function gone (dropped since the store opened), or the connection gone before the answer:
            // the general way, which needs no function, finds out what landed.
            return nil
        } catch StoreFailure.closedUnanswered {
            // The pool handed out a connection the server had closed (a drop it had not heard of yet): nothing was sent,
            // and the general way's transaction is tried again on another.
            return nil
        } catch {
            throw StoreFailure.storeError(error, location: location)
        }
    }

    /// The load-more page in one statement, its atomicity its own: the
    /// lease's fence (when a job writes), the list's row locked, the rows
    /// inserted at the list's next positions, and the list's count, next
    /// position and checkpoint, set only when every row went in. Made from
    /// the field table like every statement of the rows, and run inside
    /// ``LoadMoreFunction``, made from it when a store opens, which each
    /// connection plans once: no migration names a field, so a new field is a
    /// column and nothing more. $1–$4 the list's key, $5–$6 the lease (NULL
    /// without one), $7–$9 the checkpoint, whether the list is exhausted and
    /// the fetch time, $10 the page's row count, then the rows' arrays.
    static func appendAtOnceSQL(table: HotelFieldTable, columnList: String, selectList: String) -> String {
        """
        WITH fence AS (
            SELECT 1 FROM jobs WHERE id = $5::int8 AND fence = $6::int8 AND state = 'running' FOR SHARE
        ), list AS (
            SELECT id, next_position FROM lists
            WHERE profile = $1 AND endpoint = $2 AND city = $3 AND keyword = $4
              AND ($5::int8 IS NULL OR EXISTS (SELECT 1 FROM fence)) AND \(pageCommit)
            FOR UPDATE
        ), inserted AS (
            INSERT INTO hotels (list_id, position, \(columnList))
            SELECT list.id, list.next_position + r.n - 1, \(selectList) FROM list, \(HotelStatements.source(table, from: 11))
            RETURNING 1
        ), counted AS (
            SELECT count(*) AS n FROM inserted
        ), updated AS (
            UPDATE lists SET hotel_count = lists.hotel_count + counted.n, next_position = lists.next_position + counted.n,
                checkpoint = $7, exhausted = $8, fetched_at = $9
            FROM counted WHERE lists.id = (SELECT id FROM list) AND counted.n = $10
            RETURNING 1
        )
        SELECT hotelkit_refuse('the page is not a plain load-more page') INTO refused FROM counted WHERE NOT EXISTS (SELECT 1 FROM updated)
        """
    }

    // MARK: Transactions

    static func merge(
        _ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date, _ statements: HotelStatements,
        _ connection: PostgresConnection, logger: Logger
    ) async throws -> MergeResult {
        let list = try await upsertList(key, now: now, connection, logger: logger)
        let existing = list.count == 0 ? [:] : try await existing(page.map(\.code), in: list.id, statements, connection, logger: logger)
        let plan = PagePlan.merge(page, existing: existing, list: list.state)
        try await write(plan, list: list, checkpoint: checkpoint, statements, connection, logger: logger)
        return plan.merge
    }

    static func append(
        _ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date, _ statements: HotelStatements,
        _ connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        // The general way, after appendAtOnce refused the page: its codes are looked up first.
        let list = try await upsertList(key, now: now, connection, logger: logger)
        let existing = list.count == 0 ? [:] : try await existing(page.map(\.code), in: list.id, statements, connection, logger: logger)
        let plan = PagePlan.append(page, existing: Set(existing.keys), list: list.state)
        try await write(plan, list: list, checkpoint: checkpoint, statements, connection, logger: logger)
        return plan.added
    }

    /// Executes a page's plan in its transaction: the rows, then the list's count, bounds and checkpoint.
    private static func write(
        _ plan: PagePlan, list: ListRow, checkpoint: Pager.Checkpoint, _ statements: HotelStatements,
        _ connection: PostgresConnection, logger: Logger
    ) async throws {
        if plan.replacesList { try await connection.query("DELETE FROM hotels WHERE list_id = \(list.id)", logger: logger) }
        var updates = Rows(statements)
        for row in plan.updates { updates.add(row.hotel, position: row.position) }
        var inserts = Rows(statements)
        for row in plan.inserts { inserts.add(row.hotel, position: row.position) }
        try await updates.update(list: list.id, connection, logger: logger)
        try await inserts.insert(list: list.id, connection, logger: logger)
        try await finish(
            list.id, count: (plan.replacesList ? 0 : list.count) + plan.added, positions: (plan.top, plan.next),
            checkpoint: plan.savesCheckpoint ? checkpoint : nil, connection, logger: logger)
    }

    /// A page's transaction commits without waiting for the disk, as
    /// SQLite's `synchronous = NORMAL` does: a crash of the server's machine
    /// can lose the last fraction of a second of pages (never half a page, a
    /// list and its checkpoint always together; the next run fetches them
    /// again), a process killed loses nothing. On 100,000 hotels in 200
    /// pages, the flushes were a third of the server's time. A job's state
    /// changes still wait, and a commit that waits also writes every earlier one.
    /// `set_config(…, true)` is the statement's own `SET LOCAL`: no session
    /// state, so PgBouncer's transaction mode is safe.
    static let pageCommit = "set_config('synchronous_commit', 'off', true) = 'off'"

    /// `unique_violation`: the load-more statement's rows met a code the list has.
    static let uniqueViolation = "23505"

    /// A list's row as a write finds it.
    private struct ListRow {
        var id: Int64
        var checkpoint: String?
        var count: Int
        var firstPosition: Int64
        var nextPosition: Int64

        /// What the page's plan needs to know of the list.
        var state: PagePlan.ListState {
            PagePlan.ListState(isEmpty: count == 0, hasCheckpoint: checkpoint != nil, top: firstPosition, next: nextPosition)
        }
    }

    /// The list's row, made if new; its fetch time is now. One statement,
    /// which also locks the list's row: two writers of one list take turns.
    private static func upsertList(_ key: ListKey, now: Date, _ connection: PostgresConnection, logger: Logger) async throws -> ListRow {
        let rows = try await connection.query(
            """
            INSERT INTO lists (profile, endpoint, city, keyword, fetched_at)
            SELECT \(key.profile), \(key.endpoint), \(key.city), \(key.storedKeyword), \(now.timeIntervalSince1970)
            WHERE \(unescaped: pageCommit)
            ON CONFLICT (profile, endpoint, city, keyword) DO UPDATE SET fetched_at = EXCLUDED.fetched_at
            RETURNING id, checkpoint, hotel_count, first_position, next_position
            """, logger: logger)
        for try await (id, checkpoint, count, first, next) in rows.decode((Int64, String?, Int, Int64, Int64).self) {
            return ListRow(id: id, checkpoint: checkpoint, count: count, firstPosition: first, nextPosition: next)
        }
        throw StoreError(path: key.description, reason: "the list's row was not returned")
    }

    /// The list's row count and position bounds after the page, and its checkpoint when it is to be saved.
    private static func finish(
        _ id: Int64, count: Int, positions: (first: Int64, next: Int64), checkpoint: Pager.Checkpoint?,
        _ connection: PostgresConnection, logger: Logger
    ) async throws {
        let json = try checkpoint.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try await connection.query(
            """
            UPDATE lists SET hotel_count = \(count), first_position = \(positions.first), next_position = \(positions.next),
                checkpoint = coalesce(\(json), checkpoint), exhausted = coalesce(\(checkpoint.map { $0.end != nil }), exhausted)
            WHERE id = \(id)
            """, logger: logger)
    }

    /// The rows of the list among `codes`, by code.
    private static func existing(
        _ codes: [String], in id: Int64, _ statements: HotelStatements, _ connection: PostgresConnection, logger: Logger
    ) async throws -> [String: Hotel] {
        guard !codes.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT \(unescaped: statements.readList) FROM hotels
            WHERE list_id = \(id) AND code = ANY(\(codes.map(HotelFieldSpec.Value.textUpToNUL)))
            """, logger: logger)
        return Dictionary(try await hotels(rows, statements).map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private static func hotels(_ rows: PostgresRowSequence, _ statements: HotelStatements) async throws -> [Hotel] {
        var hotels: [Hotel] = []
        var decoder = HotelRowDecoder(statements.table)
        for try await row in rows { hotels.append(try decoder.hotel(row)) }
        return hotels
    }

    private static func lists(
        _ connection: PostgresConnection, where condition: String, _ values: [String], order: String = "",
        logger: Logger
    ) async throws -> [CachedList] {
        var bindings = PostgresBindings(capacity: values.count)
        values.forEach { bindings.append($0) }
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT l.id, l.profile, l.endpoint, l.city, l.keyword, l.checkpoint, l.fetched_at, l.hotel_count
                    FROM lists l WHERE \(condition) \(order)
                    """, binds: bindings), logger: logger)
        var lists: [CachedList] = []
        for try await (id, profile, endpoint, city, keyword, checkpoint, fetchedAt, count)
            in rows.decode((Int64, String, String, String, String, String?, Double, Int).self)
        {
            lists.append(
                CachedList(
                    key: ListKey(profile: profile, endpoint: endpoint, city: city, storedKeyword: keyword), id: id, count: count,
                    fetchedAt: Date(timeIntervalSince1970: fetchedAt),
                    checkpoint: checkpoint.flatMap { try? JSONDecoder().decode(Pager.Checkpoint.self, from: Data($0.utf8)) }))
        }
        return lists
    }
}
