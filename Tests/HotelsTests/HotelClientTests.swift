import Foundation
import HTTP
import Hotels
import SOAP
import TestSupport
import Testing

/// `HotelClient` against an in-memory service: no socket, no process.
@Suite("HotelClient")
struct HotelClientTests {
    static let fastRetry = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))

    func client(_ http: FakeHTTPClient, logger: LogRecorder = LogRecorder()) throws -> HotelClient {
        HotelClient(
            profile: try .named("sample"), endpoint: "http://hotels.test/soap",
            configuration: HotelClientConfiguration(transport: http, retry: Self.fastRetry, logger: logger.logger()))
    }

    @Test("pages come in order, each asked for once with the last row's cursor, until the end marker")
    func pagesToTheEnd() async throws {
        let http = FakeSampleCatalog(count: 12).client()
        var pages: [FetchedPage] = []
        for try await page in try client(http).pages(city: "Paris", pageSize: 5) { pages.append(page) }
        #expect(pages.map(\.number) == [1, 2, 3])
        #expect(pages.map(\.hotels.count) == [5, 5, 2])
        #expect(pages.map(\.end) == [nil, nil, .endMarker])
        #expect(http.bodies.map { FakeSampleCatalog.value("before", in: $0) } == [nil, "1960", "1910"])
        #expect(Set(pages.flatMap(\.hotels).map(\.code)).count == 12)
        #expect(http.requests.allSatisfy { $0.headers.contains { $0.name == "SOAPAction" } && $0.method == .post })
    }

    @Test("a page whose cursor is the end marker is the last: no empty page is asked for")
    func endMarker() async throws {
        let http = FakeSampleCatalog(count: 10).client()
        var ends: [Pager.End?] = []
        for try await page in try client(http).pages(city: "Paris", pageSize: 5) { ends.append(page.end) }
        #expect(ends == [nil, .endMarker])
        #expect(http.requests.count == 2)
    }

    @Test("a sequence resumed from a checkpoint asks for the page after it, and numbers on")
    func resumes() async throws {
        let http = FakeSampleCatalog(count: 12).client()
        let client = try client(http)
        var first = client.pages(city: "Paris", pageSize: 5, maxPages: 1).makeAsyncIterator()
        let page1 = try #require(try await first.next())
        #expect(try await first.next() == nil)  // maxPages
        var numbers: [Int] = []
        for try await page in client.pages(city: "Paris", pageSize: 5, resumingFrom: page1.checkpoint) { numbers.append(page.number) }
        #expect(numbers == [2, 3])
        #expect(http.bodies.map { FakeSampleCatalog.value("before", in: $0) } == [nil, "1960", "1910"])
    }

    @Test("a 503 is retried and logged; a second try succeeds")
    func retriesServerErrors() async throws {
        let catalog = FakeSampleCatalog(count: 3)
        let http = FakeHTTPClient { request, index in
            index == 0 ? .xml("<html>busy</html>", status: 503) : catalog.respond(to: String(decoding: request.body ?? [], as: UTF8.self))
        }
        let log = LogRecorder()
        var iterator = try client(http, logger: log).pages(city: "Paris").makeAsyncIterator()
        #expect(try await iterator.next()?.hotels.count == 3)
        #expect(http.requests.count == 2)
        #expect(log.messages == ["warning: page 1: HTTP 503: <html>busy</html>; retry 1 of 3"])
    }

    @Test("a Sender fault is thrown at once, never retried; asking again asks for the same page")
    func senderFaultsAreNotRetried() async throws {
        let fault = try String(decoding: Samples.fixture("fault-soap11-client.xml"), as: UTF8.self)
        let http = FakeHTTPClient { _, _ in .xml(fault, status: 500) }
        var iterator = try client(http).pages(city: "Paris").makeAsyncIterator()
        await #expect(throws: SOAPFault.self) { try await iterator.next() }
        #expect(http.requests.count == 1)
        await #expect(throws: SOAPFault.self) { try await iterator.next() }
        #expect(http.bodies.map { FakeSampleCatalog.value("before", in: $0) } == [nil, nil])
    }

    @Test("a Receiver fault is the service's answer, not retried; a fault the profile calls transient is")
    func transientFaults() async throws {
        let server = try String(decoding: Samples.fixture("fault-soap11-server.xml"), as: UTF8.self)
        let http = FakeHTTPClient { _, _ in .xml(server, status: 500) }
        var once = try client(http).pages(city: "Paris").makeAsyncIterator()
        await #expect(throws: SOAPFault.self) { try await once.next() }
        #expect(http.requests.count == 1)

        var profile = try ServiceProfile.named("sample")
        profile.transientFaults = ["Server"]
        let retried = FakeHTTPClient { _, _ in .xml(server, status: 500) }
        let client = HotelClient(
            profile: profile, endpoint: "http://hotels.test/soap",
            configuration: HotelClientConfiguration(transport: retried, retry: Self.fastRetry))
        var iterator = client.pages(city: "Paris").makeAsyncIterator()
        await #expect(throws: SOAPFault.self) { try await iterator.next() }
        #expect(retried.requests.count == 4)
    }

    /// A regression: a service that ignores the paging parameter sent the same page forever.
    @Test("a page that brings nothing new ends the list with a warning")
    func loopGuard() async throws {
        let catalog = FakeSampleCatalog(count: 20)
        let http = FakeHTTPClient { _, _ in catalog.respond(to: "<h:pageSize>5</h:pageSize>") }  // the cursor is ignored
        let log = LogRecorder()
        var pages: [FetchedPage] = []
        for try await page in try client(http, logger: log).pages(city: "Paris", pageSize: 5) { pages.append(page) }
        #expect(pages.map(\.end) == [nil, .noNewRecords])
        #expect(http.requests.count == 2)
        #expect(log.messages.count == 1 && log.messages[0].hasPrefix("warning: page 2 brought no hotel that earlier pages had not"))
    }

    @Test("record warnings are logged with their page")
    func recordWarnings() async throws {
        let bad = try String(decoding: Samples.fixture("sample-bad-records.xml"), as: UTF8.self)
        let log = LogRecorder()
        var iterator = try client(FakeHTTPClient { _, _ in .xml(bad) }, logger: log).pages(city: "Paris").makeAsyncIterator()
        let page = try #require(try await iterator.next())
        #expect(!page.warnings.isEmpty)
        #expect(log.messages == page.warnings.map { "warning: page 1: \($0)" })
    }

    @Test("cancelling the consuming task cancels the transfer in flight")
    func cancellation() async throws {
        let started = AsyncStream<Void>.makeStream()
        let http = FakeHTTPClient { _, _ in
            started.continuation.yield()
            try await Task.sleep(for: .seconds(600))  // until cancelled
            return .xml("")
        }
        let client = try client(http)
        let task = Task {
            for try await _ in client.pages(city: "Paris") {}
        }
        for await _ in started.stream { break }
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(http.requests.count == 1)
    }
}

@Suite("Warning caps")
struct WarningCapTests {
    /// `count` records whose latitude is out of range.
    static func badLatitudes(_ count: Int) -> String {
        let rows = (1...count).map { "<h:Hotel><h:code>B\($0)</h:code><h:latitude>95</h:latitude></h:Hotel>" }.joined()
        return """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>\
            <h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">\(rows)</h:QueryHotelsResponse></soap:Body></soap:Envelope>
            """
    }

    @Test("a parse delivers the first warnings of each kind and counts every one")
    func parserCaps() throws {
        let page = try HotelResponseParser(profile: .named("sample"), warningsPerKind: 3).parse(bytes: Array(Self.badLatitudes(50).utf8))
        #expect(page.hotels.count == 50)
        #expect(page.warnings.map(\.record) == [1, 2, 3])
        #expect(page.warningsByKind == ["latitude": 50])
        let all = try HotelResponseParser(profile: .named("sample"), warningsPerKind: nil).parse(bytes: Array(Self.badLatitudes(50).utf8))
        #expect(all.warnings.count == 50)
    }

    @Test("across a list, the first warnings of each kind are logged, then one line with how many more")
    func clientCaps() async throws {
        let body = Self.badLatitudes(5)
        let http = FakeHTTPClient { _, _ in .xml(body) }
        let log = LogRecorder()
        var profile = try ServiceProfile.named("sample")
        profile.paging = .page(first: 1)
        profile.body = try RequestTemplate("<h:QueryHotels xmlns:h=\"urn:hotelkit:sample\"><h:page>{page}</h:page></h:QueryHotels>")
        let client = HotelClient(
            profile: profile, endpoint: "http://hotels.test/soap",
            configuration: HotelClientConfiguration(transport: http, logger: log.logger(), warningsPerKind: 2))
        var byKind: [String: Int] = [:]
        for try await page in client.pages(city: "Paris", pageSize: 10) { byKind.merge(page.warningsByKind, uniquingKeysWith: +) }
        #expect(byKind == ["latitude": 5])
        #expect(log.messages.count == 3)
        #expect(log.messages.last == "warning: 3 more latitude warnings")
    }
}

@Suite("Flag and one-shot paging")
struct FlagPagingTests {
    /// A Sabre-style availability search: `AdditionalAvail Ind="true"` while more rows follow.
    static func page(_ codes: [String], more: Bool) -> FakeHTTPClient.Response {
        let rows = codes.map { "<BasicPropertyInfo HotelCode=\"\($0)\" HotelName=\"Hotel \($0)\"/>" }.joined()
        return .xml(
            """
            <soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"><soap-env:Body>\
            <OTA_HotelAvailRS xmlns="http://webservices.sabre.com/sabreXML/2011/10"><AdditionalAvail Ind="\(more ? "true" : "false")"/>\
            <AvailabilityOptions>\(rows)</AvailabilityOptions></OTA_HotelAvailRS></soap-env:Body></soap-env:Envelope>
            """)
    }

    func profile(_ paging: String, body: String) throws -> ServiceProfile {
        let json =
            #"{"name": "sabre-style", "body": "\#(body)", "record": "BasicPropertyInfo", "fields": {"code": "@HotelCode", "name": "@HotelName"}\#(paging)}"#
        return try ServiceProfile(json: Data(json.utf8), source: "test")
    }

    @Test("flag paging asks for more, sending the flag back, until the flag is off")
    func flag() async throws {
        let http = FakeHTTPClient { _, index in
            index == 0
                ? Self.page(["A", "B"], more: true) : index == 1 ? Self.page(["C", "D"], more: true) : Self.page(["E"], more: false)
        }
        let profile = try profile(
            #", "paging": {"style": "flag", "more": "//AdditionalAvail/@Ind"}"#,
            body: #"<OTA_HotelAvailRQ><AdditionalAvail Ind=\"{more}\"/><City>{city}</City></OTA_HotelAvailRQ>"#)
        let client = HotelClient(profile: profile, endpoint: "http://sabre.test/", configuration: HotelClientConfiguration(transport: http))
        var pages: [FetchedPage] = []
        for try await page in client.pages(city: "DFW", pageSize: 2) { pages.append(page) }
        #expect(pages.flatMap(\.hotels).map(\.code) == ["A", "B", "C", "D", "E"])
        #expect(pages.map(\.end) == [nil, nil, .noMore])
        #expect(http.bodies.map { $0.contains(#"Ind="true""#) } == [false, true, true])
    }

    @Test("a profile with no paging makes one request, and that is the answer")
    func oneShot() async throws {
        let http = FakeHTTPClient { _, _ in Self.page(["A", "B"], more: true) }
        let client = HotelClient(
            profile: try profile("", body: "<OTA_HotelDescriptiveInfoRQ><City>{city}</City></OTA_HotelDescriptiveInfoRQ>"),
            endpoint: "http://sabre.test/", configuration: HotelClientConfiguration(transport: http))
        var pages: [FetchedPage] = []
        for try await page in client.pages(city: "DFW") { pages.append(page) }
        #expect(pages.map(\.end) == [.single] && pages[0].hotels.count == 2)
        #expect(http.requests.count == 1)
    }
}
