import Foundation

extension PostgresSchema {
    /// What `hotels store migrate` and `hotels store status` print, as a line or as JSON.
    public struct Report: Sendable, Encodable, CustomStringConvertible {
        public var store: String
        public var version: Int
        public var latestKnown: Int
        public var applied: [String]
        public var pending: [String]
        public var newer: Bool
        /// Made by a migration (what it applied), not read as a status.
        private var migrated = false

        private enum CodingKeys: String, CodingKey { case store, version, latestKnown, applied, pending, newer }

        /// After opening (and so migrating) a database: the migrations it applied.
        public init(migrated database: PostgresDatabase) {
            store = database.location
            version = PostgresSchema.latestVersion
            latestKnown = version
            applied = database.appliedMigrations.map { "\($0.version): \($0.name)" }
            pending = []
            newer = false
            migrated = true
        }

        public init(_ status: Status, store: String) {
            self.store = store
            version = status.version
            latestKnown = status.latestKnown
            applied = status.applied.map { "\($0.version): \($0.name)" }
            pending = status.pending.map { "\($0.version): \($0.name)" }
            newer = status.isNewer
        }

        public var description: String {
            if migrated {
                return "\(store): " + (applied.isEmpty ? "up to date" : "applied " + applied.joined(separator: ", "))
                    + "; schema version \(version)"
            }
            return "\(store): schema version \(version) (this HotelKit knows up to \(latestKnown))"
                + (newer ? "; written by a newer HotelKit" : "")
                + (pending.isEmpty ? "" : "; pending: " + pending.joined(separator: ", "))
        }
    }
}
