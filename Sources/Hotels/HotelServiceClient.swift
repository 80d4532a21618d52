import Foundation
import SOAP

/// How idempotent reads are retried: at most `maxRetries` times, after an
/// exponential backoff with full jitter.
public struct RetryPolicy: Sendable {
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxRetries: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5)) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// A random delay up to `baseDelay × 2^(attempt - 1)`, capped.
    public func delay(beforeRetry attempt: Int) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(20, attempt - 1)))
        return ceiling * Double.random(in: 0...1)
    }

    /// Whether `error` is worth another try: the network or a failing
    /// service, never a request the service refused.
    public static func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case let error as TransportError: error.isRetryable
        case let fault as SOAPFault: fault.kind == .receiver
        default: false
        }
    }

    /// Runs `operation`, retrying what ``isRetryable(_:)`` allows.
    public func run<T: Sendable>(
        onRetry: @Sendable (Int, any Error) -> Void = { _, _ in },
        _ operation: () async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await operation()
            } catch {
                attempt += 1
                guard attempt <= maxRetries, Self.isRetryable(error), !Task.isCancelled else { throw error }
                onRetry(attempt, error)
                try await Task.sleep(for: delay(beforeRetry: attempt))
            }
        }
    }
}

/// Talks to one hotel SOAP service through its profile: asks for a page,
/// streams the response through the parser, and retries what can be retried.
public struct HotelServiceClient: Sendable {
    public let profile: ServiceProfile
    public let endpoint: String
    public let transport: HTTPTransport
    public let retry: RetryPolicy
    public let limits: XMLReaderLimits

    public init(profile: ServiceProfile, endpoint: String, transport: HTTPTransport = HTTPTransport(),
                retry: RetryPolicy = RetryPolicy(), limits: XMLReaderLimits = XMLReaderLimits()) {
        self.profile = profile
        self.endpoint = endpoint
        self.transport = transport
        self.retry = retry
        self.limits = limits
    }

    /// One page. Throws ``SOAPFault``, ``ServiceReportedError``, ``TransportError``
    /// (``TransportError/httpStatus(_:snippet:)`` for a non-SOAP error page),
    /// ``NotSOAPEnvelopeError`` or ``XMLReaderError``.
    public func fetchPage(_ parameters: RequestParameters,
                          onRetry: @Sendable (Int, any Error) -> Void = { _, _ in }) async throws -> HotelPage {
        let request = HTTPRequest(
            url: endpoint,
            method: .post,
            headers: profile.soapVersion.httpHeaders(action: profile.soapAction),
            body: Array(profile.requestMessage(parameters).utf8)
        )
        let parser = HotelResponseParser(profile: profile, limits: limits)
        return try await retry.run(onRetry: onRetry) {
            let sink = try PageSink(parser: parser)
            let head = try await transport.send(request, into: sink)
            return try sink.page(status: head.status)
        }
    }

    /// A GET with retries, for logos; the body is collected.
    public func download(_ url: String, headers: [(name: String, value: String)] = []) async throws -> (HTTPResponseHead, [UInt8]) {
        try await retry.run {
            try await transport.data(for: HTTPRequest(url: url, headers: headers))
        }
    }
}

/// Feeds a response into a parse session as it arrives. A parse error is
/// kept, not thrown, so the transfer ends normally and its status is known:
/// an HTML error page is reported as its HTTP status.
private final class PageSink: HTTPBodySink {
    private var hotels: [Hotel] = []
    private var warnings: [RecordWarning] = []
    private var session: HotelParseSession!
    private var failure: (any Error)?
    private var snippet: [UInt8] = []

    init(parser: HotelResponseParser) throws {
        session = try parser.session(
            onRecord: { [unowned self] in self.hotels.append($0) },
            onWarning: { [unowned self] in self.warnings.append($0) }
        )
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        if snippet.count < 300 { snippet.append(contentsOf: bytes.prefix(300 - snippet.count)) }
        guard failure == nil else { return }
        do {
            try session.feed(bytes)
        } catch {
            failure = error
        }
    }

    func page(status: Int) throws -> HotelPage {
        do {
            if let failure { throw failure }
            let summary = try session.finish()
            return HotelPage(hotels: hotels, warnings: warnings, nextCursor: summary.nextCursor, lastCursor: summary.lastCursor)
        } catch let fault as SOAPFault {
            throw fault // a fault is a fault, whatever the status
        } catch is NotSOAPEnvelopeError where !(200..<300).contains(status) {
            throw TransportError.httpStatus(status, snippet: textSnippet)
        } catch is XMLReaderError where !(200..<300).contains(status) {
            throw TransportError.httpStatus(status, snippet: textSnippet)
        }
    }

    private var textSnippet: String {
        String(decoding: snippet, as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
            .prefix(160).description
    }
}
