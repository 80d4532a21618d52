import Foundation
import HTTP
import Locking

/// An ``HTTPClient`` with no socket: each request is answered by a closure,
/// and every request is recorded, so tests check exactly what was asked.
public final class FakeHTTPClient: HTTPClient {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]

        public init(status: Int = 200, headers: [String: String] = [:], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        public static func xml(_ text: String, status: Int = 200) -> Response {
            Response(status: status, headers: ["content-type": "text/xml; charset=utf-8"], body: Array(text.utf8))
        }
    }

    /// Answers the request; `index` counts requests from 0.
    public typealias Responder = @Sendable (_ request: HTTPRequest, _ index: Int) async throws -> Response

    private let responder: Responder
    private let log = PosixMutex<[HTTPRequest]>([])

    public init(_ responder: @escaping Responder) {
        self.responder = responder
    }

    public var requests: [HTTPRequest] { log.withLock { $0 } }

    /// The bodies of the requests, as text.
    public var bodies: [String] { requests.map { String(decoding: $0.body ?? [], as: UTF8.self) } }

    public func send(_ request: HTTPRequest, into sink: some HTTPBodySink) async throws -> HTTPResponseHead {
        let index = log.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
        let response = try await responder(request, index)
        if Task.isCancelled { throw TransportError.cancelled }
        // In small chunks, as a network delivers them.
        for start in stride(from: 0, to: response.body.count, by: 512) {
            try response.body[start..<min(response.body.count, start + 512)].withUnsafeBytes { try sink.receive($0) }
        }
        return HTTPResponseHead(status: response.status, headers: response.headers)
    }
}

/// The sample service's QueryHotels, in memory: `count` hotels of one city,
/// newest first by addtime, paged by `before` (the `sample` profile).
public struct FakeSampleCatalog: Sendable {
    public struct Hotel: Sendable {
        public var code: String
        public var name: String
        public var addtime: Int
    }

    public var hotels: [Hotel]

    /// Codes H0001… with addtimes 2000, 1990, … (newest first).
    public init(count: Int, prefix: String = "H", firstAddtime: Int = 2000) {
        hotels = (0..<count).map { index in
            Hotel(code: prefix + String(format: "%04d", index + 1), name: "Hotel \(index + 1)", addtime: firstAddtime - 10 * index)
        }
    }

    /// The response to a QueryHotels request body.
    public func respond(to body: String) -> FakeHTTPClient.Response {
        let pageSize = Int(Self.value("pageSize", in: body) ?? "") ?? 50
        let before = Int(Self.value("before", in: body) ?? "")
        let page = hotels.filter { before == nil || $0.addtime < before! }.prefix(pageSize)
        let rows = page.map { hotel in
            "<h:Hotel><h:code>\(hotel.code)</h:code><h:name>\(hotel.name)</h:name>"
                + "<h:logoURL>http://logos.test/\(hotel.code).png</h:logoURL><h:addtime>\(hotel.addtime)</h:addtime></h:Hotel>"
        }.joined()
        return .xml(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>\
            <h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">\(rows)<h:lastAddTime>\(hotels.last?.addtime ?? 0)</h:lastAddTime>\
            </h:QueryHotelsResponse></soap:Body></soap:Envelope>
            """)
    }

    /// The text of `<h:NAME>…</h:NAME>` in a request body; nil when absent or empty.
    public static func value(_ name: String, in body: String) -> String? {
        guard let open = body.range(of: "<h:\(name)>"), let close = body.range(of: "</h:\(name)>", range: open.upperBound..<body.endIndex),
            open.upperBound < close.lowerBound
        else { return nil }
        return String(body[open.upperBound..<close.lowerBound])
    }

    /// A client that answers every request from this catalogue.
    public func client() -> FakeHTTPClient {
        FakeHTTPClient { request, _ in respond(to: String(decoding: request.body ?? [], as: UTF8.self)) }
    }
}

/// A swift-log handler that keeps what it is given, for tests that check what a library logs.
public final class LogRecorder: Sendable {
    private let lines = PosixMutex<[String]>([])

    public init() {}

    public var messages: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}
