import Dashboard
import Fetching
import Foundation
import HTTP
import HTTPTypes
import Hotels
import Hummingbird
import HummingbirdTesting
import Imaging
import Locking
import OfflineStore
import Runtime
import SampleService
import TestSupport
import Testing

/// `/logo` when the caches lack a row's logo: fetched live through the logo pipeline, only for links the
/// dashboard gave, never to this machine's network for a supplier elsewhere, and cancelled with its row.
@Suite("hotels dashboard: live logos")
struct DashboardLogoTests {
    /// The `/logo` links of a page's rows, as a browser reads them from `data-logo`.
    static func logoLinks(in page: String) -> [String] {
        page.matches(of: /data-logo="([^"]+)"/).map { String($0.1).replacing("&amp;", with: "&") }
    }

    /// A runtime on a new SQLite folder with one Paris list from `endpoint`, a hotel per logo URL.
    static func runtime(endpoint: String, logos: [String]) async throws -> (HotelRuntime, CachedList) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-logos-\(UUID().uuidString)")
        let runtime = try await HotelRuntime.open(.init(store: .folder(folder)))
        let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)
        let hotels = logos.enumerated().map { Hotel(code: "H\($0.offset)", name: "Hotel \($0.offset)", logoURL: $0.element) }
        _ = try await runtime.storage.mergeFirstPage(
            hotels, into: ListKey(profile: "sample", endpoint: endpoint, city: "Paris"),
            checkpoint: checkpoint, now: Date())
        return (runtime, try #require(try await runtime.storage.allLists().first))
    }

    static func png() throws -> [UInt8] {
        try ImageEncoding.png().encode(RGBAImage(width: 8, height: 8, pixels: [UInt8](repeating: 200, count: 256)))
    }

    @Test(
        "a logo the caches lack is fetched when its row asks, then served from the cache; a link the dashboard did not give, or altered, is 404 and fetches nothing"
    )
    func fetchedLive() async throws {
        let png = try Self.png()
        let service = try ScriptedHTTPServer { _, connection in
            connection.respond(status: 200, headers: ["Content-Type": "image/png", "Cache-Control": "max-age=3600"], body: png)
        }
        defer { service.stop() }
        // The list's own service is on loopback, so its logos there may be fetched.
        let (runtime, list) = try await Self.runtime(endpoint: service.url + "/soap", logos: [service.url + "/logos/a.png"])
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/lists/\(list.id)", method: .get) { String(buffer: $0.body) }
            let link = try #require(Self.logoLinks(in: page).first)
            for _ in 0..<2 {
                try await client.execute(uri: link, method: .get) { response in
                    #expect(response.status == .ok && Array(buffer: response.body) == png && response.headers[.eTag] != nil)
                }
            }
            #expect(service.requests.count == 1, "the second from the cache")
            let altered = [
                link.replacing("a%2Epng", with: "b%2Epng"),  // another URL under the signature
                link.replacing("list=\(list.id)", with: "list=\(list.id + 1)"),  // another list
                String(link.prefix { $0 != "&" }) + "&url="
                    + (service.url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),  // no signature
                "/logo?list=\(list.id)&url=file%3A%2F%2F%2Fetc%2Fpasswd&sig=00",
            ]
            for uri in altered {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .notFound, "\(uri)") }
            }
        }
        #expect(service.requests.count == 1)
        await runtime.close()
    }

    @Test(
        "a supplier's data cannot make the dashboard reach this machine or the metadata service: for a list whose service is elsewhere, loopback, link-local and private logos are refused (403) and nothing connects"
    )
    func privateAddressesRefused() async throws {
        let service = try ScriptedHTTPServer { _, connection in connection.respond(status: 200, contentType: "image/png", body: "") }
        defer { service.stop() }
        let logos = [
            service.url + "/logos/a.png", "http://localhost:\(service.port)/b.png", "http://[::1]:\(service.port)/c.png",
            "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/d.png", "http://[::ffff:127.0.0.1]:\(service.port)/e.png",
        ]
        // `.invalid` never resolves: the list's service is not on this machine's network.
        let (runtime, list) = try await Self.runtime(endpoint: "http://supplier.invalid/soap", logos: logos)
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/lists/\(list.id)", method: .get) { String(buffer: $0.body) }
            let links = Self.logoLinks(in: page)
            #expect(links.count == logos.count)
            for link in links {
                try await client.execute(uri: link, method: .get) { #expect($0.status == .forbidden, "\(link)") }
            }
        }
        #expect(service.connectionCount == 0)
        await runtime.close()
    }

    @Test(
        "a browser that gives up on a logo (its row left the view) cancels the transfer: the logo service sees the dashboard hang up, and the access log says cancelled"
    )
    func abortedRowCancelsTheTransfer() async throws {
        let arrived = AsyncStream<Void>.makeStream()
        let hungUp = AsyncStream<Bool>.makeStream()
        let service = try ScriptedHTTPServer { _, connection in
            arrived.continuation.yield()
            hungUp.continuation.yield(connection.waitForClientClose(seconds: 60))
        }
        defer { service.stop() }
        let (runtime, list) = try await Self.runtime(endpoint: service.url + "/soap", logos: [service.url + "/logos/slow.png"])
        let accessed = AsyncStream<DashboardServer.Access>.makeStream()
        let listening = AsyncStream<Int>.makeStream()
        var configuration = DashboardServer.Configuration(port: 0)
        configuration.onResponse = { accessed.continuation.yield($0) }
        let dashboard = try DashboardServer(runtime: runtime, configuration: configuration)
        let server = Task { try await dashboard.run { listening.continuation.yield($0) } }
        let port = try #require(await listening.stream.first { _ in true })
        let transport = HTTPTransport.patient()
        let page = String(
            decoding: try await transport.data(for: HTTP.HTTPRequest(url: "http://127.0.0.1:\(port)/lists/\(list.id)")).1, as: UTF8.self)
        let link = try #require(Self.logoLinks(in: page).first)

        let browser = Task { try await transport.data(for: HTTP.HTTPRequest(url: "http://127.0.0.1:\(port)" + link)) }
        _ = await arrived.stream.first { _ in true }  // the dashboard's transfer reached the logo service
        browser.cancel()  // the row left: the browser's request is aborted
        let logo = await accessed.stream.first { $0.path == "/logo" }
        #expect(logo?.isCancelled == true && logo?.description.contains("GET /logo cancelled") == true, "\(String(describing: logo))")
        #expect(await hungUp.stream.first { _ in true } == true, "the logo service saw the transfer end")
        server.cancel()
        await runtime.close()
    }
}

/// In the browser suite, which the sanitizer runs take in a pass of their own (scripts/sanitize).
extension DashboardBrowserTests {
    @Test(
        "a logo on a list page of a store without it, in headless Chromium: the rows in view end with their logos, rows the browser gives up on are cancelled on the server (its access log), and nothing is fetched for rows never shown",
        .timeLimit(.minutes(5)))
    func liveInChromium() async throws {
        var options = SampleServiceOptions()
        options.port = 0
        options.hotels = 1500
        // Every answer takes 2.5 s: a logo the dashboard asked for is still on its way when a fling leaves its row,
        // however loaded the machine is.
        options.latency = 2500
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("sample-\(UUID().uuidString).jsonl").path
        options.logFile = log
        let sample = try await SampleServer.start(options)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-live-\(UUID().uuidString)")
        let runtime = try await HotelRuntime.open(.init(store: .folder(folder)))
        let client = try runtime.client(profile: try .named("sample"), endpoint: sample.endpoint)
        // The list without its logos: the dashboard fetches them.
        let summary = try await runtime.listJob(client, city: "Paris", options: ListSync.Options(pageSize: 500, readAhead: true)).run()
        #expect(summary.failure == nil && summary.hotels >= 250, "\(summary)")
        let list = try #require(try await runtime.storage.allLists().first)

        let answers = Locked<[DashboardServer.Access]>([])
        var configuration = DashboardServer.Configuration(port: 0)
        configuration.onResponse = { access in if access.path == "/logo" { answers.withLock { $0.append(access) } } }
        let listening = AsyncStream<Int>.makeStream()
        let server = Task {
            try await DashboardServer(runtime: runtime, configuration: configuration).run { listening.continuation.yield($0) }
        }
        let port = try #require(await listening.stream.first { _ in true })
        let ended = try await HotelsProcess.start(
            [
                "python3", Self.script("list_window.py"), "http://127.0.0.1:\(port)",
                "/lists/\(list.id)",
            ], executable: Self.python
        ).finish()
        server.cancel()
        await runtime.close()
        await sample.stop()
        let result = try Self.printed(ended)
        func stats(_ key: String) throws -> [String: Int] { try #require(result[key] as? [String: Int], "\(key) in \(result)") }
        let visible = try #require(result["visibleRows"] as? Int)
        let first = try stats("first")
        let settled = try stats("settled")

        // The rows in view end with their logos, fetched now.
        #expect(first["loaded"]! >= visible - 1 && first["failed"] == 0, "\(result)")
        #expect(settled["aborted"]! > 0 && settled["failed"] == 0, "\(result)")
        // The browser's aborts reached the server: cancelled in the dashboard's log. (That a cancelled transfer hangs up
        // on the logo's service is `abortedRowCancelsTheTransfer`'s, step by step: here, whether an aborted row's
        // transfer had already reached the service depends on the browser's emulated latency and the machine's load.)
        let logged = answers.withLock { $0 }
        #expect(logged.contains { $0.isCancelled }, "\(logged.map(\.description))")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let logoLines = lines.filter { ($0["path"] as? String)?.hasPrefix("/logos/") == true }
        // Nothing for rows never shown: the sample service was asked only for logos the browser asked the dashboard for.
        let asked = Set(logged.compactMap { $0.logo.flatMap { URL(string: $0)?.path } })
        let fetched = Set(logoLines.compactMap { $0["path"] as? String })
        #expect(!fetched.isEmpty && fetched.isSubset(of: asked), "\(fetched.subtracting(asked))")
        #expect(fetched.count < summary.hotels / 2, "\(fetched.count) of \(summary.hotels) rows' logos")
    }
}
