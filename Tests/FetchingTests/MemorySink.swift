import Fetching
import Foundation
import Hotels
import Locking
import OfflineStore

/// Keeps what a job delivers in memory.
final class MemorySink: ListSink {
    /// What the sink has seen, in order.
    struct Contents: Sendable, Equatable {
        /// The rows shown from the cache before the network was asked.
        var cached: [Hotel] = []
        /// Each stored page's rows, with what storing it did.
        var pages: [(hotels: [Hotel], change: PageChange)] = []
        /// Logos by hotel code; a logo saved twice keeps the last.
        var logos: [String: LogoFile] = [:]
        /// The whole list at the end, or nil before it.
        var list: [Hotel]?

        static func == (lhs: Contents, rhs: Contents) -> Bool {
            lhs.cached == rhs.cached && lhs.logos == rhs.logos && lhs.list == rhs.list
                && lhs.pages.map(\.hotels) == rhs.pages.map(\.hotels) && lhs.pages.map(\.change) == rhs.pages.map(\.change)
        }
    }

    private let state = PosixMutex(Contents())

    init() {}

    var contents: Contents { state.withLock { $0 } }

    func open() async throws {}

    func showCached(_ list: CachedList, from storage: any ListStorage) async throws {
        let rows = try await storage.hotels(in: list, limit: nil)
        state.withLock { $0.cached = rows }
    }

    func pageStored(_ page: FetchedPage, _ change: PageChange) async throws {
        state.withLock { $0.pages.append((page.hotels, change)) }
    }

    func saveLogo(_ logo: LogoFile) async throws {
        state.withLock { $0.logos[logo.code] = logo }
    }

    func finish(_ list: CachedList, from storage: any ListStorage) async throws {
        let rows = try await storage.hotels(in: list, limit: nil)
        state.withLock { $0.list = rows }
    }
}
