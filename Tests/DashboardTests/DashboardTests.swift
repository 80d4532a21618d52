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
        _ = try await runtime.storage.mergeFirstPage(paris, into: ListKey(profile: "sample", endpoint: "http://hotels.test/soap", city: "Paris"),
                                                 checkpoint: checkpoint, now: Date())
        _ = try await runtime.storage.mergeFirstPage([Hotel(code: "T1", name: "Tokyo hotel")],
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
                #expect(hotels.allSatisfy { $0.keys.sorted() == HotelFields.jsonKeys.sorted() }, "every key of the record, null or not")
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

    /// A supplier's hostile phone, city and chain, and each as the page must show it.
    static let hostileFields: [(value: String, shown: String)] = [
        (#""><script>alert(1)</script>"#, "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("<img src=x onerror=alert(2)>", "&lt;img src=x onerror=alert(2)&gt;"),
        ("<b onmouseover='x'>&", "&lt;b onmouseover=&#39;x&#39;&gt;&amp;"),
    ]

    @Test("a list's rows, on the page and loaded later from /lists/ID/rows, are one renderer's: city, phone, chain and rating shown, a hostile value escaped in both; the API carries every key")
    func rowsAndColumns() async throws {
        let runtime = try await runtime()
        let hostile = Self.hostileFields.map(\.value)
        // Lyon, 150 rows: the first page is 100, so row 3 is on it and row 120 comes later.
        let lyon = (0..<150).map { index in
            Hotel(code: "L\(index)", name: "Lyon hotel \(index)", address: "\(index) rue de la République", logoURL: "http://logos.test/L\(index).png",
                  phone: [3, 120].contains(index) ? hostile[0] : "+33 4 72 00 00 \(index % 100)",
                  chainCode: [3, 120].contains(index) ? hostile[2] : (index.isMultiple(of: 2) ? "MC" : nil),
                  rating: index == 4 ? 4 : (index.isMultiple(of: 3) ? 4.5 : nil), postalCode: "69002",
                  city: [3, 120].contains(index) ? hostile[1] : "Lyon", countryCode: "FR", references: ["giata": "\(900_000 + index)"])
        }
        _ = try await runtime.storage.mergeFirstPage(lyon, into: ListKey(profile: "sample", endpoint: "http://hotels.test/soap", city: "Lyon"),
                                                 checkpoint: Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil),
                                                 now: Date())
        let id = try await listID(runtime, "Lyon")
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/lists/\(id)", method: .get) { String(buffer: $0.body) }
            #expect(page.contains("<th>Logo</th><th>Name</th><th>Address</th><th>City</th><th>Phone</th><th>Chain</th><th>Rating</th><th>Position</th><th>Added</th>"))
            #expect(page.contains("<td>Lyon hotel 4</td><td>4 rue de la République</td><td>Lyon</td><td>+33 4 72 00 00 4</td><td>MC</td><td>4</td>"), "\(page)")
            #expect(page.contains("<td>Lyon hotel 6</td><td>6 rue de la République</td><td>Lyon</td><td>+33 4 72 00 00 6</td><td>MC</td><td>4.5</td>"))
            #expect(page.contains("<td>Lyon hotel 7</td><td>7 rue de la République</td><td>Lyon</td><td>+33 4 72 00 00 7</td><td></td><td></td>"))
            // The hostile row on the first page: every value is text.
            #expect(page.contains("<td>Lyon hotel 3</td><td>3 rue de la République</td><td>\(Self.hostileFields[1].shown)</td>"
                                  + "<td>\(Self.hostileFields[0].shown)</td><td>\(Self.hostileFields[2].shown)</td><td>4.5</td>"), "\(page)")
            #expect(hostile.allSatisfy { !page.contains($0) } && !page.contains("<script>") && !page.contains("<b "))
            // The script's next rows: /lists/ID/rows, named by the table.
            let more = try #require(page.firstMatch(of: /<table id="hotels" data-list="\d+" data-more="([^"]+)">/)).1
            // After the page's last row, keeping the page's limit.
            let last = try #require(page.matches(of: /<tr data-position="(-?\d+)">/).last).1
            #expect(more == "/lists/\(id)/rows?after=\(last)&amp;limit=100", "\(more)")
            let (fragment, type) = try await client.execute(uri: String(more).replacing("&amp;", with: "&"), method: .get) { response in
                (String(buffer: response.body), response.headers[.contentType])
            }
            #expect(type == "text/html; charset=utf-8")
            #expect(fragment.hasPrefix("<tbody>\n<tr data-position="), "the end: no data-more")
            let laterMatch = try #require(fragment.firstMatch(of: /<tr data-position="(-?\d+)">/))
            let firstLater = try #require(Int64(laterMatch.1))
            #expect(firstLater > Int64(last)!, "rows after the page's last")
            #expect(fragment.components(separatedBy: "<tr ").count == 51)
            #expect(fragment.contains("<td>Lyon hotel 120</td><td>120 rue de la République</td><td>\(Self.hostileFields[1].shown)</td>"
                                      + "<td>\(Self.hostileFields[0].shown)</td><td>\(Self.hostileFields[2].shown)</td><td>4.5</td>"), "\(fragment)")
            #expect(hostile.allSatisfy { !fragment.contains($0) } && !fragment.contains("<script") && !fragment.contains("<b "))
            // One renderer: the rows loaded later are, byte for byte, the rows of the page that starts there.
            let pageTwo = try await client.execute(uri: "/lists/\(id)?after=\(last)", method: .get) { String(buffer: $0.body) }
            let rows = String(fragment.dropFirst("<tbody>\n".count).dropLast("\n</tbody>\n".count))
            #expect(pageTwo.contains("<tbody>\n" + rows + "\n</tbody>"))
            // A search and a limit are kept, page to page; the last page names no more.
            let searched = try await client.execute(uri: "/lists/\(id)?q=hotel%201&limit=20", method: .get) { String(buffer: $0.body) }
            let first = String(try #require(searched.firstMatch(of: /data-more="([^"]+)"/)).1).replacing("&amp;", with: "&")
            #expect(first.hasPrefix("/lists/\(id)/rows?after=") && first.hasSuffix("&limit=20&q=hotel%201"), "\(first)")
            var next: String? = first, loaded = 20
            while let uri = next {
                let body = try await client.execute(uri: uri, method: .get) { String(buffer: $0.body) }
                loaded += body.components(separatedBy: "<tr ").count - 1
                next = body.firstMatch(of: /<tbody data-more="([^"]+)">/).map { String($0.1).replacing("&amp;", with: "&") }
            }
            #expect(loaded == lyon.filter { $0.name!.contains("hotel 1") }.count, "\(loaded)")
            // The API carries every field, as hotels list writes it.
            let object = try await client.execute(uri: "/api/lists/\(id)/hotels?limit=10", method: .get) { response in
                try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
            let hotels = try #require(object["hotels"] as? [[String: Any]])
            #expect(hotels.count == 10 && hotels.allSatisfy { $0.keys.sorted() == HotelFields.jsonKeys.sorted() })
            #expect(hotels[3]["phone"] as? String == hostile[0] && hotels[3]["city"] as? String == hostile[1]
                    && hotels[3]["chainCode"] as? String == hostile[2] && hotels[3]["rating"] as? Double == 4.5)
            #expect(hotels[4]["countryCode"] as? String == "FR" && hotels[4]["postalCode"] as? String == "69002"
                    && hotels[4]["references"] as? [String: String] == ["giata": "900004"] && hotels[4]["rating"] as? Double == 4)
            #expect(hotels[7]["rating"] is NSNull && hotels[7]["chainCode"] is NSNull)
        }
        await runtime.close()
    }

    @Test("a malformed query value or list id is 400 with what was expected, never a 500; an endpoint's user and password show nowhere; no path leaves the static files")
    func malformedAndUserInfo() async throws {
        let runtime = try await runtime()
        _ = try await runtime.storage.mergeFirstPage([Hotel(code: "R1", name: "Rome hotel")],
                                                 into: ListKey(profile: "sample", endpoint: "http://agent:s3cret-pass@hotels.test/soap", city: "Rome"),
                                                 checkpoint: Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil),
                                                 now: Date())
        let paris = try await listID(runtime, "Paris")
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            for (uri, expected) in [("/api/lists/\(paris)/hotels?after=abc", "after must be"), ("/lists/\(paris)?limit=%3Cb%3E", "limit must be"),
                                    ("/lists/\(paris)/rows?after=%3Cb%3E", "after must be"), ("/lists/x/rows", "a whole number"),
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
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Max-Age=43200") && !cookie.contains("Secure"))
            let pair = try #require(cookie.split(separator: ";").first).description
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .ok) }
            // The cookie is a session's random id: the token is in it in no form, and a made-up id lets no one in.
            let id = String(pair.dropFirst("hotelkit_dashboard=".count))
            #expect(id.count == 64 && !id.contains(Self.token) && !pair.contains(Self.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: "hotelkit_dashboard=" + String(repeating: "0", count: 64)]) {
                #expect($0.status == .seeOther)
            }
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: "hotelkit_dashboard=\(Self.token)"]) { #expect($0.status == .seeOther) }
            // Log out: the page's button posts with the CSRF token; the session ends and the cookie is dropped.
            let lists = try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { String(buffer: $0.body) }
            let csrf = try #require(lists.firstMatch(of: /action="\/logout"><input type="hidden" name="csrf" value="([0-9a-f]+)"/)?.1).description
            try await client.execute(uri: "/logout", method: .post, headers: form + [.cookie: pair], body: ByteBuffer(string: "csrf=0123")) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .ok) }
            try await client.execute(uri: "/logout", method: .post, headers: form + [.cookie: pair], body: ByteBuffer(string: "csrf=\(csrf)")) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/login")
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
            }
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .seeOther) }
        }
        await runtime.close()
    }

    @Test("a session ends after 12 hours without a request, and each request keeps it alive (a virtual clock)")
    func sessionLifetime() async throws {
        let runtime = try await runtime()
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        var configuration = DashboardServer.Configuration(host: "127.0.0.1", port: 0, token: Self.token)
        configuration.now = { clock.withLock { $0 } }
        let app = try DashboardServer(runtime: runtime, configuration: configuration).application()
        try await app.test(.router) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let login = ByteBuffer(string: "token=\(Self.token)")
            let cookie = try await client.execute(uri: "/login", method: .post, headers: form, body: login) { try #require($0.headers[.setCookie]) }
            let pair = try #require(cookie.split(separator: ";").first).description
            for hours in [11.0, 11.0] {
                clock.withLock { $0 = $0.addingTimeInterval(hours * 3600) }
                try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .ok) }
            }
            clock.withLock { $0 = $0.addingTimeInterval(12 * 3600 + 1) }
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .seeOther) }
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
        async let finished = HotelsProcess.run(["dashboard", "--cache", folder.path, "--port", String(port), "--token-file", tokenFile.path,
                                                "--allowed-host", "hotels.example.org"],
                                               timeLimit: 120) { running in child.withLock { $0 = running } }
        let transport = HTTPTransport()
        let base = "http://127.0.0.1:\(port)"
        // Listening once a request is answered at all.
        while (try? await transport.data(for: HTTP.HTTPRequest(url: base + "/login"))) == nil { try await Task.sleep(for: .milliseconds(50)) }
        var answers: [Int] = []
        for bearer in ["wrong-token-of-some-length", Self.token] {
            answers.append(try await transport.data(for: HTTP.HTTPRequest(url: base + "/api/lists", headers: [("Authorization", "Bearer " + bearer)])).0.status)
        }
        // Behind the --allowed-host proxy that says the browser spoke TLS, the session cookie is Secure; to anyone else saying so, not.
        var cookies: [String] = []
        for host in ["hotels.example.org", "127.0.0.1"] {
            let body = "token=\(Self.token)"
            let response = try RawHTTP.exchange(port: port, """
                POST /login HTTP/1.1\r\nHost: \(host)\r\nX-Forwarded-Proto: https\r\nContent-Type: application/x-www-form-urlencoded\r\n\
                Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)
                """)
            cookies.append(response.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }.map(String.init) ?? "")
        }
        child.value?.signal(SIGTERM)
        let run = try await finished
        #expect(cookies.count == 2 && cookies[0].hasSuffix("; Secure") && !cookies[1].contains("Secure") && !cookies[1].isEmpty, "\(cookies)")
        #expect(answers == [401, 200])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("dashboard on http://127.0.0.1:\(port)/"))
        #expect(!(run.stdout + run.stderr).contains(Self.token))
    }

    @Test("over loopback, a request under another host name gets 421 naming the accepted ones (DNS rebinding); the address, localhost and [::1] pass with or without a port, and --allowed-host adds a name; a POST another site sends is refused on top of the CSRF token; the queue's link says it needs --store")
    func hostAndOrigin() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-host-\(UUID().uuidString)")
        let port = try TestPostgres.freePort()
        let child = Locked<ChildProcess?>(nil)
        async let finished = HotelsProcess.run(["dashboard", "--cache", folder.path, "--port", String(port), "--allowed-host", "Hotels.Example.org"],
                                               timeLimit: 120) { running in child.withLock { $0 = running } }
        let transport = HTTPTransport()
        let base = "http://127.0.0.1:\(port)"
        while (try? await transport.data(for: HTTP.HTTPRequest(url: base + "/lists"))) == nil { try await Task.sleep(for: .milliseconds(50)) }
        func status(_ path: String, host: String? = nil, method: HTTP.HTTPRequest.Method = .get, headers: [(String, String)] = [],
                    body: String? = nil) async throws -> (Int, String) {
            let request = HTTP.HTTPRequest(url: base + path, method: method, headers: (host.map { [("Host", $0)] } ?? []) + headers.map { (name: $0.0, value: $0.1) },
                                           body: body.map { Array($0.utf8) })
            let (head, bytes) = try await transport.data(for: request)
            return (head.status, String(decoding: bytes, as: UTF8.self))
        }
        var answers: [String: Int] = [:]
        for host in ["127.0.0.1", "127.0.0.1:\(port)", "localhost", "LOCALHOST:\(port)", "[::1]:\(port)", "hotels.example.org", "evil.example",
                     "evil.example:\(port)", "127.0.0.1.nip.io", "localhost.evil.example"] {
            answers[host] = try await status("/api/lists", host: host).0
        }
        let (refusedStatus, refusal) = try await status("/lists", host: "evil.example")
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        let crossSite = try await status("/review", method: .post, headers: form + [("Sec-Fetch-Site", "cross-site")], body: "csrf=x")
        let otherOrigin = try await status("/review", method: .post, headers: form + [("Origin", "http://evil.example")], body: "csrf=x")
        let sameOrigin = try await status("/review", method: .post, headers: form + [("Origin", base), ("Sec-Fetch-Site", "same-origin")], body: "csrf=x")
        // Chromium's own forms under Referrer-Policy: no-referrer say Origin: null, which decides nothing.
        let nullOrigin = try await status("/review", method: .post, headers: form + [("Origin", "null"), ("Sec-Fetch-Site", "same-origin")], body: "csrf=x")
        let queue = try await status("/queue")
        child.value?.signal(SIGTERM)
        let run = try await finished
        #expect(run.status == 0, "\(run.stderr)")
        #expect(answers == ["127.0.0.1": 200, "127.0.0.1:\(port)": 200, "localhost": 200, "LOCALHOST:\(port)": 200, "[::1]:\(port)": 200,
                            "hotels.example.org": 200, "evil.example": 421, "evil.example:\(port)": 421, "127.0.0.1.nip.io": 421,
                            "localhost.evil.example": 421])
        #expect(refusedStatus == 421 && refusal.contains("127.0.0.1, localhost, [::1], hotels.example.org") && refusal.contains("--allowed-host"))
        #expect(crossSite.0 == 403 && crossSite.1.contains("another site"))
        #expect(otherOrigin.0 == 403 && otherOrigin.1.contains("another origin (http://evil.example)"))
        // From its own origin the form reaches the CSRF check, which refuses a wrong token with its own words.
        #expect(sameOrigin.0 == 403 && sameOrigin.1.contains("out of date or from another site"))
        #expect(nullOrigin.0 == 403 && nullOrigin.1.contains("out of date or from another site"))
        #expect(queue.0 == 200 && queue.1.contains("--store postgres://"))
    }

    @Test("failed logins from one address: five answered at once, then each waits longer (1, 2, 4, 8, 16 s), past twenty a minute 429 with Retry-After, even for the right token; a minute later the form answers again (a virtual clock and a recorded pause)")
    func loginThrottle() async throws {
        let runtime = try await runtime()
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let pauses = Mutex<[Duration]>([])
        var configuration = DashboardServer.Configuration(host: "127.0.0.1", port: 0, token: Self.token)
        configuration.now = { clock.withLock { $0 } }
        configuration.pause = { duration in pauses.withLock { $0.append(duration) } }
        let app = try DashboardServer(runtime: runtime, configuration: configuration).application()
        try await app.test(.router) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            var statuses: [UInt] = []
            for _ in 0..<20 {
                statuses.append(try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=guess")) { UInt($0.status.code) })
            }
            #expect(statuses == Array(repeating: 401, count: 20))
            #expect(pauses.withLock { $0 } == [1, 2, 4, 8, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16].map { Duration.seconds($0) })
            clock.withLock { $0 = $0.addingTimeInterval(30) }
            try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=\(Self.token)")) { response in
                #expect(response.status == .tooManyRequests && response.headers[.retryAfter] == "30" && response.headers[.setCookie] == nil)
            }
            clock.withLock { $0 = $0.addingTimeInterval(31) }
            try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=\(Self.token)")) { response in
                #expect(response.status == .seeOther && response.headers[.setCookie] != nil)
            }
        }
        await runtime.close()
    }
}
