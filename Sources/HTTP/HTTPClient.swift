import Failures
import Foundation

/// What HotelKit asks of HTTP: send one request and stream its body into a
/// sink. ``HTTPTransport`` does it over libcurl; tests give an in-memory
/// fake, so paging, retries and faults are tested with no socket.
///
/// Cancelling the calling task must abort the transfer and throw
/// ``TransportError/cancelled``.
public protocol HTTPClient: Sendable {
    /// Sends `request`, streaming the body into `sink` as it arrives; returns
    /// the final head. An error the sink throws stops the transfer and is rethrown.
    func send(_ request: HTTPRequest, into sink: some HTTPBodySink) async throws -> HTTPResponseHead
}

extension HTTPClient {
    /// Sends `request` and collects the whole body.
    public func data(for request: HTTPRequest) async throws -> (HTTPResponseHead, [UInt8]) {
        let collector = BodyCollector()
        let head = try await send(request, into: collector)
        return (head, collector.bytes)
    }
}

/// Collects a body in memory.
final class BodyCollector: HTTPBodySink {
    var bytes: [UInt8] = []
    func receive(_ chunk: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: chunk) }
}

/// Limits and behaviour of an ``HTTPTransport``.
public struct TransportConfiguration: Sendable {
    public var connectTimeout: Duration = .seconds(10)
    /// The whole request, redirects included.
    public var requestTimeout: Duration = .seconds(60)
    /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedTime` is aborted.
    public var lowSpeedBytesPerSecond = 100
    public var lowSpeedTime: Duration = .seconds(20)
    /// The most body bytes accepted, after decompression, with or without a length.
    public var maxBodyBytes = 64 << 20
    public var maxRedirects = 5
    /// Off only with `--insecure`.
    public var verifyTLS = true
    /// Which addresses a transfer may connect to, checked on every connection
    /// it opens (a redirect's too): ``AddressRule/publicOnly`` for URLs a
    /// supplier's data names, which must not reach this machine's network.
    public var addressRule = AddressRule.any
    public var userAgent = "hotelkit/\(HotelKitVersion.string)"

    public init() {}
}

/// HotelKit's version, as User-Agent and `--version` give it.
public enum HotelKitVersion {
    public static let string = "0.1.0"
}

/// An HTTP request.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    public var url: String
    public var method: Method
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(url: String, method: Method = .get, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// The status and headers of the final response (after redirects).
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: Int
    /// Header names lowercased; a repeated header keeps its last value.
    public var headers: [String: String]

    public init(status: Int, headers: [String: String]) {
        self.status = status
        self.headers = headers
    }

    /// `Retry-After` in seconds from `now`: delay-seconds, or an HTTP date
    /// (IMF-fixdate, RFC 850 or asctime, as RFC 9110 says to accept). Nil
    /// when absent or unreadable; a date in the past is 0.
    public func retryAfter(now: Date = Date()) -> Double? {
        guard let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCIIDigit) { return Double(value) }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}

extension TransportError {
    /// A 429 or 503 whose head says when to retry, as ``retryLater(status:after:snippet:)``; any other error as it is.
    public func honouringRetryAfter(_ head: HTTPResponseHead?, now: Date = Date()) -> TransportError {
        guard case .httpStatus(let status, let snippet) = self, status == 429 || status == 503,
            let after = head?.retryAfter(now: now)
        else { return self }
        return .retryLater(status: status, after: after, snippet: snippet)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// Receives a response body as it arrives, on the transfer's thread.
/// Throwing stops the transfer, and the transport rethrows the error.
public protocol HTTPBodySink: AnyObject {
    func receive(_ bytes: UnsafeRawBufferPointer) throws
}

/// Why a request failed, in the terms a caller acts on.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No route to the service: DNS failure, connection refused, network
    /// unreachable. The caller may serve cached data.
    case unreachable(String)
    case timeout(String)
    case tls(String)
    /// The body passed ``TransportConfiguration/maxBodyBytes``.
    case tooLarge(limit: Int)
    /// The caller cancelled: not a failure of the service.
    case cancelled
    /// A status that is not a SOAP response, with the start of the body.
    case httpStatus(Int, snippet: String)
    /// HTTP 429 or 503 whose `Retry-After` said when to ask again, in seconds from the answer.
    case retryLater(status: Int, after: Double, snippet: String)
    case tooManyRedirects(Int)
    /// ``AddressRule/publicOnly`` refused a connection to this private, loopback or link-local address.
    case refusedAddress(String)
    /// The connection broke mid-response.
    case connectionLost(String)
    case other(String)

    /// No network rather than a refusal: no route, refused, timed out, or
    /// cut off. A cache may stand in for the service.
    public var isOffline: Bool {
        switch self {
        case .unreachable, .timeout, .connectionLost: true
        default: false
        }
    }

    /// Whether a retry of an idempotent request may succeed now. A
    /// ``retryLater(status:after:snippet:)`` is not: the service said when,
    /// and a job queue reschedules it for then.
    public var isRetryable: Bool {
        switch self {
        case .httpStatus(let status, _): status >= 500
        default: isOffline
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let reason): "service unreachable: \(reason)"
        case .timeout(let reason): "timed out: \(reason)"
        case .tls(let reason): "TLS failed: \(reason)"
        case .tooLarge(let limit): "response larger than \(limit) bytes"
        case .cancelled: "cancelled"
        case .httpStatus(let status, let snippet): "HTTP \(status)" + (snippet.isEmpty ? "" : ": \(snippet)")
        case .retryLater(let status, let after, let snippet):
            "HTTP \(status), asked to retry after \(Int(after.rounded(.up))) s" + (snippet.isEmpty ? "" : ": \(snippet)")
        case .tooManyRedirects(let count): "more than \(count) redirects"
        case .refusedAddress(let address): "refused to connect to \(address), a private, loopback or link-local address"
        case .connectionLost(let reason): "connection lost: \(reason)"
        case .other(let reason): reason
        }
    }
}

extension TransportError: MeaningfulError {
    /// No network or HTTP 5xx may pass (69); 401 and 403 are ``/Failures/ErrorMeaning/credentials``; another refusal is 76.
    public var meaning: ErrorMeaning {
        switch self {
        case _ where isOffline:
            ErrorMeaning(
                kind: .transient, status: .unavailable, hint: "check that the service is running and the endpoint URL is right",
                isRetryable: true)
        case .tls:
            ErrorMeaning(
                kind: .unavailable, status: .unavailable, hint: "the certificate could not be verified; --insecure skips the check (unsafe)"
            )
        case .httpStatus(let status, _) where status == 401 || status == 403:
            .credentials
        case .httpStatus(let status, _) where status >= 500:
            ErrorMeaning(kind: .transient, status: .unavailable, isRetryable: true)
        case .retryLater(_, let after, _):
            ErrorMeaning(
                kind: .transient, status: .unavailable, hint: "the service asked to be called again in \(Int(after.rounded(.up))) s",
                isRetryable: true)
        case .tooLarge:
            ErrorMeaning(kind: .badData, status: .dataError)
        default:
            ErrorMeaning(kind: .refused, status: .protocolError)
        }
    }
}
