import Foundation
import Hotels
import Imaging
import Logging
import OfflineStore

/// The shared store: the same lists, checkpoints and logo index as
/// ``/OfflineStore/SQLiteHotelStore``, in PostgreSQL, for many processes on many machines.
///
/// ```swift
/// let database = try await PostgresDatabase.open(try PostgresLocation(url: "postgres://hotels@db:5432/hotels"))
/// defer { Task { await database.close() } }
/// let store = PostgresHotelStore(database: database)
/// let job = ListJob(client: client, storage: store, city: "Paris")
/// ```
///
/// - Its database (``PostgresDatabase``) is opened first, and migrated; the
///   store makes its calls through the database's pool, under its deadlines.
/// - A page and its checkpoint are written together: a load-more page in
///   one statement, anything else in one transaction.
/// - Its logo index keeps each logo's bytes with its validators
///   (``/Imaging/SharedImageIndex``): a Logos `LogoPipeline` given the
///   store as its index serves the logos another machine processed, or
///   revalidates them with a 304, instead of downloading them again.
/// - Jobs live in the same database: ``JobQueue`` takes it too, and ``fenced(by:)`` writes a job's pages under its lease.
public final class PostgresHotelStore: HotelStorage, SharedImageIndex {
    /// The pool, the deadlines and the schema the store's calls go through.
    public let database: PostgresDatabase

    /// The store in `database`, which was migrated when it was opened.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// The server's URL without its password.
    public var location: String { database.location }

    var logger: Logger { database.logger }

    /// The statements of the database's field table.
    var statements: HotelStatements { database.statements }
}
