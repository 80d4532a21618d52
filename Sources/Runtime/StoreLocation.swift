import Foundation
import Hotels
import Logging
import OfflineStore
import PostgresStore

/// Where a ``HotelRuntime`` keeps its lists and its logo index.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// `hotels.sqlite` in a folder: SQLite, for the processes of one host.
    case folder(URL)
    /// A shared PostgreSQL store, for any number of processes on any hosts.
    case shared(PostgresLocation)
    /// Nothing outlives the process: every run starts cold.
    case inMemory

    /// `postgres://…` (or `postgresql://…`) is a shared store; anything else is a folder's path.
    /// A malformed URL throws ``/OfflineStore/StoreError`` with its password masked.
    public init(_ text: String) throws(StoreError) {
        let scheme = text.prefix(while: { $0 != ":" }).lowercased()
        if text.contains("://"), scheme == "postgres" || scheme == "postgresql" {
            self = .shared(try PostgresLocation(url: text))
        } else {
            self = .folder(URL(fileURLWithPath: text))
        }
    }

    /// Fit to print: a folder's path, or a URL without its password.
    public var description: String {
        switch self {
        case .folder(let folder): folder.path
        case .shared(let location): location.description
        case .inMemory: ":memory:"
        }
    }

    /// Opens (or creates) the store, keeping `fields`; a SQLite file that had to be moved aside is logged as a warning.
    func open(fields: HotelFieldTable = .standard, logger: Logger) async throws -> OpenedStore {
        switch self {
        case .folder(let folder):
            let store = try SQLiteHotelStore(folder: folder, fields: fields)
            for warning in store.warnings { logger.warning("\(warning)") }
            return .embedded(store)
        case .shared(let location):
            return .shared(PostgresHotelStore(database: try await PostgresDatabase.open(location, fields: fields)))
        case .inMemory:
            return .embedded(try SQLiteHotelStore.inMemory(fields: fields))
        }
    }
}

/// The store a runtime opened: SQLite's, embedded in the process, the
/// shared PostgreSQL one, or a store of your own. Which it is is known when it
/// is opened, so what only one kind can do (a shared store's queue, SQLite's
/// vacuum and integrity check) is reached through this, never by a downcast.
public enum OpenedStore: Sendable {
    case embedded(SQLiteHotelStore)
    case shared(PostgresHotelStore)
    /// Any other ``/OfflineStore/HotelStorage``: lists, logos and matching
    /// work on it; jobs and workers need a shared store.
    case custom(any HotelStorage)

    /// The store, as every list, logo and catalogue call takes it.
    public var storage: any HotelStorage {
        switch self {
        case .embedded(let store): store
        case .shared(let store): store
        case .custom(let store): store
        }
    }
}
