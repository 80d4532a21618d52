import Foundation
import Hotels
import Imaging
import Logging
import NIOCore
import OfflineStore
import PostgresNIO

extension PostgresHotelStore {
    /// The store's lists as a job's run writes them: each page, with its
    /// checkpoint, in one transaction that also checks the job's lease.
    /// Once another worker has claimed the job (or it was cancelled), a
    /// write fails with ``/OfflineStore/StoreError/Kind-swift.enum/leaseLost``
    /// and changes nothing: a worker that stalled past its lease cannot
    /// overwrite what its successor wrote.
    public func fenced(by lease: JobLease) -> FencedListStorage {
        FencedListStorage(store: self, lease: lease)
    }
}

/// A ``PostgresHotelStore``'s lists, written only while a job's lease holds: ``PostgresHotelStore/fenced(by:)``.
public struct FencedListStorage: ListStorage {
    public let store: PostgresHotelStore
    public let lease: JobLease

    public func cachedList(_ key: ListKey) async throws -> CachedList? {
        try await store.cachedList(key)
    }

    public func hotels(in list: CachedList, limit: Int?) async throws -> [Hotel] {
        try await store.hotels(in: list, limit: limit)
    }

    public func forEachBatch(in list: CachedList, batchSize: Int, _ body: ([Hotel]) async throws -> Void) async throws {
        try await store.forEachBatch(in: list, batchSize: batchSize, body)
    }

    public func mergeFirstPage(_ page: [Hotel], into key: ListKey, checkpoint: Pager.Checkpoint, now: Date) async throws -> MergeResult {
        try await store.database.writing {
            [lease, logger = store.logger, location = store.location, statements = store.statements] connection in
            try await PostgresHotelStore.checkLease(lease, connection, logger: logger, location: location)
            return try await PostgresHotelStore.merge(
                page, into: key, checkpoint: checkpoint, now: now, statements, connection, logger: logger)
        }
    }

    public func appendPage(_ page: [Hotel], to key: ListKey, checkpoint: Pager.Checkpoint, now: Date) async throws -> Int {
        if let added = try await store.appendAtOnce(page, to: key, checkpoint: checkpoint, now: now, lease: lease) { return added }
        return try await store.database.writing {
            [lease, logger = store.logger, location = store.location, statements = store.statements] connection in
            try await PostgresHotelStore.checkLease(lease, connection, logger: logger, location: location)
            return try await PostgresHotelStore.append(
                page, to: key, checkpoint: checkpoint, now: now, statements, connection, logger: logger)
        }
    }
}
