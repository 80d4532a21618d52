import Foundation
import HTTP
import Logging
import SOAP

/// How a ``HotelClient`` talks to its service. Every default is usable as is.
public struct HotelClientConfiguration: Sendable {
    /// How requests travel: libcurl by default; an in-memory fake in tests.
    public var transport: any HTTPClient
    /// Caps on every response: depth 128, one text 1 MiB, the document 256 MiB.
    public var limits: XMLReaderLimits
    /// Network errors, timeouts and HTTP 5xx without a fault are retried 3
    /// times with backoff. A SOAP fault is the service's answer and is not
    /// retried, unless the profile names its code in `transientFaults`.
    public var retry: RetryPolicy
    /// Retries and record warnings are logged here as warnings.
    public var logger: Logger
    /// Record warnings of each kind logged per list, 10 by default; then one
    /// line says how many more there were. Nil logs every one.
    public var warningsPerKind: Int?
    /// Where `{env:NAME}` placeholders are read: the environment by default.
    public var credentials: Credentials
    /// Receives every request and response, secrets redacted (`hotels fetch --dump`).
    public var exchangeLog: (any ExchangeLog)?

    public init(
        transport: any HTTPClient = HTTPTransport(), limits: XMLReaderLimits = XMLReaderLimits(),
        retry: RetryPolicy = RetryPolicy(), logger: Logger = Logger(label: "hotelkit.client"), warningsPerKind: Int? = 10,
        credentials: Credentials = .environment, exchangeLog: (any ExchangeLog)? = nil
    ) {
        self.transport = transport
        self.limits = limits
        self.retry = retry
        self.logger = logger
        self.warningsPerKind = warningsPerKind
        self.credentials = credentials
        self.exchangeLog = exchangeLog
    }
}
