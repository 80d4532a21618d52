import Foundation
import HTTP
import Hotels
import SOAP
import TestSupport
import Testing

@Suite("Paging")
struct PagerTests {
    func page(_ codes: [String], next: String? = nil, last: String? = nil) -> HotelPage {
        HotelPage(hotels: codes.map { Hotel(code: $0) }, warnings: [], nextCursor: next, lastCursor: last)
    }

    @Test("page paging counts up and ends on a short page")
    func pages() {
        var pager = Pager(paging: .page(first: 1), pageSize: 2)
        #expect(pager.nextRequest(city: "X")?.page == 1)
        pager.received(page(["a", "b"]))
        #expect(pager.nextRequest(city: "X")?.page == 2)
        pager.received(page(["c"]))
        #expect(pager.end == .shortPage && pager.nextRequest(city: "X") == nil)
    }

    @Test("a checkpoint keeps the latest 100 cursors, in order: its size does not grow with the list")
    func checkpointKeepsRecentCursors() throws {
        var pager = Pager(paging: .cursor(.field(.addtime)), pageSize: 1)
        for number in 1...250 { pager.received(page(["h\(number)"], next: "c\(number)")) }
        let checkpoint = pager.checkpoint
        #expect(checkpoint.usedCursors == (151...250).map { "c\($0)" })
        var resumed = Pager(paging: .cursor(.field(.addtime)), pageSize: 1, resuming: checkpoint)
        resumed.received(page(["h251"], next: "c200"))
        #expect(resumed.end == .repeatedCursor)
    }

    @Test("cursor paging sends each token once and ends on a repeat, no token, or the end marker")
    func cursors() {
        var pager = Pager(paging: .cursor(.field(.addtime)), pageSize: 2)
        #expect(pager.nextRequest(city: "X")?.cursor == nil)
        pager.received(page(["a", "b"], next: "100"))
        #expect(pager.nextRequest(city: "X")?.cursor == "100")
        pager.received(page(["c", "d"], next: "100"))
        #expect(pager.end == .repeatedCursor)

        var noToken = Pager(paging: .cursor(.field(.addtime)), pageSize: 2)
        noToken.received(page(["a", "b"]))
        #expect(noToken.end == .noCursor)

        var marker = Pager(paging: .cursor(.field(.addtime)), pageSize: 2)
        marker.received(page(["a", "b"], next: "7", last: "7"))
        #expect(marker.end == .endMarker)

        var empty = Pager(paging: .cursor(.field(.addtime)), pageSize: 2)
        empty.received(page([], next: "1"))
        #expect(empty.end == .shortPage)

        var limited = Pager(paging: .page(first: 0), pageSize: 1)
        limited.received(page(["a"]), maxPages: 1)
        #expect(limited.end == .pageLimit)
    }
}

@Suite("Sample service and hotels fetch")
struct FetchTests {
    @Test("the whole list comes page by page, each cursor sent once, ending on the end marker")
    func wholeList() async throws {
        let log = temporaryPath("serve-log")
        let serve = try await ServeProcess(["--hotels", "300", "--log", log])
        defer { withExtendedLifetime(serve) {} }
        let client = try sampleClient(serve.baseURL)
        var pages: [FetchedPage] = []
        for try await page in client.pages(city: "Paris", pageSize: 30) {
            pages.append(page)
        }
        let last = try #require(pages.last)
        #expect(pages.map(\.number) == Array(1...pages.count))  // each page once, in order
        #expect(pages.dropLast().allSatisfy { $0.end == nil })
        #expect(last.end == .endMarker)
        #expect(last.checkpoint.pagesReceived == pages.count)
        // Every page but the last gave a new cursor, which the next page sent.
        #expect(last.checkpoint.usedCursors.count == pages.count - 1)
        #expect(Set(last.checkpoint.usedCursors).count == last.checkpoint.usedCursors.count)
        let codes = pages.flatMap { $0.hotels.map(\.code) }
        #expect(codes.count == Set(codes).count)
        #expect(codes.count == 60)  // Paris is one city in ten of the first four
        let soapRequests = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0.contains("/soap") }
        #expect(soapRequests.count == pages.count)
        // Each is logged with the page it answered: city, page size and cursor.
        #expect(soapRequests.first?.hasSuffix(#""page": "Paris|30|"}"#) == true, "page 1 has no cursor")
        #expect(soapRequests.dropFirst().allSatisfy { $0.contains(#""page": "Paris|30|"#) && !$0.hasSuffix(#"|"}"#) }, "\(soapRequests)")

        // "Paris #3" is another list of Paris, for load tests; a name that only looks like one is not.
        var variant: [String] = []
        for try await page in client.pages(city: "Paris #3", pageSize: 30) { variant += page.hotels.map(\.code) }
        #expect(variant == codes)
        for name in ["Paris #", "Paris #3a", "Paris#3"] {
            for try await page in client.pages(city: name, pageSize: 30) { #expect(page.hotels.isEmpty, "\(name)") }
        }
    }

    @Test("SOAP 1.2 requests get SOAP 1.2 answers")
    func soap12() async throws {
        let serve = try await ServeProcess(["--hotels", "100"])
        defer { withExtendedLifetime(serve) {} }
        var profile = try ServiceProfile.named("sample")
        profile.soapVersion = .v1_2
        let client = HotelClient(profile: profile, endpoint: serve.endpoint)
        #expect(try await client.page(RequestParameters(city: "Shanghai", pageSize: 3)).hotels.count == 3)
        let fault = try await HTTPTransport.patient().data(
            for: HTTPRequest(
                url: serve.endpoint, method: .post,
                headers: SOAPVersion.v1_2.httpHeaders(action: "x"), body: Array(SOAPEnvelope.message(version: .v1_2, body: "<Nope/>").utf8))
        )
        #expect(fault.0.status == 400)
        #expect(String(decoding: fault.1, as: UTF8.self).contains("soap:Sender"))
    }

    @Test("logos come with ETag and Last-Modified, and a matching ETag gets 304")
    func logos() async throws {
        let serve = try await ServeProcess(["--hotels", "20"])
        defer { withExtendedLifetime(serve) {} }
        let client = try sampleClient(serve.baseURL)
        let page = try await client.page(RequestParameters(city: "Shanghai", pageSize: 2))
        let url = try #require(page.hotels.first?.logoURL)
        let (head, body) = try await HTTPTransport.patient().data(for: HTTPRequest(url: url))
        #expect(head.status == 200 && !body.isEmpty)
        let etag = try #require(head.headers["etag"])
        #expect(head.headers["last-modified"] != nil)
        let (again, _) = try await HTTPTransport.patient().data(for: HTTPRequest(url: url, headers: [("If-None-Match", etag)]))
        #expect(again.status == 304)
    }

    @Test("with injected failures and resets, retries still bring every page")
    func flakyService() async throws {
        let serve = try await ServeProcess(["--hotels", "400", "--fail-rate", "0.3", "--drop-rate", "0.1", "--seed", "7"])
        defer { withExtendedLifetime(serve) {} }
        let client = try sampleClient(serve.baseURL)
        var pager = Pager(paging: client.profile.paging, pageSize: 20)
        var count = 0
        while let request = pager.nextRequest(city: "Beijing") {
            let page = try await client.page(request)
            count += page.hotels.count
            pager.received(page)
        }
        #expect(count == 80)
    }

    @Test("hotels fetch writes every page, logos through the filter, and a summary")
    func fetchCommand() async throws {
        let serve = try await ServeProcess(["--hotels", "200"])
        defer { withExtendedLifetime(serve) {} }
        let out = temporaryPath("fetch")
        let result = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "New York", "--page-size", "15",
            "--logos", "--filter", "resize:32x32:fill", "--out", out,
            "--cache", out + "/cache", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""hotels":40"#) && result.stdout.contains(#""end":"endMarker""#))
        let lines = try String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 40)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/logos").count == 40)
    }

    @Test(
        "several cities: each list into OUT/CITY (a city that is not a plain name hashed); a list that fails leaves the others done, and its exit code is the run's"
    )
    func severalCities() async throws {
        let serve = try await ServeProcess(["--hotels", "200"])
        defer { withExtendedLifetime(serve) {} }
        let out = temporaryPath("cities")
        let cache = temporaryPath("cities-cache")
        let first = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "New York", "--city", "../Paris",
            "--page-size", "15", "--out", out, "--cache", cache,
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("New York: fetched 40 hotels") && first.stdout.contains("../Paris: fetched"))
        let folders = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(folders.count == 2 && folders[0].hasPrefix("New_York-") && folders[1].hasPrefix("___Paris-"), "\(folders)")
        let newYork = try #require(folders.first)
        #expect(try String(contentsOfFile: "\(out)/\(newYork)/hotels.jsonl", encoding: .utf8).split(separator: "\n").count == 40)
        // Offline: New York is cached and served; Shanghai never was.
        let offlineOut = temporaryPath("cities-offline")
        let offline = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Shanghai", "--city", "New York", "--offline",
            "--out", offlineOut, "--cache", cache,
        ])
        #expect(offline.status == 69)
        #expect(offline.stderr.contains("nothing is cached for Shanghai"))
        #expect(FileManager.default.fileExists(atPath: offlineOut + "/\(newYork)/hotels.jsonl"))
        let twice = try await HotelsProcess.run(["fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--city", "Paris"])
        #expect(twice.status == 64 && twice.stderr.contains("--city Paris is given twice"))
    }

    @Test("a resumed fetch --logos also saves the logos of rows an earlier run stored without them")
    func resumedFetchSavesEveryLogo() async throws {
        let serve = try await ServeProcess(["--hotels", "200"])
        defer { withExtendedLifetime(serve) {} }
        let cache = temporaryPath("fetch-resume-cache")
        func fetch(_ extra: [String], out: String) async throws -> HotelsProcess {
            try await HotelsProcess.run(
                [
                    "fetch", "--endpoint", serve.endpoint, "--city", "New York", "--page-size", "15",
                    "--cache", cache, "--out", out,
                ] + extra)
        }
        // The first run stops after two pages and saves no logo, as a run whose logos all failed would.
        let first = try await fetch(["--max-pages", "2"], out: temporaryPath("fetch-resume-1"))
        #expect(first.status == 0, "\(first.stderr)")
        let out = temporaryPath("fetch-resume-2")
        let second = try await fetch(["--logos"], out: out)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8).split(separator: "\n").count == 40)
        // Page 1 is merged and page 3 fetched; page 2 comes from the store, and its logos too.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/logos").count == 40)
    }

    @Test("the sample service's hotels were added in the past (they were added in 2027)")
    func sampleAddedInThePast() async throws {
        let serve = try await ServeProcess(["--hotels", "200"])
        defer { withExtendedLifetime(serve) {} }
        let out = temporaryPath("fetch-added")
        let result = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--out", out, "--cache", out + "-cache",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let addtimes = try String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["addtime"] as? Int
        }
        #expect(!addtimes.isEmpty && addtimes.allSatisfy { Double($0) < Date().timeIntervalSince1970 }, "\(addtimes.prefix(3))")
    }

    @Test("hotel codes from the service never name a path outside the logos folder, nor a hidden file")
    func hostileCodesStayInTheFolder() async throws {
        let logo = try [UInt8](Data(contentsOf: Samples.url("Images/png-gray-alpha8.png")))
        let codes = ["../../escaped", "a/b", ".hidden", "PLAIN-1"]
        let server = try ScriptedHTTPServer { request, connection in
            if request.path.hasPrefix("/logos/") {
                connection.respond(headers: ["Content-Type": "image/png"], body: logo)
                return
            }
            let hotels = codes.enumerated().map { index, code in
                "<h:Hotel><h:code>\(code)</h:code><h:name>H\(index)</h:name><h:logoURL>http://\(request.headers["host"] ?? "")/logos/\(index).png</h:logoURL>"
                    + "<h:addtime>\(1_700_000_000 - index)</h:addtime></h:Hotel>"
            }.joined()
            connection.respond(
                contentType: "text/xml",
                body: #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>"#
                    + #"<h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">\#(hotels)</h:QueryHotelsResponse></soap:Body></soap:Envelope>"#
            )
        }
        let root = temporaryPath("fetch-hostile")
        let out = root + "/out/deep"
        let result = try await HotelsProcess.run([
            "fetch", "--endpoint", server.url + "/soap", "--city", "X", "--page-size", "10",
            "--logos", "--out", out, "--cache", root + "/cache",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: out + "/logos").sorted()
        #expect(saved.count == 4, "\(saved)")
        #expect(saved.contains("PLAIN-1.png"))
        #expect(saved.allSatisfy { !$0.hasPrefix(".") && !$0.contains("/") })
        #expect(
            !FileManager.default.fileExists(atPath: root + "/out/escaped.png")
                && !FileManager.default.fileExists(atPath: root + "/escaped.png"))
    }

    @Test("a failing middle page keeps the pages before it, and the exit code says why")
    func failingMiddlePage() async throws {
        let first = try String(contentsOf: Samples.url("Fixtures/sample-soap11.xml"), encoding: .utf8)
        let fault = try String(contentsOf: Samples.url("Fixtures/fault-soap11-client.xml"), encoding: .utf8)
        let server = try ScriptedHTTPServer { request, connection in
            let isFirst = String(decoding: request.body, as: UTF8.self).contains("<h:before></h:before>")
            connection.respond(status: isFirst ? 200 : 500, reason: "X", contentType: "text/xml", body: isFirst ? first : fault)
        }
        let out = temporaryPath("fetch-fail")
        let result = try await HotelsProcess.run([
            "fetch", "--endpoint", server.url + "/soap", "--city", "Shanghai",
            "--page-size", "5", "--out", out,
        ])
        #expect(result.status == 77)  // the fault is Client.Authentication: a permission error
        #expect(result.stderr.contains("page 2"))
        #expect(try String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8).split(separator: "\n").count == 5)
    }

    @Test(
        "an unreachable service exits 69 with a hint; an endpoint that is not http(s), or a --filter that does not read, is a usage error")
    func unreachableAndBadEndpoint() async throws {
        // Port 1, not a port a stopped server just gave back, which the kernel may hand to another test's server.
        let unreachable = try await HotelsProcess.run([
            "fetch", "--endpoint", "http://127.0.0.1:1/soap", "--city", "Paris", "--out", temporaryPath("down"),
        ])
        #expect(unreachable.status == 69)
        #expect(unreachable.stderr.contains("service unreachable") && unreachable.stderr.contains("hint:"))
        let ftp = try await HotelsProcess.run(["fetch", "--endpoint", "ftp://127.0.0.1/soap", "--city", "Paris"])
        #expect(ftp.status == 64)
        #expect(ftp.stderr.contains("--endpoint must be an http or https URL"))
        // As hotels image says it (64), not as bad data: the chain is the caller's.
        let filter = try await HotelsProcess.run([
            "fetch", "--endpoint", "http://127.0.0.1:1/soap", "--city", "Paris", "--filter", "resize:9",
        ])
        #expect(filter.status == 64 && filter.stderr.contains("--filter: bad filter “resize:9”"), "\(filter.stderr)")
    }

    @Test("a standard client (Python zeep) reads the WSDL and calls QueryHotels")
    func zeep() async throws {
        let serve = try await ServeProcess(["--hotels", "100"])
        defer { withExtendedLifetime(serve) {} }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Samples.root.deletingLastPathComponent().appendingPathComponent("scripts/tests/zeep_query.py").path,
            serve.endpoint + "?wsdl", "Paris", "4",
        ]
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("zeep-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        try #require(FileManager.default.createFile(atPath: output.path, contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: output)
        let child = try ChildProcess(starting: process)
        await child.ended()
        #expect(child.terminationStatus == 0)
        let data = try Data(contentsOf: output)
        let result = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let hotels = result?["hotels"] as? [[String: Any]] ?? []
        #expect(hotels.count == 4)
        #expect(result?["lastAddTime"] is Int)
    }
}

func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-\(name)-\(getpid())-\(UUID().uuidString)").path
}
