import Foundation
import HTTP
import TestSupport
import Testing

/// HTTP 429 and 503 with `Retry-After`: the service says when to ask again.
@Suite("Retry-After")
struct RetryAfterTests {
    let now = Date(timeIntervalSince1970: 1_784_000_000)  // 2026-07-14T03:33:20Z

    @Test("seconds, or an HTTP date in any of RFC 9110's three forms; anything else is ignored")
    func parsing() {
        let head = { (value: String) in HTTPResponseHead(status: 503, headers: ["retry-after": value]) }
        #expect(head("120").retryAfter(now: now) == 120)
        #expect(head(" 0 ").retryAfter(now: now) == 0)
        #expect(head("Tue, 14 Jul 2026 03:35:20 GMT").retryAfter(now: now) == 120)
        #expect(head("Tuesday, 14-Jul-26 03:35:20 GMT").retryAfter(now: now) == 120)
        #expect(head("Tue Jul 14 03:35:20 2026").retryAfter(now: now) == 120)
        #expect(head("Mon, 13 Jul 2026 03:35:20 GMT").retryAfter(now: now) == 0, "a date in the past: now")
        for bad in ["-5", "soon", "12.5", ""] { #expect(head(bad).retryAfter(now: now) == nil, "\(bad)") }
        #expect(HTTPResponseHead(status: 503, headers: [:]).retryAfter(now: now) == nil)
    }

    @Test("only a 429 or 503 that says when becomes retryLater, which is not retried at once")
    func conversion() {
        let asked = HTTPResponseHead(status: 429, headers: ["retry-after": "30"])
        let converted = TransportError.httpStatus(429, snippet: "slow down").honouringRetryAfter(asked, now: now)
        #expect(converted == .retryLater(status: 429, after: 30, snippet: "slow down") && !converted.isRetryable)
        #expect(converted.description == "HTTP 429, asked to retry after 30 s: slow down")
        #expect(
            TransportError.httpStatus(500, snippet: "").honouringRetryAfter(HTTPResponseHead(status: 500, headers: ["retry-after": "30"]))
                == .httpStatus(500, snippet: ""))
        #expect(
            TransportError.httpStatus(503, snippet: "").honouringRetryAfter(HTTPResponseHead(status: 503, headers: [:]))
                == .httpStatus(503, snippet: ""))
    }

    @Test("hotels fetch against a service that answers 503 with Retry-After: asked once, exit 69, and the wait said")
    func fetchIsTold() async throws {
        let server = try ScriptedHTTPServer { _, connection in
            connection.respond(
                status: 503, reason: "Service Unavailable", headers: ["Retry-After": "120", "Content-Type": "text/plain"],
                body: Array("maintenance".utf8))
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("retry-after-\(UUID().uuidString)").path
        let result = try await HotelsProcess.run([
            "fetch", "--endpoint", server.url + "/soap", "--city", "Paris", "--out", out,
            "--cache", out + "-cache",
        ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 503, asked to retry after 120 s: maintenance"), "\(result.stderr)")
        #expect(result.stderr.contains("the service asked to be called again in 120 s"), "\(result.stderr)")
        #expect(server.requests.count == 1, "not retried at once: the service said when")
    }

    @Test("hotels serve --throttle-rate answers 429 with its --retry-after, which hotels fetch reports")
    func sampleServiceThrottles() async throws {
        let serve = try await ServeProcess(["--throttle-rate", "1", "--retry-after", "7"])
        defer { withExtendedLifetime(serve) {} }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("throttled-\(UUID().uuidString)").path
        let result = try await HotelsProcess.run([
            "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--out", out, "--cache", out + "-cache",
        ])
        #expect(result.status == 69 && result.stderr.contains("HTTP 429, asked to retry after 7 s"), "\(result.stderr)")
    }
}
