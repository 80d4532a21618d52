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

// Who may use the dashboard: the token, sessions, the address it binds, host names and origins, the login throttle.
extension DashboardTests {
    @Test(
        "with a token, nothing is shown without it: the API answers 401, pages go to the login form; the bearer header and the form's cookie let in"
    )
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
            try await client.execute(uri: "/api/lists", method: .get, headers: [.authorization: "Bearer \(Self.token)"]) {
                #expect($0.status == .ok)
            }
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=guess")) { response in
                #expect(response.status == .unauthorized && response.headers[.setCookie] == nil)
            }
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=\(Self.token)")
            ) { response in
                #expect(response.status == .seeOther)
                return try #require(response.headers[.setCookie])
            }
            #expect(
                cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Max-Age=43200")
                    && !cookie.contains("Secure"))
            let pair = try #require(cookie.split(separator: ";").first).description
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .ok) }
            // The cookie is a session's random id: the token is in it in no form, and a made-up id lets no one in.
            let id = String(pair.dropFirst("hotelkit_dashboard=".count))
            #expect(
                id.count == 64 && !id.contains(Self.token)
                    && !pair.contains(Self.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            try await client.execute(
                uri: "/lists", method: .get, headers: [.cookie: "hotelkit_dashboard=" + String(repeating: "0", count: 64)]
            ) {
                #expect($0.status == .seeOther)
            }
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: "hotelkit_dashboard=\(Self.token)"]) {
                #expect($0.status == .seeOther)
            }
            // Log out: the page's button posts with the CSRF token; the session ends and the cookie is dropped.
            let lists = try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { String(buffer: $0.body) }
            let csrf = try #require(lists.firstMatch(of: /action="\/logout"><input type="hidden" name="csrf" value="([0-9a-f]+)"/)?.1)
                .description
            try await client.execute(uri: "/logout", method: .post, headers: form + [.cookie: pair], body: ByteBuffer(string: "csrf=0123"))
            {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/lists", method: .get, headers: [.cookie: pair]) { #expect($0.status == .ok) }
            try await client.execute(
                uri: "/logout", method: .post, headers: form + [.cookie: pair], body: ByteBuffer(string: "csrf=\(csrf)")
            ) { response in
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
            let cookie = try await client.execute(uri: "/login", method: .post, headers: form, body: login) {
                try #require($0.headers[.setCookie])
            }
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

    @Test(
        "another address than loopback needs a token of 16 characters or more: the library refuses it, hotels dashboard exits 64 and says what to give"
    )
    func binding() async throws {
        #expect(throws: DashboardError.tokenRequired(host: "0.0.0.0")) { try DashboardServer.Configuration(host: "0.0.0.0").check() }
        #expect(throws: DashboardError.weakToken) { try DashboardServer.Configuration(host: "0.0.0.0", token: "short").check() }
        #expect(throws: Never.self) { try DashboardServer.Configuration(host: "0.0.0.0", token: Self.token).check() }
        let refused = try await HotelsProcess.run(["dashboard", "--host", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 64 && refused.stderr.contains("--token-file"), "\(refused.stderr)")
        // A token file that holds too short a token: the hint is about the token, not a --token-file to give.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-weak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tokenFile = folder.appendingPathComponent("token")
        try Data("tooShort\n".utf8).write(to: tokenFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile.path)
        let weak = try await HotelsProcess.run(["dashboard", "--cache", folder.path, "--port", "0", "--token-file", tokenFile.path])
        #expect(
            weak.status == 64 && weak.stderr.contains("--token-file \(tokenFile.path): the token is shorter than 16 characters")
                && weak.stderr.contains("openssl rand -hex 16") && !weak.stderr.contains("tooShort"), "\(weak.stderr)")
    }

    @Test(
        "hotels dashboard --token-file: refused (78) when others may read it; the token lets a script in, a wrong one does not, and it appears in no output; SIGTERM stops it with 0"
    )
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
        let dashboard = try HotelsProcess.start(
            [
                "dashboard", "--cache", folder.path, "--port", "0", "--token-file", tokenFile.path,
                "--allowed-host", "hotels.example.org",
            ])
        let (base, port) = try await dashboard.dashboardAddress()
        let transport = HTTPTransport.patient()
        var answers: [Int] = []
        for bearer in ["wrong-token-of-some-length", Self.token] {
            answers.append(
                try await transport.data(for: HTTP.HTTPRequest(url: base + "/api/lists", headers: [("Authorization", "Bearer " + bearer)]))
                    .0.status)
        }
        // Behind the --allowed-host proxy that says the browser spoke TLS, the session cookie is Secure; to anyone else saying so, not.
        var cookies: [String] = []
        for host in ["hotels.example.org", "127.0.0.1"] {
            let body = "token=\(Self.token)"
            let response = try RawHTTP.exchange(
                port: port,
                """
                POST /login HTTP/1.1\r\nHost: \(host)\r\nX-Forwarded-Proto: https\r\nContent-Type: application/x-www-form-urlencoded\r\n\
                Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)
                """)
            cookies.append(response.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }.map(String.init) ?? "")
        }
        dashboard.child.signal(SIGTERM)
        let run = try await dashboard.finish()
        #expect(
            cookies.count == 2 && cookies[0].hasSuffix("; Secure") && !cookies[1].contains("Secure") && !cookies[1].isEmpty, "\(cookies)")
        #expect(answers == [401, 200])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("dashboard on http://127.0.0.1:\(port)/"))
        #expect(!(run.stdout + run.stderr).contains(Self.token))
    }

    @Test(
        "over loopback, a request under another host name gets 421 naming the accepted ones (DNS rebinding); the address, localhost and [::1] pass with or without a port, and --allowed-host adds a name; a POST another site sends is refused on top of the CSRF token; the queue's link says it needs --store"
    )
    func hostAndOrigin() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-host-\(UUID().uuidString)")
        let dashboard = try HotelsProcess.start(
            ["dashboard", "--cache", folder.path, "--port", "0", "--allowed-host", "Hotels.Example.org"])
        let (base, port) = try await dashboard.dashboardAddress()
        let transport = HTTPTransport.patient()
        func status(
            _ path: String, host: String? = nil, method: HTTP.HTTPRequest.Method = .get, headers: [(String, String)] = [],
            body: String? = nil
        ) async throws -> (Int, String) {
            let request = HTTP.HTTPRequest(
                url: base + path, method: method, headers: (host.map { [("Host", $0)] } ?? []) + headers.map { (name: $0.0, value: $0.1) },
                body: body.map { Array($0.utf8) })
            let (head, bytes) = try await transport.data(for: request)
            return (head.status, String(decoding: bytes, as: UTF8.self))
        }
        var answers: [String: Int] = [:]
        for host in [
            "127.0.0.1", "127.0.0.1:\(port)", "localhost", "LOCALHOST:\(port)", "[::1]:\(port)", "hotels.example.org", "evil.example",
            "evil.example:\(port)", "127.0.0.1.nip.io", "localhost.evil.example",
        ] {
            answers[host] = try await status("/api/lists", host: host).0
        }
        let (refusedStatus, refusal) = try await status("/lists", host: "evil.example")
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        let crossSite = try await status("/review", method: .post, headers: form + [("Sec-Fetch-Site", "cross-site")], body: "csrf=x")
        let otherOrigin = try await status("/review", method: .post, headers: form + [("Origin", "http://evil.example")], body: "csrf=x")
        let sameOrigin = try await status(
            "/review", method: .post, headers: form + [("Origin", base), ("Sec-Fetch-Site", "same-origin")], body: "csrf=x")
        // Chromium's own forms under Referrer-Policy: no-referrer say Origin: null, which decides nothing.
        let nullOrigin = try await status(
            "/review", method: .post, headers: form + [("Origin", "null"), ("Sec-Fetch-Site", "same-origin")], body: "csrf=x")
        let queue = try await status("/queue")
        dashboard.child.signal(SIGTERM)
        let run = try await dashboard.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            answers == [
                "127.0.0.1": 200, "127.0.0.1:\(port)": 200, "localhost": 200, "LOCALHOST:\(port)": 200, "[::1]:\(port)": 200,
                "hotels.example.org": 200, "evil.example": 421, "evil.example:\(port)": 421, "127.0.0.1.nip.io": 421,
                "localhost.evil.example": 421,
            ])
        #expect(
            refusedStatus == 421 && refusal.contains("127.0.0.1, localhost, [::1], hotels.example.org")
                && refusal.contains("--allowed-host"))
        #expect(crossSite.0 == 403 && crossSite.1.contains("another site"))
        #expect(otherOrigin.0 == 403 && otherOrigin.1.contains("another origin (http://evil.example)"))
        // From its own origin the form reaches the CSRF check, which refuses a wrong token with its own words.
        #expect(sameOrigin.0 == 403 && sameOrigin.1.contains("out of date or from another site"))
        #expect(nullOrigin.0 == 403 && nullOrigin.1.contains("out of date or from another site"))
        #expect(queue.0 == 200 && queue.1.contains("--store postgres://"))
    }

    @Test(
        "failed logins from one address: five answered at once, then each waits longer (1, 2, 4, 8, 16 s), past twenty a minute 429 with Retry-After, even for the right token; a minute later the form answers again (a virtual clock and a recorded pause)"
    )
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
                statuses.append(
                    try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=guess")) {
                        UInt($0.status.code)
                    })
            }
            #expect(statuses == Array(repeating: 401, count: 20))
            #expect(pauses.withLock { $0 } == [1, 2, 4, 8, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16].map { Duration.seconds($0) })
            clock.withLock { $0 = $0.addingTimeInterval(30) }
            try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=\(Self.token)")) {
                response in
                #expect(response.status == .tooManyRequests && response.headers[.retryAfter] == "30" && response.headers[.setCookie] == nil)
            }
            clock.withLock { $0 = $0.addingTimeInterval(31) }
            try await client.execute(uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "token=\(Self.token)")) {
                response in
                #expect(response.status == .seeOther && response.headers[.setCookie] != nil)
            }
        }
        await runtime.close()
    }
}
