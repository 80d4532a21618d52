import Foundation
import GRDB
import Matching

/// The catalogue in SQLite: properties, their members, the pairs to review,
/// decisions and retired ids, beside the lists they were matched from.
extension SQLiteHotelStore {
    /// Made when missing, as field columns are, with no version recorded: an
    /// older HotelKit still opens the file and ignores these tables.
    static func createCatalogueTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS properties (
                    id TEXT PRIMARY KEY NOT NULL, scope TEXT NOT NULL, name TEXT, city TEXT, latitude REAL, longitude REAL,
                    confidence TEXT NOT NULL, suppliers INTEGER NOT NULL, createdAt REAL NOT NULL, matchedAt REAL NOT NULL);
                CREATE INDEX IF NOT EXISTS properties_by_scope ON properties (scope, id);
                CREATE TABLE IF NOT EXISTS property_members (
                    propertyId TEXT NOT NULL REFERENCES properties (id) ON DELETE CASCADE, scope TEXT NOT NULL,
                    profile TEXT NOT NULL, endpoint TEXT NOT NULL, code TEXT NOT NULL, listId INTEGER NOT NULL, name TEXT,
                    PRIMARY KEY (scope, profile, endpoint, code));
                CREATE INDEX IF NOT EXISTS property_members_by_property ON property_members (propertyId);
                CREATE TABLE IF NOT EXISTS match_reviews (scope TEXT NOT NULL, score REAL NOT NULL, pair TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS match_reviews_by_scope ON match_reviews (scope);
                CREATE TABLE IF NOT EXISTS match_decisions (
                    firstProfile TEXT NOT NULL, firstEndpoint TEXT NOT NULL, firstCode TEXT NOT NULL,
                    secondProfile TEXT NOT NULL, secondEndpoint TEXT NOT NULL, secondCode TEXT NOT NULL,
                    verdict TEXT NOT NULL, decidedAt REAL NOT NULL,
                    PRIMARY KEY (firstProfile, firstEndpoint, firstCode, secondProfile, secondEndpoint, secondCode));
                CREATE TABLE IF NOT EXISTS retired_property_ids (id TEXT PRIMARY KEY NOT NULL, successor TEXT, retiredAt REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS match_scopes (scope TEXT PRIMARY KEY NOT NULL, matchedAt REAL NOT NULL);
                """)
        // Each row's digest, so that a run writes only the rows it changes (ScopeMatch.changes). A row of an
        // older HotelKit has none, and is written again by the next run.
        for (table, column, type) in [
            ("properties", "digest", "INTEGER"), ("match_reviews", "digest", "INTEGER"), ("match_reviews", "pairOrder", "TEXT"),
            // The last run's stamp, and how many properties and pairs to review it stored (MatchStamp).
            ("match_scopes", "fingerprint", "TEXT"), ("match_scopes", "summary", "TEXT"), ("match_scopes", "properties", "INTEGER"),
            ("match_scopes", "reviews", "INTEGER"),
        ]
        where try !db.columns(in: table).contains(where: { $0.name == column }) {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) \(type)")
        }
        // A pair to review is deleted by its digest: without the index, each delete reads every pair of its city.
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS match_reviews_by_digest ON match_reviews (scope, digest)")
        // A logo's perceptual hash, kept with its index entries (the 64 bits as SQLite's signed integer).
        if try db.tableExists("images"), try !db.columns(in: "images").contains(where: { $0.name == "perceptualHash" }) {
            try db.execute(sql: "ALTER TABLE images ADD COLUMN perceptualHash INTEGER")
        }
    }

    public func propertyIdentities(scope: String) throws -> [PropertyIdentity] {
        try writer.read { db in
            // A cursor, not every row at once: a city's members are hundreds of thousands of rows.
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT p.id, p.createdAt, m.profile, m.endpoint, m.code FROM properties p JOIN property_members m ON m.propertyId = p.id
                    WHERE p.scope = ? ORDER BY p.id
                    """, arguments: [scope])
            var identities = PropertyIdentity.Rows()
            while let row = try rows.next() {
                identities.add(
                    id: row["id"], createdAt: row["createdAt"], profile: row["profile"], endpoint: row["endpoint"], code: row["code"])
            }
            return identities.identities
        }
    }

    public func takenPropertyIDs() throws -> Set<String> {
        try writer.read { db in
            Set(try String.fetchAll(db, sql: "SELECT id FROM properties UNION ALL SELECT id FROM retired_property_ids"))
        }
    }

    public func summaryIfUnchanged(scope: String, fingerprint: String, at date: Date) throws -> String? {
        try writer.write { db in
            // An older HotelKit's INSERT OR REPLACE of the row clears the stamp; a person's edits change the counts.
            try db.execute(
                sql: """
                    UPDATE match_scopes SET matchedAt = ?
                    WHERE scope = ? AND fingerprint = ? AND summary IS NOT NULL
                    AND properties = (SELECT count(*) FROM properties p WHERE p.scope = match_scopes.scope)
                    AND reviews = (SELECT count(*) FROM match_reviews r WHERE r.scope = match_scopes.scope)
                    AND NOT EXISTS (SELECT 1 FROM properties p WHERE p.scope = match_scopes.scope AND p.digest IS NULL)
                    AND NOT EXISTS (
                        SELECT 1 FROM match_reviews r WHERE r.scope = match_scopes.scope AND (r.digest IS NULL OR r.pairOrder IS NULL))
                    """, arguments: [date.timeIntervalSince1970, scope, fingerprint])
            guard db.changesCount > 0 else { return nil }
            return try String.fetchOne(db, sql: "SELECT summary FROM match_scopes WHERE scope = ?", arguments: [scope])
        }
    }

    public func propertyScopes() throws -> [String] {
        try writer.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT scope FROM properties ORDER BY scope") }
    }

    @discardableResult
    public func replaceProperties(_ match: ScopeMatch) throws -> CatalogueChanges {
        let reviews = try ReviewPair.json(match.reviews)
        let reviewDigests = ScopeMatch.reviewDigests(reviews)
        return try writer.write { db in
            let stored = try Row.fetchAll(db, sql: "SELECT id, digest FROM properties WHERE scope = ?", arguments: [match.scope])
                .map { row -> (id: String, digest: UInt64?) in (row["id"], (row["digest"] as Int64?).map { UInt64(bitPattern: $0) }) }
            // A pair stored without a digest or an order key (an older HotelKit's) is deleted and written again.
            let storedReviews = try Int64.fetchAll(
                db, sql: "SELECT digest FROM match_reviews WHERE scope = ? AND digest IS NOT NULL AND pairOrder IS NOT NULL",
                arguments: [match.scope])
            let changes = match.changes(
                storedProperties: stored, storedReviews: storedReviews.map { UInt64(bitPattern: $0) }, reviewDigests: reviewDigests)
            try delete(changes, of: match, db)
            try insertProperties(changes.insertedProperties, of: match, db)
            for retired in match.retired {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO retired_property_ids (id, successor, retiredAt) VALUES (?, ?, ?)",
                    arguments: [retired.id, retired.successor, match.matchedAt.timeIntervalSince1970])
            }
            let insertReview = try db.makeStatement(
                sql: "INSERT INTO match_reviews (scope, score, pair, digest, pairOrder) VALUES (?, ?, ?, ?, ?)")
            for index in changes.insertedReviews {
                let review = match.reviews[index]
                try insertReview.execute(
                    arguments: [match.scope, review.score, reviews[index], Int64(bitPattern: reviewDigests[index]), review.orderKey])
            }
            if match.properties.isEmpty {
                try db.execute(sql: "DELETE FROM match_scopes WHERE scope = ?", arguments: [match.scope])
            } else {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO match_scopes (scope, matchedAt, fingerprint, summary, properties, reviews)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        match.scope, match.matchedAt.timeIntervalSince1970, match.stamp?.fingerprint, match.stamp?.summary,
                        match.properties.count, match.reviews.count,
                    ])
            }
            return changes
        }
    }

    /// The stored rows a run does not keep: properties with their members, and pairs to review.
    private func delete(_ changes: CatalogueChanges, of match: ScopeMatch, _ db: Database) throws {
        let scope = match.scope
        let deleteProperty = try db.makeStatement(sql: "DELETE FROM properties WHERE id = ?")
        for id in changes.deletedProperties { try deleteProperty.execute(arguments: [id]) }
        // Members by their property's id, not only by the cascade, for every id the run deletes or writes: in a file
        // whose foreign keys a tool turned off, members outlive their property and would join a new one of its id.
        let deleteMembers = try db.makeStatement(sql: "DELETE FROM property_members WHERE propertyId = ?")
        for id in Set(changes.deletedProperties + changes.insertedProperties.map { match.properties[$0].id }) {
            try deleteMembers.execute(arguments: [id])
        }
        try db.execute(sql: "DELETE FROM match_reviews WHERE scope = ? AND (digest IS NULL OR pairOrder IS NULL)", arguments: [scope])
        let deleteReview = try db.makeStatement(sql: "DELETE FROM match_reviews WHERE scope = ? AND digest = ?")
        for digest in changes.deletedReviews { try deleteReview.execute(arguments: [scope, Int64(bitPattern: digest)]) }
    }

    /// The run's properties at `indices`, with their members.
    private func insertProperties(_ indices: [Int], of match: ScopeMatch, _ db: Database) throws {
        let properties = MultiRowInsert(
            head: "INSERT INTO properties (id, scope, name, city, latitude, longitude, confidence, suppliers, createdAt, matchedAt, digest)"
                + " VALUES ",
            columns: 11)
        try properties.insert(indices.count, db) { row, binder in
            let index = indices[row]
            let property = match.properties[index]
            try binder.bind(property.id)
            try binder.bind(match.scope)
            try binder.bind(property.name)
            try binder.bind(property.city)
            try binder.bind(property.latitude)
            try binder.bind(property.longitude)
            try binder.bind(property.confidence.rawValue)
            try binder.bind(Int64(property.supplierCount))
            try binder.bind(property.createdAt.timeIntervalSince1970)
            try binder.bind(match.matchedAt.timeIntervalSince1970)
            try binder.bind(Int64(bitPattern: match.propertyDigests[index]))
        }
        // Each member as (its property, its place among the property's members).
        let members = indices.flatMap { property in match.memberKeys[property].indices.map { (property, $0) } }
        // OR REPLACE: a member row that outlived its property in a file whose foreign keys a tool turned off gives way.
        let insertMembers = MultiRowInsert(
            head: "INSERT OR REPLACE INTO property_members (propertyId, scope, profile, endpoint, code, listId, name) VALUES ", columns: 7)
        try insertMembers.insert(members.count, db) { index, binder in
            let (property, member) = members[index]
            let key = match.memberKeys[property][member]
            try binder.bind(match.properties[property].id)
            try binder.bind(match.scope)
            try binder.bind(key.supplier.profile)
            try binder.bind(key.supplier.endpoint)
            try binder.bind(key.code)
            try binder.bind(match.properties[property].members[member].list)
            try binder.bind(match.properties[property].members[member].name)
        }
    }

    public func properties(_ query: PropertyQuery) throws -> [CatalogueProperty] {
        try writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM properties WHERE (?1 IS NULL OR scope = ?1) AND suppliers >= ?2 AND (?3 IS NULL OR id > ?3)
                    ORDER BY id LIMIT ?4
                    """, arguments: [query.scope, query.minimumSuppliers, query.after, query.limit ?? -1])
            return try Self.properties(rows, db)
        }
    }

    public func property(id: String) throws -> CatalogueProperty? {
        try writer.read { db in
            try Self.properties(try Row.fetchAll(db, sql: "SELECT * FROM properties WHERE id = ?", arguments: [id]), db).first
        }
    }

    public func property(holding key: RecordKey) throws -> CatalogueProperty? {
        try writer.read { db in
            try Self.properties(
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT p.* FROM properties p JOIN property_members m ON m.propertyId = p.id
                        LEFT JOIN match_scopes s ON s.scope = p.scope
                        WHERE m.profile = ? AND m.endpoint = ? AND m.code = ? ORDER BY max(p.matchedAt, coalesce(s.matchedAt, p.matchedAt)) DESC LIMIT 1
                        """, arguments: [key.supplier.profile, key.supplier.endpoint, key.code]), db
            ).first
        }
    }

    public func retiredPropertyID(_ id: String) throws -> RetiredPropertyID? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT id, successor FROM retired_property_ids WHERE id = ?", arguments: [id])
                .map { RetiredPropertyID(id: $0["id"], successor: $0["successor"]) }
        }
    }

    public func reviewPairs(scope: String?) throws -> [ReviewPair] {
        try writer.read { db in
            try String.fetchAll(
                db, sql: "SELECT pair FROM match_reviews WHERE ?1 IS NULL OR scope = ?1 ORDER BY score DESC, scope, pairOrder",
                arguments: [scope]
            )
            .map { try JSONDecoder().decode(ReviewPair.self, from: Data($0.utf8)) }
        }
    }

    public func decisions() throws -> [PairDecision] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM match_decisions").compactMap { row in
                guard let verdict = PairDecision.Verdict(rawValue: row["verdict"]) else { return nil }
                return PairDecision(
                    RecordKey(profile: row["firstProfile"], endpoint: row["firstEndpoint"], code: row["firstCode"]),
                    RecordKey(profile: row["secondProfile"], endpoint: row["secondEndpoint"], code: row["secondCode"]), verdict)
            }.sorted { $0.pair < $1.pair }
        }
    }

    public func recordDecision(_ decision: PairDecision, at date: Date) throws {
        let (first, second) = (decision.pair.first, decision.pair.second)
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO match_decisions
                        (firstProfile, firstEndpoint, firstCode, secondProfile, secondEndpoint, secondCode, verdict, decidedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    first.supplier.profile, first.supplier.endpoint, first.code,
                    second.supplier.profile, second.supplier.endpoint, second.code,
                    decision.verdict.rawValue, date.timeIntervalSince1970,
                ])
        }
    }

    public func logoHashes(lists: [Int64]) throws -> [String: UInt64] {
        guard !lists.isEmpty else { return [:] }
        return try writer.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT DISTINCT i.url, i.perceptualHash FROM hotels h JOIN images i ON i.url = h.logoURL
                    WHERE h.listId IN (\(lists.map(String.init).joined(separator: ","))) AND i.perceptualHash IS NOT NULL
                    """)
            var hashes: [String: UInt64] = [:]
            while let row = try rows.next() { hashes[row["url"]] = UInt64(bitPattern: row["perceptualHash"]) }
            return hashes
        }
    }

    public func storeLogoHashes(_ hashes: [String: UInt64]) throws {
        try writer.write { db in
            let update = try db.makeStatement(sql: "UPDATE images SET perceptualHash = ? WHERE url = ?")
            for (url, hash) in hashes { try update.execute(arguments: [Int64(bitPattern: hash), url]) }
        }
    }

    /// Properties rows with their members, endpoints as pages show them.
    private static func properties(_ rows: [Row], _ db: Database) throws -> [CatalogueProperty] {
        guard !rows.isEmpty else { return [] }
        var members: [String: [CatalogueMember]] = [:]
        let ids = rows.map { $0["id"] as String }
        // In chunks: SQLite binds at most 32,766 values a statement.
        for start in stride(from: 0, to: ids.count, by: 1_000) {
            let chunk = Array(ids[start..<min(ids.count, start + 1_000)])
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT propertyId, listId, profile, endpoint, code, name FROM property_members
                    WHERE propertyId IN (\(placeholders)) ORDER BY propertyId, profile, endpoint, code
                    """, arguments: StatementArguments(chunk))
            {
                members[row["propertyId"], default: []].append(
                    CatalogueMember(
                        list: row["listId"], profile: row["profile"], endpoint: ShownURL.of(row["endpoint"]), code: row["code"],
                        name: row["name"]))
            }
        }
        return rows.map { row in
            CatalogueProperty(
                id: row["id"], scope: row["scope"], name: row["name"], city: row["city"], latitude: row["latitude"],
                longitude: row["longitude"], confidence: ConfidenceTier(rawValue: row["confidence"]) ?? .low,
                members: members[row["id"]] ?? [], createdAt: Date(timeIntervalSince1970: row["createdAt"]))
        }
    }
}
