import Fetching
import Foundation
import HTTP
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import PostgresStore

/// What a run needs, assembled once: the store, one HTTP transport, a client
/// per service, a logo pipeline per filter chain, and lists run through them.
/// `hotels fetch`, `browse`, `simulate`, `call` and `worker` are each one of these.
///
/// ```swift
/// let runtime = try await HotelRuntime.open(.init(store: try StoreLocation("postgres://hotels@db/hotels")))
/// let client = try runtime.client(profile: try .named("sample"), endpoint: "http://127.0.0.1:8080/soap")
/// let summary = try await runtime.listJob(client, city: "Paris", logos: FilterChain()).run()
/// await runtime.close()
/// ```
///
/// Every stage can still be replaced: pass a fake ``Configuration/httpClient``,
/// or build ``/Fetching/ListJob`` yourself from ``storage`` and a client.
public final class HotelRuntime: Sendable {
    public let configuration: Configuration
    /// The lists and the logo index.
    /// The store, and which kind it is.
    public let store: OpenedStore
    /// The one transport of every client and logo pipeline.
    public let http: any HTTPClient
    /// The clients made so far, one per profile and endpoint, so the lists of one service share its sessions.
    private let clients = PosixMutex<[(profile: ServiceProfile, endpoint: String, client: HotelClient)]>([])
    /// The pipelines made so far, by filter chain.
    private let pipelines = PosixMutex<[String: LogoPipeline]>([:])
    /// Opened when logos are first asked for; nil inside when it cannot be used.
    private let diskCache = PosixMutex<DiskImageCache??>(nil)

    /// Opens the store (creating a SQLite one) and makes the transport.
    public static func open(_ configuration: Configuration = Configuration()) async throws -> HotelRuntime {
        HotelRuntime(
            store: try await configuration.store.open(fields: configuration.fields, logger: configuration.logger),
            configuration: configuration)
    }

    /// A runtime on a store already open: a test's, or one of your own.
    public init(store: OpenedStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        http = configuration.httpClient ?? HTTPTransport(configuration: configuration.transport)
    }

    /// A runtime on a SQLite store already open.
    public convenience init(storage: SQLiteHotelStore, configuration: Configuration = Configuration()) {
        self.init(store: .embedded(storage), configuration: configuration)
    }

    /// A runtime on a shared store already open.
    public convenience init(storage: PostgresHotelStore, configuration: Configuration = Configuration()) {
        self.init(store: .shared(storage), configuration: configuration)
    }

    /// A runtime on a store of your own (``OpenedStore/custom(_:)``).
    public convenience init(storage: any HotelStorage, configuration: Configuration = Configuration()) {
        self.init(store: .custom(storage), configuration: configuration)
    }

    /// The store, as every list, logo and catalogue call takes it.
    public var storage: any HotelStorage { store.storage }

    /// Matching through the runtime's store: properties, reviews and decisions.
    public var catalogue: Catalogue { Catalogue(storage: storage, memory: configuration.matchMemory) }

    /// The shared store, when the runtime's store is one: what workers and their jobs need (a job queue
    /// takes its ``/PostgresStore/PostgresHotelStore/database``, so the two share one pool).
    public var sharedStore: PostgresHotelStore? {
        if case .shared(let store) = store { store } else { nil }
    }

    /// The SQLite store, when the runtime's store is one: what its vacuum and integrity check need.
    public var embeddedStore: SQLiteHotelStore? {
        if case .embedded(let store) = store { store } else { nil }
    }

    /// The client of `profile` at `endpoint`: made the first time, with the
    /// runtime's credentials, and shared afterwards. Throws when a credential
    /// the profile uses is not set (``/Hotels/MissingCredentialsError``).
    public func client(profile: ServiceProfile, endpoint: String) throws -> HotelClient {
        func made(_ clients: [(profile: ServiceProfile, endpoint: String, client: HotelClient)]) -> HotelClient? {
            clients.first { $0.profile == profile && $0.endpoint == endpoint }?.client
        }
        if let made = clients.withLock({ made($0) }) { return made }
        let client = HotelClient(profile: profile, endpoint: endpoint, configuration: configuration.clientConfiguration(transport: http))
        try client.requests.checkCredentials()
        // Another caller may have made it meanwhile: one client per service, so its sessions are shared.
        return clients.withLock { clients in
            if let made = made(clients) { return made }
            clients.append((profile, endpoint, client))
            return client
        }
    }

    /// The processed logo files on this host, or nil when there are none (or
    /// the folder cannot be used, which is logged once).
    public var logoCache: DiskImageCache? {
        diskCache.withLock { opened in
            if let opened { return opened }
            var cache: DiskImageCache?
            if let folder = configuration.logoFolder {
                do {
                    cache = try DiskImageCache(directory: folder)
                } catch {
                    configuration.logger.warning("logo cache unavailable, going on without it: \(error)")
                }
            }
            opened = .some(cache)
            return cache
        }
    }

    /// The logo pipeline for `filter`, with the store as its index: made the
    /// first time, shared afterwards, so a logo is fetched once per run.
    public func logos(filter: FilterChain) -> LogoPipeline {
        if let made = pipelines.withLock({ $0[filter.description] }) { return made }
        let pipeline = makeLogos(filter: filter)
        return pipelines.withLock { pipelines in
            if let made = pipelines[filter.description] { return made }
            pipelines[filter.description] = pipeline
            return pipeline
        }
    }

    /// Logos under `filter`, each from a pipeline chosen by where its list's service is (``SupplierLogos``).
    public func supplierLogos(filter: FilterChain) -> SupplierLogos {
        SupplierLogos(publicOnly: makeLogos(filter: filter, addressRule: .publicOnly), anyAddress: logos(filter: filter))
    }

    /// Logos as their suppliers sent them (no filter): what matching hashes.
    public var originalLogos: SupplierLogos { supplierLogos(filter: FilterChain()) }

    /// A logo pipeline of its own: for a view with its own memory budget, one
    /// that watches every transfer (a simulation's recorder), or one whose
    /// transfers may reach public addresses only (a dashboard's, for lists
    /// whose service is not on this machine's network).
    public func makeLogos(
        filter: FilterChain, memoryCacheLimit: Int? = nil, addressRule: AddressRule = .any,
        observe: @escaping @Sendable (LogoPipelineEvent) -> Void = { _ in }
    ) -> LogoPipeline {
        var transport = configuration.transport
        transport.addressRule = addressRule
        // A client given in the configuration (a test's fake) opens no connection of its own: it has no rule to keep.
        let client = addressRule == .any || configuration.httpClient != nil ? http : HTTPTransport(configuration: transport)
        return LogoPipeline(
            configuration: LogoPipeline.Configuration(
                transport: HTTPLogoTransport(client: client), filter: filter,
                memoryCache: memoryCacheLimit.map { MemoryImageCache(costLimit: $0) } ?? MemoryImageCache(), diskCache: logoCache,
                index: storage, downloadConcurrency: configuration.logoConcurrency, logger: configuration.logger, observe: observe))
    }

    /// One list through the runtime's store, with its logos through the
    /// pipeline for `logos` (nil: no logos).
    /// - Parameters:
    ///   - client: The service's client, from ``client(profile:endpoint:)``.
    ///   - city: The city asked for.
    ///   - keyword: A keyword the search is narrowed by, part of the list's key.
    ///   - area: A search by position, part of the list's key.
    ///   - options: The page size, the pages to fetch at most, and how a cached list is used.
    ///   - filter: The filter chain of the list's logos; nil: no logos.
    ///   - sink: Where the rows and logos go besides the store.
    ///   - storage: Instead of the runtime's store: a worker's fenced view of it.
    public func listJob(
        _ client: HotelClient, city: String, keyword: String? = nil, area: SearchArea? = nil,
        options: ListSync.Options = ListSync.Options(readAhead: true), logos filter: FilterChain? = nil,
        sink: any ListSink = StoreOnlySink(), storage: (any ListStorage)? = nil
    ) -> ListJob {
        ListJob(
            client: client, storage: storage ?? self.storage, city: city, keyword: keyword, area: area, options: options,
            logos: filter.map(logos(filter:)), sink: sink)
    }

    /// Runs `body` for each of `items`, `parallel` at once (several lists,
    /// sharing the runtime's clients and pipelines); the results in the order given.
    public func forEach<Item: Sendable, Result: Sendable>(
        _ items: [Item], parallel: Int,
        _ body: @escaping @Sendable (Item) async -> Result
    ) async -> [Result] {
        await Self.forEach(items, parallel: parallel, body)
    }

    /// ``forEach(_:parallel:_:)`` for work that needs no runtime (the logo stage of a match).
    static func forEach<Item: Sendable, Result: Sendable>(
        _ items: [Item], parallel: Int,
        _ body: @escaping @Sendable (Item) async -> Result
    ) async -> [Result] {
        await withTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: items.count)
            var next = 0
            func start(_ group: inout TaskGroup<(Int, Result)>) {
                let (index, item) = (next, items[next])
                next += 1
                group.addTask { (index, await body(item)) }
            }
            while next < min(max(1, parallel), items.count) { start(&group) }
            for await (index, result) in group {
                results[index] = result
                if next < items.count { start(&group) }
            }
            return results.compactMap { $0 }
        }
    }

    /// Logs out every client's sessions and waits for the logo index's last
    /// notes; the store stays open (a worker still signs off through it).
    public func endSessions() async {
        for client in clients.withLock({ made in
            defer { made = [] }
            return made.map(\.client)
        }) { await client.close() }
        for pipeline in pipelines.withLock({ Array($0.values) }) { await pipeline.indexWritten() }
    }

    /// ``endSessions()``, then closes a shared store's database: its pool's connections. Call it once, at the end.
    public func close() async {
        await endSessions()
        await sharedStore?.database.close()
    }
}
