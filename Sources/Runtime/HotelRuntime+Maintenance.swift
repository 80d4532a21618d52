import OfflineStore

extension HotelRuntime {
    /// What is damaged, a line each: SQLite's integrity check of the store
    /// (a shared store is checked by PostgreSQL itself), and every logo file's
    /// length and SHA-256. Empty when everything is sound: `hotels cache check`.
    public func damage() throws -> [String] {
        let store = try embeddedStore?.integrityCheck() ?? "ok"
        return (store == "ok" ? [] : ["store: \(store)"]) + (logoCache?.damagedEntries() ?? []).map { "damaged logo entry: \($0)" }
    }

    /// Forgets every list, logo index entry and logo file: `hotels cache clear`.
    public func clear() async throws {
        try await storage.clear()
        try logoCache?.removeAll()
    }
}
