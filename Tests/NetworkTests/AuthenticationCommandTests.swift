import Foundation
import Hotels
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("hotels fetch with credentials, sessions and dumps")
struct AuthenticationCommandTests {
    let credentials = ["SAMPLE_USER": "demo", "SAMPLE_PASSWORD": "s3cret-Pass"]

    func fetch(_ endpoint: String, profile: String, _ extra: [String] = [], environment: [String: String]) async throws -> HotelsProcess {
        try await HotelsProcess.run(
            [
                "fetch", "--profile", profile, "--endpoint", endpoint, "--city", "Paris", "--page-size", "20",
                "--max-pages", "2", "--out", temporaryPath("auth-out"), "--cache", temporaryPath("auth-cache"),
            ] + extra,
            environment: environment)
    }

    @Test("serve --auth wsse with a digest: the right credentials fetch; a wrong password exits 77; none set exits 78 naming them")
    func usernameTokenDigest() async throws {
        let server = try await ServeProcess(["--auth", "wsse:demo:s3cret-Pass:digest"])
        let profile = "Samples/Profiles/sample-wsse.json"
        let ok = try await fetch(server.endpoint, profile: profile, ["--json"], environment: credentials)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains(#""fetched":40"#))
        let wrong = try await fetch(server.endpoint, profile: profile, environment: ["SAMPLE_USER": "demo", "SAMPLE_PASSWORD": "nope"])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.contains("FailedAuthentication") && wrong.stderr.contains("check the credentials"))
        let none = try await fetch(server.endpoint, profile: profile, environment: [:])
        #expect(none.status == 78)
        #expect(none.stderr.contains("{env:SAMPLE_PASSWORD}") && none.stderr.contains("export"))
        // Without a token at all, the standard fault.
        let plain = try await fetch(server.endpoint, profile: "sample", environment: [:])
        #expect(plain.status == 77 && plain.stderr.contains("InvalidSecurity"))
    }

    @Test("a fault that echoes the password back is printed by fetch --json with the password redacted, its detail too")
    func faultEchoingTheSecret() async throws {
        // A careless service repeats what it was sent, credentials included, in its fault's reason and detail.
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(
                status: 500, reason: "Internal Server Error", contentType: "text/xml",
                body: """
                    <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>\
                    <faultcode>soap:Client</faultcode><faultstring>bad request from demo/s3cret-Pass</faultstring>\
                    <detail><echo>user demo, password s3cret-Pass</echo></detail></soap:Fault></soap:Body></soap:Envelope>
                    """)
        }
        let run = try await fetch(server.url + "/soap", profile: "Samples/Profiles/sample-wsse.json", ["--json"], environment: credentials)
        #expect(run.status == 76, "\(run.stderr)")
        #expect(run.stdout.contains(#""fault":"#) && run.stdout.contains("user demo, password"), "\(run.stdout)")
        #expect(!run.stdout.contains("s3cret-Pass") && !run.stderr.contains("s3cret-Pass"), "\(run.stdout)")
    }

    @Test("serve --auth basic: 401 without the right Authorization, exit 77")
    func basic() async throws {
        let server = try await ServeProcess(["--auth", "basic:demo:s3cret-Pass"])
        await #expect(try fetch(server.endpoint, profile: "Samples/Profiles/sample-basic.json", environment: credentials).status == 0)
        let wrong = try await fetch(
            server.endpoint, profile: "Samples/Profiles/sample-basic.json",
            environment: ["SAMPLE_USER": "demo", "SAMPLE_PASSWORD": "wrong"])
        #expect(wrong.status == 77 && wrong.stderr.contains("401"))
        #expect(!wrong.stderr.contains(Data("demo:wrong".utf8).base64EncodedString()))
    }

    @Test("--credentials: a file others may read is refused, through a symbolic link too; a private one is used")
    func credentialsFile() async throws {
        let server = try await ServeProcess(["--auth", "wsse:demo:s3cret-Pass:digest"])
        let file = temporaryPath("credentials.json")
        try Data(#"{"SAMPLE_USER": "demo", "SAMPLE_PASSWORD": "s3cret-Pass"}"#.utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        let open = try await fetch(
            server.endpoint, profile: "Samples/Profiles/sample-wsse.json", ["--credentials", file], environment: [:])
        #expect(open.status == 78 && open.stderr.contains("chmod 600"))
        chmod(file, 0o600)
        let ok = try await fetch(server.endpoint, profile: "Samples/Profiles/sample-wsse.json", ["--credentials", file], environment: [:])
        #expect(ok.status == 0, "\(ok.stderr)")
        // A link is checked by the file it points to (the link itself reads as mode 777).
        let link = temporaryPath("credentials-link.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let linked = try await fetch(
            server.endpoint, profile: "Samples/Profiles/sample-wsse.json", ["--credentials", link], environment: [:])
        #expect(linked.status == 0, "\(linked.stderr)")
        chmod(file, 0o644)
        let openLinked = try await fetch(
            server.endpoint, profile: "Samples/Profiles/sample-wsse.json", ["--credentials", link], environment: [:])
        #expect(openLinked.status == 78 && openLinked.stderr.contains("mode 644"))
    }

    @Test("a user name is not a secret: a dump keeps a city that matches it; the password and the Basic token stay redacted")
    func userNameIsNotASecret() async throws {
        let server = try await ServeProcess(["--auth", "basic:Paris:s3cret-Pass"])
        let folder = temporaryPath("dump-user")
        let result = try await fetch(
            server.endpoint, profile: "Samples/Profiles/sample-basic.json", ["--dump", folder],
            environment: ["SAMPLE_USER": "Paris", "SAMPLE_PASSWORD": "s3cret-Pass"])
        #expect(result.status == 0, "\(result.stderr)")
        let request = try String(contentsOfFile: folder + "/001-page-1.request.http", encoding: .utf8)
        #expect(request.contains("<h:city>Paris</h:city>") && request.contains("Authorization: Basic ‹redacted›"))
        #expect(!request.contains("s3cret-Pass") && !request.contains(Data("Paris:s3cret-Pass".utf8).base64EncodedString()))
        #expect(Credentials.isSecret("SABRE_PASSWORD") && Credentials.isSecret("API_KEY") && !Credentials.isSecret("SABRE_PCC"))
    }

    @Test("--dump writes each request and response with its headers, and no secret: not the password, not the digest")
    func dump() async throws {
        let server = try await ServeProcess(["--auth", "basic:demo:s3cret-Pass"])
        let folder = temporaryPath("dump")
        let result = try await fetch(
            server.endpoint, profile: "Samples/Profiles/sample-basic.json", ["--dump", folder], environment: credentials)
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files == ["001-page-1.request.http", "001-page-1.response.http", "002-page-2.request.http", "002-page-2.response.http"])
        let request = try String(contentsOfFile: folder + "/001-page-1.request.http", encoding: .utf8)
        #expect(request.contains("SOAPAction: urn:hotelkit:sample#QueryHotels") && request.contains("Authorization: Basic ‹redacted›"))
        #expect(request.contains("<h:city>Paris</h:city>"))
        let everything = try files.map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.joined()
        #expect(!everything.contains("s3cret-Pass") && !everything.contains(Data("demo:s3cret-Pass".utf8).base64EncodedString()))
        let response = try String(contentsOfFile: folder + "/001-page-1.response.http", encoding: .utf8)
        #expect(response.hasPrefix("HTTP 200\n") && response.contains("QueryHotelsResponse"))
    }

    @Test("parse --summary shows a session's public values and hides the others")
    func summaryHidesSessionSecrets() async throws {
        let result = try await HotelsProcess.run([
            "parse", "--summary", "--profile", "Samples/Profiles/amadeus-style.json",
            "Samples/Real/amadeus/OTA_HotelAvailRS-multisingle-mty-tst.xml",
        ])
        #expect(result.status == 0)
        #expect(result.stderr.contains("header session.sequence: “1”") && result.stderr.contains("header session.token: (hidden"))
        #expect(!result.stderr.contains("SESSION0011") && !result.stderr.contains("SECURITYTOKEN0021"))
    }

    @Test("--json and stderr: a fault that echoes the session token shows it redacted")
    func jsonSummaryRedacted() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials, expireAfterCalls: 2)
        defer { emulator.stop() }
        // The profile without its expiry rule: the expired-token fault, which echoes the token, is the outcome.
        var document =
            try JSONSerialization.jsonObject(with: Data(contentsOf: Samples.url("Profiles/sabre-style.json"))) as? [String: Any] ?? [:]
        var session = document["session"] as? [String: Any] ?? [:]
        session["expired"] = nil
        document["session"] = session
        let profile = temporaryPath("sabre-no-expiry.json")
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: profile))
        let result = try await HotelsProcess.run(
            [
                "fetch", "--profile", profile, "--endpoint", emulator.url, "--city", "PAR", "--json",
                "--out", temporaryPath("redacted-out"), "--cache", temporaryPath("redacted-cache"),
            ],
            environment: vendorCredentials)
        #expect(result.status == 77)
        #expect(result.stdout.contains("Invalid or Expired binary security token: ‹redacted›"), "\(result.stdout)")
        for output in [result.stdout, result.stderr] {
            #expect(!output.contains("IceSess") && !output.contains("sabre-WS-pass"))
        }
        #expect(Array(emulator.log.prefix(3)) == ["login s1", "page PAR 1 s1", "expired s1"])
    }

    @Test("six cities, --parallel 6, a pool of two sessions: two logins, each list paged whole in one session, two logouts")
    func parallelListsShareThePool() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials)
        defer { emulator.stop() }
        var document =
            try JSONSerialization.jsonObject(with: Data(contentsOf: Samples.url("Profiles/sabre-style.json"))) as? [String: Any] ?? [:]
        withPool(2)(&document)
        let profile = temporaryPath("sabre-pool-2.json")
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: profile))
        let cities = ["PAR", "NCE", "LYS", "MRS", "BOD", "TLS"]
        let out = temporaryPath("parallel-out")
        let result = try await HotelsProcess.run(
            [
                "fetch", "--profile", profile, "--endpoint", emulator.url, "--page-size", "10", "--parallel", "6",
                "--concurrency", "6", "--out", out, "--cache", temporaryPath("parallel-cache"), "--json",
            ]
                + cities.flatMap { ["--city", $0] }, environment: vendorCredentials)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(emulator.mistakes.isEmpty, "\(emulator.mistakes)")
        #expect(emulator.log.filter { $0.hasPrefix("login") } == ["login s1", "login s2"])
        #expect(emulator.log.filter { $0.hasPrefix("logout") }.sorted() == ["logout s1", "logout s2"])
        // Each session runs one list from its first page to its last before another's.
        for id in ["s1", "s2"] {
            let pages = emulator.log.filter { $0.hasPrefix("page ") && $0.hasSuffix(" " + id) }.map { $0.split(separator: " ") }
            var finished: Set<Substring> = []
            for (page, next) in zip(pages, pages.dropFirst()) where page[1] != next[1] {
                finished.insert(page[1])
                #expect(!finished.contains(next[1]) && next[2] == "1", "session \(id) interleaved lists: \(pages)")
            }
        }
        #expect(emulator.log.filter { $0.hasPrefix("page ") }.count == 18)
        for city in cities {
            let lines = try String(contentsOfFile: "\(out)/\(city)/hotels.jsonl", encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 23, "\(city)")
        }
        let summaries = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(Set(summaries.compactMap { $0["city"] as? String }) == Set(cities))
        #expect(summaries.allSatisfy { $0["fetched"] as? Int == 23 })
    }

    @Test("SIGTERM during a session: the same clean stop, exit 143; a signal during the logout ends the process at once")
    func terminateAndSignalDuringLogout() async throws {
        let stalledPage = try VendorEmulator(.sabre, credentials: vendorCredentials, stallRequest: 3)
        defer { stalledPage.stop() }
        let arguments = [
            "fetch", "--profile", "Samples/Profiles/sabre-style.json", "--city", "PAR", "--page-size", "10",
            "--out", temporaryPath("terminate-out"), "--cache", temporaryPath("terminate-cache"),
        ]
        let terminated = try await HotelsProcess.run(arguments + ["--endpoint", stalledPage.url], environment: vendorCredentials) {
            process in
            guard stalledPage.stalled.wait(timeout: .now() + 60) == .success else { return process.signal(SIGTERM) }
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(terminated.status == 143, "\(terminated.stderr)")
        #expect(stalledPage.log == ["login s1", "page PAR 1 s1", "logout s1"])
        // Request 5 is the logout after the three pages: it hangs, and Ctrl-C then ends the process, not after its retries.
        let stalledLogout = try VendorEmulator(.sabre, credentials: vendorCredentials, stallRequest: 5)
        defer { stalledLogout.stop() }
        let interrupted = try await HotelsProcess.run(arguments + ["--endpoint", stalledLogout.url], environment: vendorCredentials) {
            process in
            guard stalledLogout.stalled.wait(timeout: .now() + 60) == .success else { return process.signal(SIGTERM) }
            kill(process.processIdentifier, SIGINT)
        }
        // Killed by the signal: before, it was ignored, and the process exited 0 after the logout's retries.
        #expect(interrupted.status == SIGINT, "\(interrupted.stderr)")
        #expect(Array(stalledLogout.log.prefix(4)) == ["login s1", "page PAR 1 s1", "page PAR 11 s1", "page PAR 21 s1"])
    }

    @Test("Ctrl-C during a session: the fetch stops, stores what it has, logs the session out, and exits 130")
    func interruptLogsOut() async throws {
        // Request 1 logs in, request 2 is page 1, request 3 (page 2) hangs until the client gives up.
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials, stallRequest: 3)
        defer { emulator.stop() }
        let result = try await HotelsProcess.run(
            [
                "fetch", "--profile", "Samples/Profiles/sabre-style.json", "--endpoint", emulator.url,
                "--city", "PAR", "--page-size", "10", "--out", temporaryPath("interrupt-out"),
                "--cache", temporaryPath("interrupt-cache"),
            ],
            environment: vendorCredentials
        ) { process in
            guard emulator.stalled.wait(timeout: .now() + 60) == .success else { return process.signal(SIGTERM) }
            kill(process.processIdentifier, SIGINT)
        }
        #expect(result.status == 130, "\(result.stderr)")
        #expect(emulator.log == ["login s1", "page PAR 1 s1", "logout s1"])
        #expect(result.stderr.contains("interrupted"))
        for secret in ["sabre-WS-pass", "IceSess"] { #expect(!result.stderr.contains(secret)) }
    }
}
