import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

/// What the store holds, and forgetting it.
extension PostgresHotelStore {
    public func stats() async throws -> StoreStats {
        let lists = try await allLists().map(StoreStats.List.init)
        let (images, imageBytes, tableBytes) = try await database.reading { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT count(*), coalesce(sum(bytes), 0)::int8,
                       pg_total_relation_size('lists') + pg_total_relation_size('hotels') + pg_total_relation_size('images')
                FROM images
                """, logger: logger)
            for try await row in rows.decode((Int, Int, Int).self) { return row }
            return (0, 0, 0)
        }
        return StoreStats(
            path: location, fileBytes: tableBytes, lists: lists, hotels: lists.reduce(0) { $0 + $1.hotels },
            images: images, imageBytes: imageBytes)
    }

    public func clear() async throws {
        try await database.writing { [logger] connection in
            try await connection.query("DELETE FROM hotels", logger: logger)
            try await connection.query("DELETE FROM lists", logger: logger)
            try await connection.query("DELETE FROM images", logger: logger)
            try await connection.query("DELETE FROM properties", logger: logger)
            try await connection.query("DELETE FROM match_reviews", logger: logger)
            try await connection.query("DELETE FROM match_scopes", logger: logger)
        }
    }
}
