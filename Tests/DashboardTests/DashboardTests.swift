import Dashboard
import Foundation
import HTTP
import HTTPTypes
import Hotels
import Hummingbird
import HummingbirdTesting
import Locking
import OfflineStore
import Runtime
import Synchronization
import TestSupport
import Testing

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
        var paris = (0..<250).map {
            Hotel(code: "P\($0)", name: "Paris hotel \($0)", address: "\($0) rue de Rivoli", logoURL: "http://logos.test/\($0).png")
        }
        paris[7].name = Self.hostile
        paris[8].name = "100% _real_"
        _ = try await runtime.storage.mergeFirstPage(
            paris, into: ListKey(profile: "sample", endpoint: "http://hotels.test/soap", city: "Paris"),
            checkpoint: checkpoint, now: Date())
        _ = try await runtime.storage.mergeFirstPage(
            [Hotel(code: "T1", name: "Tokyo hotel")],
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
            for (query, first) in [
                ("sort=rows&order=desc", "Paris"), ("sort=rows&order=asc", "Tokyo"), ("sort=city&order=asc", "Paris"),
                ("sort=city&order=desc", "Tokyo"),
            ] {
                try await client.execute(uri: "/lists?" + query, method: .get) { response in
                    let page = String(buffer: response.body)
                    let paris = try #require(page.range(of: ">Paris<"))
                    let tokyo = try #require(page.range(of: ">Tokyo<"))
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
                #expect(
                    page.components(separatedBy: "<script").count == 2
                        && page.contains("<script src=\"/static/dashboard.js\" defer></script>"))
            }
            // The API: keyset pages of 70 (next keeps the limit asked for), 70, 70, then 40, each row once, in order.
            var codes: [String] = []
            var pages: [Int] = []
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

    @Test(
        "a list's rows, on the page and loaded later from /lists/ID/rows, are one renderer's: city, phone, chain and rating shown, a hostile value escaped in both; the API carries every key"
    )
    func rowsAndColumns() async throws {
        let runtime = try await runtime()
        let hostile = Self.hostileFields.map(\.value)
        // Lyon, 150 rows: the first page is 100, so row 3 is on it and row 120 comes later.
        let lyon = (0..<150).map { index in
            Hotel(
                code: "L\(index)", name: "Lyon hotel \(index)", address: "\(index) rue de la République",
                logoURL: "http://logos.test/L\(index).png",
                phone: [3, 120].contains(index) ? hostile[0] : "+33 4 72 00 00 \(index % 100)",
                chainCode: [3, 120].contains(index) ? hostile[2] : (index.isMultiple(of: 2) ? "MC" : nil),
                rating: index == 4 ? 4 : (index.isMultiple(of: 3) ? 4.5 : nil), postalCode: "69002",
                city: [3, 120].contains(index) ? hostile[1] : "Lyon", countryCode: "FR", references: ["giata": "\(900_000 + index)"])
        }
        _ = try await runtime.storage.mergeFirstPage(
            lyon, into: ListKey(profile: "sample", endpoint: "http://hotels.test/soap", city: "Lyon"),
            checkpoint: Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil),
            now: Date())
        let id = try await listID(runtime, "Lyon")
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/lists/\(id)", method: .get) { String(buffer: $0.body) }
            #expect(
                page.contains(
                    "<th>Logo</th><th>Name</th><th>Address</th><th>City</th><th>Phone</th><th>Chain</th><th>Rating</th><th>Position</th><th>Added</th>"
                ))
            #expect(
                page.contains(
                    "<td>Lyon hotel 4</td><td>4 rue de la République</td><td>Lyon</td><td>+33 4 72 00 00 4</td><td>MC</td><td>4</td>"),
                "\(page)")
            #expect(
                page.contains(
                    "<td>Lyon hotel 6</td><td>6 rue de la République</td><td>Lyon</td><td>+33 4 72 00 00 6</td><td>MC</td><td>4.5</td>"))
            #expect(
                page.contains(
                    "<td>Lyon hotel 7</td><td>7 rue de la République</td><td>Lyon</td><td>+33 4 72 00 00 7</td><td></td><td></td>"))
            // The hostile row on the first page: every value is text.
            #expect(
                page.contains(
                    "<td>Lyon hotel 3</td><td>3 rue de la République</td><td>\(Self.hostileFields[1].shown)</td>"
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
            #expect(
                fragment.contains(
                    "<td>Lyon hotel 120</td><td>120 rue de la République</td><td>\(Self.hostileFields[1].shown)</td>"
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
            var next: String? = first
            var loaded = 20
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
            #expect(
                hotels[3]["phone"] as? String == hostile[0] && hotels[3]["city"] as? String == hostile[1]
                    && hotels[3]["chainCode"] as? String == hostile[2] && hotels[3]["rating"] as? Double == 4.5)
            #expect(
                hotels[4]["countryCode"] as? String == "FR" && hotels[4]["postalCode"] as? String == "69002"
                    && hotels[4]["references"] as? [String: String] == ["giata": "900004"] && hotels[4]["rating"] as? Double == 4)
            #expect(hotels[7]["rating"] is NSNull && hotels[7]["chainCode"] is NSNull)
        }
        await runtime.close()
    }

    @Test(
        "a malformed query value or list id is 400 with what was expected, never a 500; an endpoint's user and password show nowhere; no path leaves the static files"
    )
    func malformedAndUserInfo() async throws {
        let runtime = try await runtime()
        _ = try await runtime.storage.mergeFirstPage(
            [Hotel(code: "R1", name: "Rome hotel")],
            into: ListKey(profile: "sample", endpoint: "http://agent:s3cret-pass@hotels.test/soap", city: "Rome"),
            checkpoint: Pager.Checkpoint(pagesReceived: 1, nextPage: 2, nextCursor: nil, usedCursors: [], end: nil),
            now: Date())
        let paris = try await listID(runtime, "Paris")
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            for (uri, expected) in [
                ("/api/lists/\(paris)/hotels?after=abc", "after must be"), ("/lists/\(paris)?limit=%3Cb%3E", "limit must be"),
                ("/lists/\(paris)/rows?after=%3Cb%3E", "after must be"), ("/lists/x/rows", "a whole number"),
                ("/lists/abc", "a whole number"), ("/api/lists/1x/hotels", "a whole number"),
                ("/lists?sort=bogus", "sort must be a column"), ("/lists?order=up", "order must be asc or desc"),
            ] {
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
            for uri in [
                "/static/../../../../etc/passwd", "/static/..%2F..%2F..%2Fetc%2Fpasswd", "/static/%2e%2e/%2e%2e/etc/passwd",
                "/static/dashboard.js/../../../etc/passwd", "/static/%252e%252e/etc/passwd", "/logo?url=file%3A%2F%2F%2Fetc%2Fpasswd",
                "/logo?url=..%2F..%2Fetc%2Fpasswd",
            ] {
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
}
