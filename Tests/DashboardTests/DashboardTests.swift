import Dashboard
import Foundation
import Hotels
import HTTP
import HTTPTypes
import Locking
import Hummingbird
import HummingbirdTesting
import OfflineStore
import Runtime
import Synchronization
import Testing
import TestSupport

/// The dashboard's pages, JSON API and guard, through its whole responder (middleware included) in process.
/// Hummingbird's live test client gives a loopback connect 5 s, which a loaded ThreadSanitizer run once
/// exceeded; the real server is exercised by `hotels dashboard`'s process tests and the Chromium suite.
@Suite("hotels dashboard")
struct DashboardTests {
    static let hostile = "<img src=x onerror=alert(1)>"
    static let token = "correct-horse-battery-staple"

    /// A runtime on an in-memory store holding Paris (250 rows, one named hostilely) and Tokyo.
    func runtime() async throws -> HotelRuntime {
        let runtime = try await HotelRuntime.open(.init(store: .inMemory))
        let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil)
        var paris = (0..<250).map { Hotel(code: "P\($0)", name: "Paris hotel \($0)", address: "\($0) rue de Rivoli", logoURL: "http://logos.test/\($0).png") }
        paris[7].name = Self.hostile
        paris[8].name = "100% _real_"
        try await runtime.storage.mergeFirstPage(paris, into: ListKey(profile: "sample", endpoint: "http://hotels.test/soap", city: "Paris"),
                                                 checkpoint: checkpoint, now: Date())
        try await runtime.storage.mergeFirstPage([Hotel(code: "T1", name: "Tokyo hotel")],
                                                 into: ListKey(profile: "sample", endpoint: "http://hotels.test/soap", city: "Tokyo"),
                                                 checkpoint: checkpoint, now: Date())
        return runtime
    }

    func listID(_ runtime: HotelRuntime, _ city: String) async throws -> Int64 {
        try #require(try await runtime.storage.allLists().first { $0.key.city == city }).id
    }

    @Test("pages escape what suppliers wrote and carry the security headers; a list pages by keyset, to its end, each row once")
    func pagesAndAPI() async throws {
        let runtime = try await runtime()
        let paris = try await listID(runtime, "Paris")
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/lists", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self';") == true)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                let page = String(buffer: response.body)
                #expect(page.contains("href=\"/lists/\(paris)\"") && page.contains("Tokyo") && page.contains("hotels.test"))
            }
            // Sorted by any column, either way; the sorted column's link turns the order round.
            for (query, first) in [("sort=rows&order=desc", "Paris"), ("sort=rows&order=asc", "Tokyo"), ("sort=city&order=asc", "Paris"),
                                   ("sort=city&order=desc", "Tokyo")] {
                try await client.execute(uri: "/lists?" + query, method: .get) { response in
                    let page = String(buffer: response.body)
                    let paris = try #require(page.range(of: ">Paris<")), tokyo = try #require(page.range(of: ">Tokyo<"))
                    #expect((paris.lowerBound < tokyo.lowerBound) == (first == "Paris"), "\(query)")
                }
            }
            try await client.execute(uri: "/lists?sort=rows&order=asc", method: .get) { response in
                #expect(String(buffer: response.body).contains("href=\"/lists?sort=rows&order=desc\">Rows</a> ↑"))
            }
            try await client.execute(uri: "/lists?q=tok", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("Tokyo") && !page.contains(">Paris<"))
            }
            try await client.execute(uri: "/lists/\(paris)", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;") && !page.contains(Self.hostile))
                #expect(page.contains("rel=\"next\" href=\"/lists/\(paris)?after="), "a next page, without a script")
                // One script, the page's own file: nothing inline for a supplier's text to join.
                #expect(page.components(separatedBy: "<script").count == 2 && page.contains("<script src=\"/static/dashboard.js\" defer></script>"))
            }
            // The API: keyset pages of 70 (next keeps the limit asked for), 70, 70, then 40, each row once, in order.
            var codes: [String] = [], pages: [Int] = []
            var next: String? = "/api/lists/\(paris)/hotels?limit=70"
            while let uri = next {
                let object = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                    return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                }
                let hotels = try #require(object["hotels"] as? [[String: Any]])
                codes += hotels.compactMap { $0["code"] as? String }
                pages.append(hotels.count)
                #expect(hotels.first?.keys.sorted() == ["address", "addtime", "code", "latitude", "logoURL", "longitude", "name"])
                next = object["next"] as? String
            }
            #expect(codes == (0..<250).map { "P\($0)" } && pages == [70, 70, 70, 40], "\(pages)")
            // A search takes % and _ as themselves.
            try await client.execute(uri: "/api/lists/\(paris)/hotels?q=100%25%20_", method: .get) { response in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect((object["hotels"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["P8"])
            }
            try await client.execute(uri: "/api/lists", method: .get) { response in
                let lists = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]])
                #expect(Set(lists.compactMap { $0["city"] as? String }) == ["Paris", "Tokyo"])
                #expect(lists.first { $0["city"] as? String == "Paris" }?["rows"] as? Int == 250)
            }
            try await client.execute(uri: "/api/jobs", method: .get) { response in
                #expect(response.status == .notFound, "no queue without a shared store")
            }
        }
        await runtime.close()
    }

    @Test("a malformed query value or list id is 400 with what was expected, never a 500; an endpoint's user and password show nowhere; no path leaves the static files")
    func malformedAndUserInfo() async throws {
        let runtime = try await runtime()
        try await runtime.storage.mergeFirstPage([Hotel(code: "R1", name: "Rome hotel")],
                                                 into: ListKey(profile: "sample", endpoint: "http://agent:s3cret-pass@hotels.test/soap", city: "Rome"),
                                                 checkpoint: Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil),
                                                 now: Date())
        let paris = try await listID(runtime, "Paris")
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            for (uri, expected) in [("/api/lists/\(paris)/hotels?after=abc", "after must be"), ("/lists/\(paris)?limit=%3Cb%3E", "limit must be"),
                                    ("/lists/abc", "a whole number"), ("/api/lists/1x/hotels", "a whole number"),
                                    ("/lists?sort=bogus", "sort must be a column"), ("/lists?order=up", "order must be asc or desc")] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(String(buffer: response.body).contains(expected), "\(uri): \(String(buffer: response.body))")
                    #expect(!String(buffer: response.body).contains("<b>"))
                }
            }
            for uri in ["/lists", "/api/lists"] {
                let body = try await client.execute(uri: uri, method: .get) { String(buffer: $0.body) }
                #expect(body.contains("Rome") && !body.contains("s3cret-pass") && !body.contains("agent"), "\(uri)")
            }
            // No path leaves the static files, encoded or not, and a logo is only ever one the index holds.
            for uri in ["/static/../../../../etc/passwd", "/static/..%2F..%2F..%2Fetc%2Fpasswd", "/static/%2e%2e/%2e%2e/etc/passwd",
                        "/static/dashboard.js/../../../etc/passwd", "/static/%252e%252e/etc/passwd", "/logo?url=file%3A%2F%2F%2Fetc%2Fpasswd",
                        "/logo?url=..%2F..%2Fetc%2Fpasswd"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect([.notFound, .badRequest].contains(response.status), "\(uri): \(response.status)")
                    #expect(!String(buffer: response.body).contains("root:"), "\(uri)")
                }
            }
        }
        await runtime.close()
    }

    @Test("the access log shows a logo's URL without its user:password@ or query values, which may be a supplier's signature")
    func accessLogShowsNoCredentials() async throws {
        let runtime = try await runtime()
        let seen = Mutex<[DashboardServer.Access]>([])
        var configuration = DashboardServer.Configuration(port: 0)
        configuration.onResponse = { access in seen.withLock { $0.append(access) } }
        let app = try DashboardServer(runtime: runtime, configuration: configuration).application()
        try await app.test(.router) { client in
            let signed = "https://cdn-user:logo-pass-42@cdn.test/logo/x.png?sig=signature-42&size=64"
            let query = signed.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            try await client.execute(uri: "/logo?url=\(query)", method: .get) { #expect($0.status == .notFound) }
        }
        await runtime.close()
        let lines = seen.withLock { $0.map(\.description) }
        #expect(lines == ["GET /logo 404 https://cdn.test/logo/x.png?sig=…&size=…"])
    }

    @Test("with a token, nothing is shown without it: the API answers 401, pages go to the login form; the bearer header and the form's cookie let in")
    func token() async throws {
        let runtime = try await runtime()
        let app = try DashboardServer(runtime: runtime, configuration: .init(host: "127.0.0.1", port: 0, token: Self.token)).application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/lists", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/lists", method: .get, headers: [.authorization: "Bearer wrong-token-of-some-length"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/lists", method: .get) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/login")
            }
            try await client.execute(uri: "/api/lists", method: .get, headers: [.authorization: "Bearer \(Self.token)"]) { #expect($0.status == .ok) }
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=guess")) { response in
                #expect(response.status == .unauthorized && response.headers[.setCookie] == nil)
            }
            let cookie = try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=\(Self.token)")) { response in
                #expect(response.status == .seeOther)
                return try #require(response.headers[.setCookie])
            }
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let pair = try #require(cookie.split(separator: ";").first).description
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .ok) }
        }
        await runtime.close()
    }

    @Test("another address than loopback needs a token of 16 characters or more: the library refuses it, hotels dashboard exits 64")
    func binding() async throws {
        #expect(throws: DashboardError.tokenRequired(host: "0.0.0.0")) { try DashboardServer.Configuration(host: "0.0.0.0").check() }
        #expect(throws: DashboardError.weakToken) { try DashboardServer.Configuration(host: "0.0.0.0", token: "short").check() }
        #expect(throws: Never.self) { try DashboardServer.Configuration(host: "0.0.0.0", token: Self.token).check() }
        let refused = try await HotelsProcess.run(["dashboard", "--host", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 64 && refused.stderr.contains("--token-file"), "\(refused.stderr)")
    }

    @Test("hotels dashboard --token-file: refused (78) when others may read it; the token lets a script in, a wrong one does not, and it appears in no output; SIGTERM stops it with 0")
    func tokenFromFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tokenFile = folder.appendingPathComponent("token")
        try Data((Self.token + "\n").utf8).write(to: tokenFile)
        // Readable by others, it is refused, and its token is not shown.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: tokenFile.path)
        let refused = try await HotelsProcess.run(["dashboard", "--cache", folder.path, "--port", "0", "--token-file", tokenFile.path])
        #expect(refused.status == 78 && refused.stderr.contains("chmod 600") && !refused.stderr.contains(Self.token), "\(refused.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile.path)
        let port = try TestPostgres.freePort()
        let child = Locked<ChildProcess?>(nil)
        async let finished = HotelsProcess.run(["dashboard", "--cache", folder.path, "--port", String(port), "--token-file", tokenFile.path],
                                               timeLimit: 120) { running in child.withLock { $0 = running } }
        let transport = HTTPTransport()
        let base = "http://127.0.0.1:\(port)"
        // Listening once a request is answered at all.
        while (try? await transport.data(for: HTTP.HTTPRequest(url: base + "/login"))) == nil { try await Task.sleep(for: .milliseconds(50)) }
        var answers: [Int] = []
        for bearer in ["wrong-token-of-some-length", Self.token] {
            answers.append(try await transport.data(for: HTTP.HTTPRequest(url: base + "/api/lists", headers: [("Authorization", "Bearer " + bearer)])).0.status)
        }
        child.value?.signal(SIGTERM)
        let run = try await finished
        #expect(answers == [401, 200])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("dashboard on http://127.0.0.1:\(port)/"))
        #expect(!(run.stdout + run.stderr).contains(Self.token))
    }
}
