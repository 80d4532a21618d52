import Foundation
import Logging
import Matching
import OfflineStore
import PostgresNIO

/// The catalogue in the shared store (schema versions 9 and 12): properties, their
/// members, the pairs to review, decisions and retired ids.
extension PostgresHotelStore {
    public func propertyIdentities(scope: String) async throws -> [PropertyIdentity] {
        try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT p.id, p.created_at, m.profile, m.endpoint, m.code FROM properties p JOIN property_members m ON m.property_id = p.id
                WHERE p.scope = \(scope) ORDER BY p.id
                """, logger: logger)
            var identities = PropertyIdentity.Rows()
            for try await (id, createdAt, profile, endpoint, code) in rows.decode((String, Double, String, String, String).self) {
                identities.add(id: id, createdAt: createdAt, profile: profile, endpoint: endpoint, code: code)
            }
            return identities.identities
        }
    }

    public func takenPropertyIDs() async throws -> Set<String> {
        try await database.reading { [logger] connection in
            var ids = Set<String>()
            let rows = try await connection.query("SELECT id FROM properties UNION ALL SELECT id FROM retired_property_ids", logger: logger)
            for try await id in rows.decode(String.self) { ids.insert(id) }
            return ids
        }
    }

    public func summaryIfUnchanged(scope: String, fingerprint: String, at date: Date) async throws -> String? {
        let matchedAt = date.timeIntervalSince1970
        return try await database.writing { [logger] connection in
            // One statement: a writer of the scope that commits first changes what it compares. A process of an older
            // HotelKit still running sets matched_at alone, which then differs from stamped_at.
            let rows = try await connection.query(
                """
                UPDATE match_scopes s SET matched_at = \(matchedAt), stamped_at = \(matchedAt)
                WHERE s.scope = \(scope) AND s.fingerprint = \(fingerprint) AND s.summary IS NOT NULL AND s.stamped_at = s.matched_at
                AND s.properties = (SELECT count(*) FROM properties p WHERE p.scope = s.scope)
                AND s.reviews = (SELECT count(*) FROM match_reviews r WHERE r.scope = s.scope)
                AND NOT EXISTS (SELECT 1 FROM properties p WHERE p.scope = s.scope AND p.digest IS NULL)
                AND NOT EXISTS (SELECT 1 FROM match_reviews r WHERE r.scope = s.scope AND (r.digest IS NULL OR r.pair_order IS NULL))
                RETURNING s.summary
                """, logger: logger)
            var summary: String?
            for try await stored in rows.decode(String.self) { summary = stored }
            return summary
        }
    }

    public func propertyScopes() async throws -> [String] {
        try await database.reading { [logger] connection in
            var scopes: [String] = []
            for try await scope in try await connection.query("SELECT DISTINCT scope FROM properties ORDER BY scope", logger: logger)
                .decode(String.self)
            { scopes.append(scope) }
            return scopes
        }
    }

    /// Rows go as `jsonb` arrays, a few thousand a statement: one round trip
    /// for many rows, as `Rows` sends a page of hotels. Two runs of one scope
    /// write one after the other: each holds the scope's lock from reading its digests to committing.
    @discardableResult
    public func replaceProperties(_ match: ScopeMatch) async throws -> CatalogueChanges {
        let reviews = try ReviewPair.json(match.reviews)
        let reviewDigests = ScopeMatch.reviewDigests(reviews)
        let (scope, matchedAt) = (match.scope, match.matchedAt.timeIntervalSince1970)
        return try await database.writing { [logger] connection in
            // The lock's row is read: a wait that ends at lock_timeout says so with it, or the next statement would fail instead.
            for try await _ in try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("hotelkit catalogue " + scope), 0))", logger: logger)
            {}
            var stored: [(id: String, digest: UInt64?)] = []
            for try await (id, digest) in try await connection.query(
                "SELECT id, digest FROM properties WHERE scope = \(scope)", logger: logger
            ).decode((String, Int64?).self) {
                stored.append((id, digest.map { UInt64(bitPattern: $0) }))
            }
            // A pair stored without a digest or an order key (an older HotelKit's) is deleted and written again.
            var storedReviews: [UInt64] = []
            for try await digest in try await connection.query(
                "SELECT digest FROM match_reviews WHERE scope = \(scope) AND digest IS NOT NULL AND pair_order IS NOT NULL", logger: logger
            ).decode(Int64.self) {
                storedReviews.append(UInt64(bitPattern: digest))
            }
            let changes = match.changes(storedProperties: stored, storedReviews: storedReviews, reviewDigests: reviewDigests)
            try await connection.query("DELETE FROM properties WHERE id = ANY(\(changes.deletedProperties))", logger: logger)
            let deletedReviews = changes.deletedReviews.map { Int64(bitPattern: $0) }
            try await connection.query(
                "DELETE FROM match_reviews WHERE scope = \(scope) AND (digest IS NULL OR pair_order IS NULL OR digest = ANY(\(deletedReviews)))",
                logger: logger)
            try await Self.insertProperties(changes.insertedProperties, of: match, connection, logger: logger)
            for retired in match.retired {
                try await connection.query(
                    """
                    INSERT INTO retired_property_ids (id, successor, retired_at) VALUES (\(retired.id), \(retired.successor), \(matchedAt))
                    ON CONFLICT (id) DO UPDATE SET successor = EXCLUDED.successor, retired_at = EXCLUDED.retired_at
                    """, logger: logger)
            }
            // A few thousand pairs a statement, as arrays: a city has tens of thousands, each a round trip when sent alone.
            for start in stride(from: 0, to: changes.insertedReviews.count, by: 2_000) {
                let chunk = changes.insertedReviews[start..<min(changes.insertedReviews.count, start + 2_000)]
                let (scores, pairs) = (chunk.map { match.reviews[$0].score }, chunk.map { reviews[$0] })
                let (digests, orders) = (chunk.map { Int64(bitPattern: reviewDigests[$0]) }, chunk.map { match.reviews[$0].orderKey })
                try await connection.query(
                    """
                    INSERT INTO match_reviews (scope, score, pair, digest, pair_order)
                    SELECT \(scope), * FROM unnest(\(scores)::float8[], \(pairs)::text[], \(digests)::bigint[], \(orders)::text[])
                    """, logger: logger)
            }
            if match.properties.isEmpty {
                try await connection.query("DELETE FROM match_scopes WHERE scope = \(scope)", logger: logger)
            } else {
                try await connection.query(
                    """
                    INSERT INTO match_scopes (scope, matched_at, stamped_at, fingerprint, summary, properties, reviews)
                    VALUES (
                        \(scope), \(matchedAt), \(matchedAt), \(match.stamp?.fingerprint), \(match.stamp?.summary), \(match.properties.count),
                        \(match.reviews.count))
                    ON CONFLICT (scope) DO UPDATE SET matched_at = EXCLUDED.matched_at, stamped_at = EXCLUDED.stamped_at,
                    fingerprint = EXCLUDED.fingerprint, summary = EXCLUDED.summary, properties = EXCLUDED.properties,
                    reviews = EXCLUDED.reviews
                    """, logger: logger)
            }
            return changes
        }
    }

    /// The run's properties at `indices`, with their members.
    private static func insertProperties(_ indices: [Int], of match: ScopeMatch, _ connection: PostgresConnection, logger: Logger)
        async throws
    {
        var properties: [[String: JSONValue]] = []
        var members: [[String: JSONValue]] = []
        for index in indices {
            let property = match.properties[index]
            properties.append([
                "id": .text(property.id), "scope": .text(match.scope), "name": .optionalText(property.name),
                "city": .optionalText(property.city),
                "latitude": .optionalNumber(property.latitude), "longitude": .optionalNumber(property.longitude),
                "confidence": .text(property.confidence.rawValue), "suppliers": .integer(Int64(property.supplierCount)),
                "created_at": .number(property.createdAt.timeIntervalSince1970),
                "matched_at": .number(match.matchedAt.timeIntervalSince1970),
                "digest": .integer(Int64(bitPattern: match.propertyDigests[index])),
            ])
            for (member, key) in zip(property.members, match.memberKeys[index]) {
                members.append([
                    "property_id": .text(property.id), "scope": .text(match.scope), "profile": .text(key.supplier.profile),
                    "endpoint": .text(key.supplier.endpoint), "code": .text(key.code), "list_id": .integer(member.list),
                    "name": .optionalText(member.name),
                ])
            }
        }
        for chunk in try jsonChunks(properties) {
            try await connection.query(
                "INSERT INTO properties SELECT * FROM jsonb_populate_recordset(NULL::properties, \(chunk)::jsonb)", logger: logger)
        }
        for chunk in try jsonChunks(members) {
            try await connection.query(
                "INSERT INTO property_members SELECT * FROM jsonb_populate_recordset(NULL::property_members, \(chunk)::jsonb)",
                logger: logger)
        }
    }

    public func properties(_ query: PropertyQuery) async throws -> [CatalogueProperty] {
        let limit = query.limit.map(Int64.init)
        return try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT id, scope, name, city, latitude, longitude, confidence, created_at FROM properties
                WHERE (\(query.scope)::text IS NULL OR scope = \(query.scope)) AND suppliers >= \(query.minimumSuppliers)
                  AND (\(query.after)::text IS NULL OR id > \(query.after))
                ORDER BY id LIMIT \(limit)
                """, logger: logger)
            return try await Self.properties(rows, connection, logger: logger)
        }
    }

    public func property(id: String) async throws -> CatalogueProperty? {
        try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT id, scope, name, city, latitude, longitude, confidence, created_at FROM properties WHERE id = \(id)
                """, logger: logger)
            return try await Self.properties(rows, connection, logger: logger).first
        }
    }

    public func property(holding key: RecordKey) async throws -> CatalogueProperty? {
        try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT p.id, p.scope, p.name, p.city, p.latitude, p.longitude, p.confidence, p.created_at
                FROM properties p JOIN property_members m ON m.property_id = p.id LEFT JOIN match_scopes s ON s.scope = p.scope
                WHERE m.profile = \(key.supplier.profile) AND m.endpoint = \(key.supplier.endpoint) AND m.code = \(key.code)
                ORDER BY greatest(s.matched_at, p.matched_at) DESC LIMIT 1
                """, logger: logger)
            return try await Self.properties(rows, connection, logger: logger).first
        }
    }

    public func retiredPropertyID(_ id: String) async throws -> RetiredPropertyID? {
        try await database.reading { [logger] connection in
            let rows = try await connection.query("SELECT id, successor FROM retired_property_ids WHERE id = \(id)", logger: logger)
            for try await (id, successor) in rows.decode((String, String?).self) { return RetiredPropertyID(id: id, successor: successor) }
            return nil
        }
    }

    public func reviewPairs(scope: String?) async throws -> [ReviewPair] {
        let pairs = try await database.reading { [logger] connection in
            var pairs: [String] = []
            let rows = try await connection.query(
                """
                SELECT pair FROM match_reviews WHERE \(scope)::text IS NULL OR scope = \(scope) ORDER BY score DESC, scope, pair_order COLLATE "C"
                """, logger: logger)
            for try await pair in rows.decode(String.self) { pairs.append(pair) }
            return pairs
        }
        return try pairs.map { try JSONDecoder().decode(ReviewPair.self, from: Data($0.utf8)) }
    }

    public func decisions() async throws -> [PairDecision] {
        try await database.reading { [logger] connection in
            var decisions: [PairDecision] = []
            let rows = try await connection.query(
                """
                SELECT first_profile, first_endpoint, first_code, second_profile, second_endpoint, second_code, verdict FROM match_decisions
                """, logger: logger)
            for try await (firstProfile, firstEndpoint, firstCode, secondProfile, secondEndpoint, secondCode, verdict)
                in rows.decode((String, String, String, String, String, String, String).self)
            {
                guard let verdict = PairDecision.Verdict(rawValue: verdict),
                    let decision = PairDecision(
                        RecordKey(profile: firstProfile, endpoint: firstEndpoint, code: firstCode),
                        RecordKey(profile: secondProfile, endpoint: secondEndpoint, code: secondCode), verdict)
                else { continue }
                decisions.append(decision)
            }
            return decisions.sorted { $0.pair < $1.pair }
        }
    }

    public func recordDecision(_ decision: PairDecision, at date: Date) async throws {
        let (first, second) = (decision.pair.first, decision.pair.second)
        try await database.writingOneStatement { [logger] connection in
            try await connection.query(
                """
                INSERT INTO match_decisions (first_profile, first_endpoint, first_code, second_profile, second_endpoint, second_code, verdict, decided_at)
                VALUES (\(first.supplier.profile), \(first.supplier.endpoint), \(first.code), \(second.supplier.profile), \(second.supplier.endpoint),
                        \(second.code), \(decision.verdict.rawValue), \(date.timeIntervalSince1970))
                ON CONFLICT (first_profile, first_endpoint, first_code, second_profile, second_endpoint, second_code)
                DO UPDATE SET verdict = EXCLUDED.verdict, decided_at = EXCLUDED.decided_at
                """, logger: logger)
        }
    }

    public func logoHashes(lists: [Int64]) async throws -> [String: UInt64] {
        guard !lists.isEmpty else { return [:] }
        return try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT DISTINCT i.url, i.perceptual_hash FROM hotels h JOIN images i ON i.url = h.logo_url
                WHERE h.list_id = ANY(\(lists)) AND i.perceptual_hash IS NOT NULL
                """, logger: logger)
            var hashes: [String: UInt64] = [:]
            for try await (url, hash) in rows.decode((String, Int64).self) { hashes[url] = UInt64(bitPattern: hash) }
            return hashes
        }
    }

    public func storeLogoHashes(_ hashes: [String: UInt64]) async throws {
        guard !hashes.isEmpty else { return }
        let urls = Array(hashes.keys)
        let values = urls.map { Int64(bitPattern: hashes[$0] ?? 0) }
        try await database.writingOneStatement { [logger] connection in
            try await connection.query(
                """
                UPDATE images SET perceptual_hash = given.hash
                FROM unnest(\(urls)::text[], \(values)::bigint[]) AS given (url, hash) WHERE images.url = given.url
                """, logger: logger)
        }
    }

    /// Property rows with their members, endpoints as pages show them.
    private static func properties(_ rows: PostgresRowSequence, _ connection: PostgresConnection, logger: Logger) async throws
        -> [CatalogueProperty]
    {
        var properties: [CatalogueProperty] = []
        for try await (id, scope, name, city, latitude, longitude, confidence, createdAt)
            in rows.decode((String, String, String?, String?, Double?, Double?, String, Double).self)
        {
            properties.append(
                CatalogueProperty(
                    id: id, scope: scope, name: name, city: city, latitude: latitude, longitude: longitude,
                    confidence: ConfidenceTier(rawValue: confidence) ?? .low, members: [],
                    createdAt: Date(timeIntervalSince1970: createdAt)))
        }
        guard !properties.isEmpty else { return [] }
        let index = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.id, $0) })
        let members = try await connection.query(
            """
            SELECT property_id, list_id, profile, endpoint, code, name FROM property_members
            WHERE property_id = ANY(\(properties.map(\.id))) ORDER BY property_id, profile, endpoint, code
            """, logger: logger)
        for try await (propertyID, list, profile, endpoint, code, name) in members.decode(
            (String, Int64, String, String, String, String?).self)
        {
            guard let position = index[propertyID] else { continue }
            properties[position].members.append(
                CatalogueMember(list: list, profile: profile, endpoint: ShownURL.of(endpoint), code: code, name: name))
        }
        return properties
    }

    /// Rows as JSON arrays of at most 5,000 objects each.
    private static func jsonChunks(_ rows: [[String: JSONValue]]) throws -> [String] {
        try stride(from: 0, to: rows.count, by: 5_000).map { start in
            String(decoding: try JSONEncoder().encode(Array(rows[start..<min(rows.count, start + 5_000)])), as: UTF8.self)
        }
    }
}

/// A cell of a row sent as JSON: text, a number, or null.
enum JSONValue: Encodable {
    case text(String)
    case number(Double)
    case integer(Int64)
    case null

    static func optionalText(_ text: String?) -> JSONValue { text.map(JSONValue.text) ?? .null }
    static func optionalNumber(_ number: Double?) -> JSONValue { number.map(JSONValue.number) ?? .null }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .integer(let integer): try container.encode(integer)
        case .null: try container.encodeNil()
        }
    }
}
