import Foundation
import Hotels
import Hummingbird
import Logging
import OfflineStore
import PostgresStore
import Runtime
import Workers

/// `hotels dashboard`: the store's lists, one list's hotels, and the shared
/// store's queue, in a browser and as JSON under `/api/`.
///
/// Pages are server-rendered HTML that read without a script: a list's page
/// links to the next page of rows, keyset-paginated, so page 2,000 of a long
/// list costs what page 1 costs. Every page is sent with a strict
/// Content-Security-Policy; everything a supplier wrote is escaped.
public struct DashboardServer: Sendable {
    public let runtime: HotelRuntime
    public let configuration: Configuration

    /// A dashboard over `runtime`'s store; refuses a configuration that would
    /// show it to a network without a token.
    public init(runtime: HotelRuntime, configuration: Configuration = Configuration()) throws(DashboardError) {
        try configuration.check()
        self.runtime = runtime
        self.configuration = configuration
    }

    /// Serves until cancelled; `onListening` gets the bound port.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        try await application(onListening: onListening).runService(gracefulShutdownSignals: [])
    }

    /// The web application, to run or to test.
    public func application(onListening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
        Application(router: router(), configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                                           serverName: "hotelkit-dashboard"),
                    onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.port) },
                    logger: Logger(label: "hotelkit.dashboard"))
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessGuard(token: configuration.token))
        router.get("login") { _, _ in Page.login(failed: false) }
        router.post("login") { request, _ in try await AccessGuard.logIn(request, token: configuration.token) }
        router.get("/") { _, _ in Response(status: .seeOther, headers: [.location: "/lists"]) }
        router.get("lists") { request, _ in try await listsPage(request) }
        router.get("lists/:id") { request, context in try await listPage(request, id: context.parameters.get("id", as: Int64.self)) }
        router.get("queue") { _, _ in try await queuePage() }
        router.get("api/lists") { _, _ in try await JSONBody.response(runtime.storage.allLists().map(ListSummary.init)) }
        router.get("api/lists/:id/hotels") { request, context in
            try await hotelsAPI(request, id: context.parameters.get("id", as: Int64.self))
        }
        router.get("api/jobs") { _, _ in
            guard let queue else { return Page.notFound("the dashboard shows jobs with a shared store (--store)") }
            return try await JSONBody.response(JobsReport(queue.overview()))
        }
        return router
    }

    private var queue: JobQueue? { runtime.sharedStore.map { JobQueue(store: $0) } }

    /// The rows after `after`, `pageSize` of them, matching `q` by name; a bad number is the top.
    private func rows(_ request: Request, in list: CachedList) async throws -> (rows: ListRows, next: Int64?) {
        let after = request.uri.queryParameters.get("after", as: Int64.self)
        let limit = min(500, max(1, request.uri.queryParameters.get("limit", as: Int.self) ?? configuration.pageSize))
        let rows = try await runtime.storage.rows(in: list, after: after, limit: limit, matching: search(request))
        return (rows, rows.hotels.count == limit ? rows.positions.last : nil)
    }

    private func search(_ request: Request) -> String? {
        request.uri.queryParameters.get("q").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private func list(_ id: Int64?) async throws -> CachedList? {
        guard let id else { return nil }
        return try await runtime.storage.allLists().first { $0.id == id }
    }

    private func listsPage(_ request: Request) async throws -> Response {
        let filter = search(request)?.lowercased()
        let lists = try await runtime.storage.allLists().map(ListSummary.init).filter { summary in
            filter.map { [summary.city, summary.profile, summary.endpointHost].joined(separator: " ").lowercased().contains($0) } ?? true
        }
        return Page.lists(lists, search: filter ?? "", hasQueue: queue != nil)
    }

    private func listPage(_ request: Request, id: Int64?) async throws -> Response {
        guard let list = try await list(id) else { return Page.notFound("no such list") }
        let (rows, next) = try await rows(request, in: list)
        return Page.list(ListSummary(list), rows: rows, search: search(request) ?? "", next: next)
    }

    private func hotelsAPI(_ request: Request, id: Int64?) async throws -> Response {
        guard let list = try await list(id) else { return Page.notFound("no such list") }
        let (rows, next) = try await rows(request, in: list)
        var nextURL: String?
        if let next {
            nextURL = "/api/lists/\(list.id)/hotels?after=\(next)" + (search(request).map { "&q=" + Page.queryEscaped($0) } ?? "")
        }
        return JSONBody.hotels(rows.hotels, next: nextURL)
    }

    private func queuePage() async throws -> Response {
        guard let queue else { return Page.notFound("the queue is in a shared store: start the dashboard with --store") }
        return Page.queue(JobsReport(try await queue.overview()))
    }
}

/// A list as the lists page and `/api/lists` show it.
struct ListSummary: Encodable, Sendable {
    var id: Int64
    var city: String
    var profile: String
    var endpoint: String
    var keyword: String?
    var rows: Int
    var fetchedAt: Date
    /// The service said the list has ended.
    var complete: Bool

    init(_ list: CachedList) {
        id = list.id
        city = list.key.city
        profile = list.key.profile
        endpoint = list.key.endpoint
        keyword = list.key.keyword.isEmpty ? nil : list.key.keyword
        rows = list.count
        fetchedAt = list.fetchedAt
        complete = list.isExhausted
    }

    var endpointHost: String { URL(string: endpoint)?.host ?? endpoint }
}
