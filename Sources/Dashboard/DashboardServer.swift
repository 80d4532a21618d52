import Crypto
import Foundation
import HTTP
import Hotels
import Hummingbird
import Imaging
import Logging
import Logos
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
    /// The shared store's job queue, made once; nil over SQLite.
    let queue: JobQueue<JobKind>?
    /// The browsers logged in with the token.
    let sessions: DashboardSessions
    /// Failed logins per client address.
    let throttle: LoginThrottle
    /// The logo links of the pages, and the pipelines `/logo` loads through.
    let logos: DashboardLogos
    /// The token every form that changes something carries: a page of this server shows it, another site cannot read it.
    let csrf = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()

    /// A dashboard over `runtime`'s store; refuses a configuration that would
    /// show it to a network without a token.
    public init(runtime: HotelRuntime, configuration: Configuration = Configuration()) throws(DashboardError) {
        try configuration.check()
        self.runtime = runtime
        self.configuration = configuration
        queue = runtime.sharedStore.map { JobQueue<JobKind>(database: $0.database) }
        sessions = DashboardSessions(idleLimit: configuration.sessionIdleLimit, now: configuration.now)
        throttle = LoginThrottle(now: configuration.now)
        let filter: FilterChain
        do {
            filter = try FilterChain(parsing: configuration.logoFilter)
        } catch {
            throw .badLogoFilter(error.description)
        }
        logos = DashboardLogos(runtime: runtime, filter: filter)
    }

    /// Serves until cancelled, or until the `ServiceGroup` it runs in shuts down; `onListening` gets the bound port.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        try await application(onListening: onListening).run()
    }

    /// The web application, to run (it is a service, for a `ServiceGroup`) or to test.
    public func application(onListening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "hotelkit-dashboard"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.port) },
            logger: Logger(label: "hotelkit.dashboard"))
    }

    func router() -> Router<DashboardContext> {
        let router = Router(context: DashboardContext.self)
        let access = AccessGuard(
            token: configuration.token, hosts: HostCheck(configuration: configuration), sessions: sessions,
            throttle: throttle, pause: configuration.pause, onResponse: configuration.onResponse)
        router.add(middleware: access)
        router.get("login") { _, _ in Page.login(failed: false) }
        router.post("login") { request, context in try await access.logIn(request, context: context) }
        router.post("logout") { request, _ in
            guard AccessGuard.constantTimeEqual(try await Form(request)["csrf"] ?? "", csrf) else {
                return Page.html(
                    "Refused", "<p>The form is out of date or from another site: reload the page and try again.</p>", status: .forbidden)
            }
            return access.logOut(request)
        }
        router.get("/") { _, _ in Response(status: .seeOther, headers: [.location: "/lists"]) }
        router.get("lists") { request, _ in try await listsPage(request) }
        router.get("lists/:id") { request, context in try await listPage(request, id: Self.listID(context)) }
        router.get("lists/:id/rows") { request, context in try await moreRows(request, id: Self.listID(context)) }
        router.get("queue") { request, _ in try await queuePage(request) }
        router.post("queue") { request, _ in try await queueAction(request) }
        router.get("schedules") { _, _ in try await schedulesPage() }
        propertyRoutes(router)
        router.get("logo") { request, _ in try await logo(request) }
        router.get("static/dashboard.js") { _, _ in DashboardScript.response }
        router.get("static/dashboard.css") { _, _ in DashboardStyle.stylesheet }
        router.get("static/icon.svg") { _, _ in DashboardStyle.icon }
        router.get("api/lists") { _, _ in try await JSONBody.response(runtime.storage.allLists().map(ListSummary.init)) }
        router.get("api/lists/:id/hotels") { request, context in
            try await hotelsAPI(request, id: Self.listID(context))
        }
        router.get("api/jobs") { _, _ in
            guard let queue else { return Page.notFound("the dashboard shows jobs with a shared store (--store)") }
            return try await JSONBody.response(JobsReport(queue.overview()))
        }
        router.get("api/schedules") { _, _ in
            guard let queue else { return Page.notFound("schedules live in a shared store (--store)") }
            return try await JSONBody.response(Self.staleFirst(queue.schedules().map(ScheduleReport.init)))
        }
        return router
    }

    /// The rows after `after`, `pageSize` of them, matching `q` by name; a bad number is the top.
    private func rows(_ request: Request, in list: CachedList) async throws -> (rows: ListRows, next: Int64?, limit: Int) {
        let after = try Self.query(request, "after", as: Int64.self, "a row's position, a whole number")
        let limit = min(500, max(1, try Self.query(request, "limit", as: Int.self, "a number of rows, 1 to 500") ?? configuration.pageSize))
        let rows = try await runtime.storage.rows(in: list, after: after, limit: limit, matching: search(request))
        return (rows, rows.hotels.count == limit ? rows.positions.last : nil, limit)
    }

    /// The query value `name` as a `T`, nil when it is absent; one that does not read as a `T` is the
    /// caller's mistake: 400, saying what was expected (the value itself is not echoed).
    static func query<T: LosslessStringConvertible>(_ request: Request, _ name: String, as type: T.Type, _ expected: String) throws -> T? {
        guard let text = request.uri.queryParameters.get(name) else { return nil }
        guard let value = T(String(text)) else { throw HTTPError(.badRequest, message: "\(name) must be \(expected)\n") }
        return value
    }

    static func query<T: RawRepresentable>(_ request: Request, _ name: String, as type: T.Type, _ expected: String) throws -> T?
    where T.RawValue == String {
        guard let text = request.uri.queryParameters.get(name) else { return nil }
        guard let value = T(rawValue: String(text)) else { throw HTTPError(.badRequest, message: "\(name) must be \(expected)\n") }
        return value
    }

    enum SortOrder: String { case asc, desc }

    private func search(_ request: Request) -> String? {
        request.uri.queryParameters.get("q").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every list, filtered by `q` (city, keyword, profile or endpoint host) and sorted by `sort` and `order`.
    private func listsPage(_ request: Request) async throws -> Response {
        let filter = search(request)?.lowercased()
        let columns = ListSummary.Column.allCases.map(\.rawValue).joined(separator: ", ")
        let sort = try Self.query(request, "sort", as: ListSummary.Column.self, "a column: \(columns)") ?? .fetched
        let descending = try Self.query(request, "order", as: SortOrder.self, "asc or desc").map { $0 == .desc } ?? (sort == .fetched)
        let lists = try await runtime.storage.allLists().map(ListSummary.init).filter { summary in
            filter.map {
                [summary.city, summary.keyword ?? "", summary.profile, summary.endpointHost].joined(separator: " ").lowercased().contains(
                    $0)
            }
                ?? true
        }
        let sorted = lists.sorted { descending ? sort.orders($1, before: $0) : sort.orders($0, before: $1) }
        return Page.lists(sorted, search: filter ?? "", sort: sort, descending: descending, logout: configuration.token == nil ? nil : csrf)
    }

    /// One list's page: it and its rows are read by id and position alone, never the other lists.
    private func listPage(_ request: Request, id: Int64) async throws -> Response {
        guard let list = try await runtime.storage.list(id: id) else { return Page.notFound("no such list") }
        let (rows, next, limit) = try await rows(request, in: list)
        return Page.list(
            ListSummary(list), rows: rows, search: search(request) ?? "", next: next,
            more: next.map { moreRowsURL(list: list.id, after: $0, limit: limit, request) }, logo: { logos.link($0, list: list.id) })
    }

    /// The rows after `after`, rendered as the page renders its own, for the page's script to insert.
    private func moreRows(_ request: Request, id: Int64) async throws -> Response {
        guard let list = try await runtime.storage.list(id: id) else { return Page.notFound("no such list") }
        let (rows, next, limit) = try await rows(request, in: list)
        return Page.moreRows(
            rows, more: next.map { moreRowsURL(list: list.id, after: $0, limit: limit, request) },
            logo: { logos.link($0, list: list.id) })
    }

    /// `/lists/ID/rows?after=…&limit=…&q=…`: the next rows, keeping the limit and search asked for.
    private func moreRowsURL(list: Int64, after: Int64, limit: Int, _ request: Request) -> String {
        "/lists/\(list)/rows?after=\(after)&limit=\(limit)" + (search(request).map { "&q=" + Page.queryEscaped($0) } ?? "")
    }

    private func hotelsAPI(_ request: Request, id: Int64) async throws -> Response {
        guard let list = try await runtime.storage.list(id: id) else { return Page.notFound("no such list") }
        let (rows, next, limit) = try await rows(request, in: list)
        var nextURL: String?
        if let next {
            nextURL =
                "/api/lists/\(list.id)/hotels?after=\(next)&limit=\(limit)" + (search(request).map { "&q=" + Page.queryEscaped($0) } ?? "")
        }
        return JSONBody.hotels(rows.hotels, next: nextURL)
    }

    private func queuePage(_ request: Request) async throws -> Response {
        guard let queue else { return Page.needsSharedStore("Queue", "The job queue lives") }
        let said = request.uri.queryParameters.get("said").map { String($0) }
        return Page.queue(
            JobsReport(try await queue.overview()), csrf: csrf, said: said,
            partOnly: request.uri.queryParameters.get("part") == "main")
    }

    /// A button of the queue page: what the matching `hotels jobs` command does, then back to the page, saying what happened.
    private func queueAction(_ request: Request) async throws -> Response {
        guard let queue else { return Page.needsSharedStore("Queue", "The job queue lives") }
        let form = try await Form(request)
        guard AccessGuard.constantTimeEqual(form["csrf"] ?? "", csrf) else {
            return Page.html(
                "Refused", "<p>The form is out of date or from another site: reload the queue and try again.</p>", status: .forbidden)
        }
        let id = form["id"].flatMap { Int64($0) }
        let kinds = form["kind"].flatMap(JobKind.init(rawValue:)).map { [$0] } ?? JobKind.allCases
        let action: JobAction? =
            switch form["action"] {
            case "retry": id.map { .retry($0) }
            case "retry-dead": .retryDead
            case "cancel": id.map { .cancel($0) }
            case "pause": .pause(kinds)
            case "resume": .resume(kinds)
            default: nil
            }
        guard let action else { return Page.html("Refused", "<p>No such action.</p>", status: .badRequest) }
        let said = try await action.perform(on: queue)
        return Response(status: .seeOther, headers: [.location: "/queue?said=" + Page.queryEscaped(said)])
    }

    private func schedulesPage() async throws -> Response {
        guard let queue else { return Page.needsSharedStore("Schedules", "Schedules live") }
        return Page.schedules(Self.staleFirst(try await queue.schedules().map(ScheduleReport.init)))
    }

    /// The list's id in the path: a whole number, or 400.
    static func listID(_ context: DashboardContext) throws -> Int64 {
        guard let id = context.parameters.get("id", as: Int64.self) else {
            throw HTTPError(.badRequest, message: "a list's id is a whole number: /lists/ID\n")
        }
        return id
    }

    static func staleFirst(_ schedules: [ScheduleReport]) -> [ScheduleReport] {
        schedules.sorted { ($0.stale ? 0 : 1, $0.next) < ($1.stale ? 0 : 1, $1.next) }
    }

    /// A row's logo under ``Configuration/logoFilter``, for a link a page of this dashboard gave
    /// (``DashboardLogos``): from the caches or the store's logo index, or fetched now through the logo
    /// pipeline's window scheduler. A browser that aborts (the row left the view) closes the connection,
    /// which cancels the transfer; the access log says `cancelled`. Offline, the index only. Revalidated
    /// by `ETag` on every use.
    private func logo(_ request: Request) async throws -> Response {
        let notFound = Response(status: .notFound, headers: [.cacheControl: "no-store"])
        guard let url = request.uri.queryParameters.get("url").map({ String($0) }),
            let listID = request.uri.queryParameters.get("list").flatMap({ Int64($0) }),
            let signature = request.uri.queryParameters.get("sig").map({ String($0) }),
            logos.verifies(signature, url: url, list: listID),
            let list = try await runtime.storage.list(id: listID)
        else {
            return notFound
        }
        let bytes: [UInt8]
        if configuration.offline {
            guard let stored = try await runtime.storage.logoData(url: url, filter: configuration.logoFilter) else { return notFound }
            bytes = stored
        } else {
            do {
                bytes = try await request.body.consumeWithCancellationOnInboundClose { [logos] _ in try await logos.data(url, list: list) }
            } catch is CancellationError, LogoError.cancelled, TransportError.cancelled {
                return Response(status: .clientClosedRequest)
            } catch TransportError.refusedAddress {
                return Response(status: .forbidden, headers: [.cacheControl: "no-store"])
            } catch {
                return Response(status: .badGateway, headers: [.cacheControl: "no-store"])
            }
        }
        let tag = "\"" + SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        let headers: HTTPFields = [.eTag: tag, .cacheControl: "no-cache"]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag }) == true
        {
            return Response(status: .notModified, headers: headers)
        }
        var withType = headers
        withType[.contentType] = (try? ImageFormat.detect(bytes)) == .png ? "image/png" : "image/jpeg"
        return Response(status: .ok, headers: withType, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// A list as the lists page and `/api/lists` show it.
struct ListSummary: Encodable, Sendable {
    var id: Int64
    var city: String
    var profile: String
    var endpoint: String
    var keyword: String?
    /// A search by position: `48.8566,2.3522 within 5 km`.
    var near: String?
    var rows: Int
    var fetchedAt: Date
    /// The service said the list has ended.
    var complete: Bool

    init(_ list: CachedList) {
        id = list.id
        city = list.key.city
        profile = list.key.profile
        endpoint = list.key.shownEndpoint
        keyword = list.key.keyword.isEmpty ? nil : list.key.keyword
        near = list.key.area.map { "\($0.latitude),\($0.longitude) within \($0.radius) km" }
        rows = list.count
        fetchedAt = list.fetchedAt
        complete = list.isExhausted
    }

    var endpointHost: String { URL(string: endpoint)?.host ?? endpoint }

    /// The lists page's columns, each sortable.
    enum Column: String, CaseIterable {
        case city, profile, endpoint, rows, fetched, state

        var heading: String {
            switch self {
            case .city: "City"
            case .profile: "Profile"
            case .endpoint: "Endpoint"
            case .rows: "Rows"
            case .fetched: "Last fetched"
            case .state: "State"
            }
        }

        func orders(_ a: ListSummary, before b: ListSummary) -> Bool {
            switch self {
            case .city: (a.city, a.id) < (b.city, b.id)
            case .profile: (a.profile, a.id) < (b.profile, b.id)
            case .endpoint: (a.endpointHost, a.id) < (b.endpointHost, b.id)
            case .rows: (a.rows, a.id) < (b.rows, b.id)
            case .fetched: (a.fetchedAt, a.id) < (b.fetchedAt, b.id)
            case .state: (a.complete ? 1 : 0, a.id) < (b.complete ? 1 : 0, b.id)
            }
        }
    }
}
