import Foundation
import HTTP
import Hotels
import Locking
import SOAP
import TestSupport
import Testing

/// A client of the `sample` profile with fast retries, for loopback servers.
func sampleClient(_ url: String, configure: (inout TransportConfiguration) -> Void = { _ in }) throws -> HotelClient {
    var configuration = TransportConfiguration()
    configure(&configuration)
    return HotelClient(
        profile: try .named("sample"), endpoint: url + "/soap",
        configuration: HotelClientConfiguration(
            transport: HTTPTransport(configuration: configuration),
            retry: RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))))
}

let firstPage = RequestParameters(city: "Shanghai", pageSize: 5)

@Suite("Transport against misbehaving servers")
struct TransportTests {
    static let soap = (try? String(contentsOf: Samples.url("Fixtures/sample-soap11.xml"), encoding: .utf8)) ?? ""
    static let fault = (try? String(contentsOf: Samples.url("Fixtures/fault-soap11-client.xml"), encoding: .utf8)) ?? ""

    @Test("a SOAP request carries the version's headers, and the body streams into records")
    func ordinaryPage() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(contentType: "text/xml; charset=utf-8", body: TransportTests.soap)
        }
        let page = try await sampleClient(server.url).page(firstPage)
        #expect(page.hotels.count == 5)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST" && request.path == "/soap")
        #expect(request.headers["content-type"] == "text/xml; charset=utf-8")
        #expect(request.headers["soapaction"] == "urn:hotelkit:sample#QueryHotels")  // exactly as the profile writes it
        #expect(request.headers["user-agent"] == "hotelkit/\(HotelKitVersion.string)")
        #expect(String(decoding: request.body, as: UTF8.self).contains("<h:city>Shanghai</h:city><h:pageSize>5</h:pageSize>"))
    }

    @Test("a value in the login reply's Body (TBO's SessionId) is captured, sent by every later call, and never shown")
    func loginBodyCapture() async throws {
        let server = try ScriptedHTTPServer { request, connection in
            let body = String(decoding: request.body, as: UTF8.self)
            if body.contains("<Authenticate") {
                connection.respond(
                    contentType: "text/xml; charset=utf-8",
                    body: """
                        <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><AuthenticateResponse xmlns="urn:tbo">\
                        <Status>Successful</Status><SessionId>SID-7f3a9c</SessionId></AuthenticateResponse></soap:Body></soap:Envelope>
                        """)
            } else if body.contains("<SessionId>SID-7f3a9c</SessionId>") {
                connection.respond(contentType: "text/xml; charset=utf-8", body: TransportTests.soap)
            } else {
                connection.respond(status: 500, reason: "Server Error", contentType: "text/xml", body: TransportTests.fault)
            }
        }
        let json = #"""
            {"name": "tbo-session", "soapAction": "Search", "body": "<Search xmlns=\"urn:tbo\"><SessionId>{session.id}</SessionId><City>{city}</City></Search>",
             "record": "Hotel", "fields": {"code": "code"},
             "session": {"login": {"soapAction": "Authenticate", "body": "<Authenticate xmlns=\"urn:tbo\"><User>{env:U}</User></Authenticate>"},
                         "capture": {"id": "//AuthenticateResponse/SessionId"}}}
            """#
        let logs = LogRecorder()
        let client = HotelClient(
            profile: try ServiceProfile(json: Data(json.utf8), source: "test"), endpoint: server.url + "/soap",
            configuration: HotelClientConfiguration(logger: logs.logger(), credentials: Credentials(["U": "agent"])))
        let page = try await client.page(firstPage)
        await client.close()
        #expect(page.hotels.count == 5)
        #expect(server.requests.count == 2)
        #expect(!logs.messages.joined().contains("SID-7f3a9c"))
    }

    @Test(
        "SOAPAction as the profile writes it: empty is sent as an empty header, quoted keeps its quotes; {action} and WS-Addressing's Action drop them",
        arguments: ["", "\"urn:hotelkit:sample#QueryHotels\""])
    func soapActionAsWritten(action: String) async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(contentType: "text/xml; charset=utf-8", body: TransportTests.soap)
        }
        var document =
            try JSONSerialization.jsonObject(with: Data(contentsOf: Samples.url("Profiles/sample-wsse.json"))) as? [String: Any] ?? [:]
        document["soapAction"] = action
        document["addressing"] = [String: Any]()
        document["security"] = nil
        let profile = try ServiceProfile(json: JSONSerialization.data(withJSONObject: document), source: "action.json")
        let client = HotelClient(profile: profile, endpoint: server.url + "/soap", configuration: HotelClientConfiguration(retry: .never))
        _ = try await client.page(firstPage)
        let request = try #require(server.requests.first)
        #expect(request.headers["soapaction"] == action)
        let body = String(decoding: request.body, as: UTF8.self)
        let bare = action.replacingOccurrences(of: "\"", with: "")
        #expect(body.contains("Action xmlns:wsa=\"http://www.w3.org/2005/08/addressing\">\(bare)</wsa:Action>"), "\(body)")
    }

    @Test("a fault is a fault with HTTP 200 and with 500, and a Sender fault is not retried", arguments: [200, 500])
    func faults(status: Int) async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(status: status, reason: "X", contentType: "text/xml", body: TransportTests.fault)
        }
        await #expect(throws: SOAPFault.self) { try await sampleClient(server.url).page(firstPage) }
        #expect(server.requests.count == 1)
    }

    @Test("an HTML 502 page is reported as HTTP 502 with its text, after retries")
    func gatewayPage() async throws {
        let page = try String(contentsOf: Samples.url("Fixtures/html-502.html"), encoding: .utf8)
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(status: 502, reason: "Bad Gateway", contentType: "text/html", body: page)
        }
        do {
            _ = try await sampleClient(server.url).page(firstPage)
            Issue.record("no error")
        } catch TransportError.httpStatus(let status, let snippet) {
            #expect(status == 502)
            #expect(snippet.contains("502 Bad Gateway"))
        }
        #expect(server.requests.count == 4)  // 1 + 3 retries: 5xx may pass
    }

    @Test("a SOAP body with the wrong Content-Type is still read")
    func wrongContentType() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(contentType: "text/html", body: TransportTests.soap)
        }
        #expect(try await sampleClient(server.url).page(firstPage).hotels.count == 5)
    }

    @Test("a reset mid-body is retried; a later success wins")
    func resetThenSuccess() async throws {
        let attempts = Counter()
        let server = try ScriptedHTTPServer { _, connection in
            if attempts.next() < 2 {
                let bytes = Array(TransportTests.soap.utf8)
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: \(bytes.count)\r\n\r\n")
                connection.write(Array(bytes.prefix(bytes.count / 2)))
                connection.reset()
            } else {
                connection.respond(contentType: "text/xml", body: TransportTests.soap)
            }
        }
        #expect(try await sampleClient(server.url).page(firstPage).hotels.count == 5)
        #expect(server.requests.count == 3)
    }

    @Test("a reset on every try ends as connection lost")
    func resetAlways() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 5000\r\n\r\n<soap:Env")
            connection.reset()
        }
        await #expect {
            try await sampleClient(server.url).page(firstPage)
        } throws: { error in
            if case TransportError.connectionLost = error { return true }
            return false
        }
    }

    @Test("a chunked body past the limit is stopped")
    func chunkedTooLarge() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 32 << 10)
            for _ in 0..<64 where !connection.isClosedForTesting {
                connection.write(Array("8000\r\n".utf8) + chunk + Array("\r\n".utf8))
            }
            connection.write("0\r\n\r\n")
        }
        await #expect(throws: TransportError.tooLarge(limit: 256 << 10)) {
            try await sampleClient(server.url) { $0.maxBodyBytes = 256 << 10 }.page(firstPage)
        }
    }

    @Test("a gzip bomb is stopped when it inflates past the limit")
    func gzipBomb() async throws {
        let bomb = try [UInt8](Data(contentsOf: Samples.url("Network/gzip-bomb.gz")))
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(headers: ["Content-Type": "text/xml", "Content-Encoding": "gzip"], body: bomb)
        }
        await #expect(throws: TransportError.tooLarge(limit: 1 << 20)) {
            try await sampleClient(server.url) { $0.maxBodyBytes = 1 << 20 }.page(firstPage)
        }
    }

    @Test("a redirect loop stops after 5 redirects")
    func redirectLoop() async throws {
        let server = try ScriptedHTTPServer { request, connection in
            connection.respond(status: 307, reason: "Temporary Redirect", headers: ["Location": request.path + "x"], body: [])
        }
        await #expect(throws: TransportError.tooManyRedirects(5)) { try await sampleClient(server.url).page(firstPage) }
        #expect(server.requests.count == 6)
    }

    @Test("a body that stalls hits the request timeout, retried as a timeout")
    func slowBody() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n<soap:")
            _ = connection.waitForClientClose(seconds: 5)
        }
        await #expect {
            try await sampleClient(server.url) { $0.requestTimeout = .milliseconds(300) }.page(firstPage)
        } throws: { error in
            if case TransportError.timeout = error { return true }
            return false
        }
        #expect(server.requests.count == 4)
    }

    @Test("a POST with an empty body sends an empty body, not standard input")
    func emptyPost() async throws {
        let server = try ScriptedHTTPServer { _, connection in connection.respond(contentType: "text/plain", body: "ok") }
        let (head, body) = try await HTTPTransport().data(for: HTTPRequest(url: server.url + "/x", method: .post, body: []))
        #expect(head.status == 200 && body == Array("ok".utf8))
        #expect(server.requests.first?.method == "POST" && server.requests.first?.body.isEmpty == true)
    }

    @Test("nothing listening is unreachable")
    func refused() async throws {
        // Port 1, not a port a stopped server just gave back: the kernel hands a freed port to the next
        // server that asks for any (another test's sample service once answered here, with its hotels).
        await #expect {
            try await sampleClient("http://127.0.0.1:1").page(firstPage)
        } throws: { error in
            if case TransportError.unreachable = error { return true }
            return false
        }
    }

    @Test("connections are kept alive and reused")
    func keepAlive() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(contentType: "text/xml", body: TransportTests.soap)
        }
        let client = try sampleClient(server.url)
        for _ in 0..<5 { _ = try await client.page(firstPage) }
        #expect(server.requests.count == 5)
        // By the connection each request came on, not by accepts: under load another test's
        // client can connect to a port its stopped server gave back, and send nothing. Under
        // ThreadSanitizer on a loaded machine, libcurl twice opened a second connection for one
        // of the five, with no retry and no close by the server. Most likely the test's task waited
        // longer than libcurl keeps an idle connection (CURLOPT_MAXAGE_CONN, 118 s). So one
        // reconnection is allowed: without reuse, each request would come on a connection of its own.
        #expect(Set(server.requests.map(\.connection)).count <= 2)
    }

    @Test("cancelling aborts the transfer, and the server sees the connection close", .timeLimit(.minutes(10)))
    func cancellation() async throws {
        let (closed, watched) = (Counter(), Counter())
        let server = try ScriptedHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 100000\r\n\r\n<soap:")
            // A minute, however loaded the machine (a sanitizer's build): the test waits for the answer, not a time.
            if connection.waitForClientClose(seconds: 60) { _ = closed.next() }
            _ = watched.next()
        }
        // A stalled body is not what this tests: under a loaded sanitizer run the cancel once came after libcurl's 20 s stall limit.
        let client = try sampleClient(server.url) { $0.lowSpeedTime = .seconds(600) }
        let task = Task { try await client.page(firstPage) }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: TransportError.cancelled) { try await task.value }
        while watched.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(closed.value == 1, "the server saw the connection close")
        #expect(server.requests.count == 1)  // a cancel is not retried
    }
}

/// A thread-safe count.
final class Counter: Sendable {
    private let state = PosixMutex(0)
    func next() -> Int {
        state.withLock { value in
            defer { value += 1 }
            return value
        }
    }
    var value: Int { state.withLock { $0 } }
}
