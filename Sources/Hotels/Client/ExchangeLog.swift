import Foundation
import HTTP

/// Receives every request a ``HotelClient`` sends and what came back, with
/// secrets redacted: what `hotels fetch --dump` writes, and what a vendor
/// asks for when they say "send us your request".
public protocol ExchangeLog: Sendable {
    func record(_ exchange: RecordedExchange)
}

/// One request and its response, redacted.
public struct RecordedExchange: Sendable {
    /// What the call was: `page 3`, `session 1 login`.
    public var call: String
    public var url: String
    public var requestHeaders: [(name: String, value: String)]
    public var requestBody: [UInt8]
    /// Nil when no response came.
    public var status: Int?
    public var responseHeaders: [String: String]
    public var responseBody: [UInt8]
    public var error: String?

    init(call: String, request: HTTPRequest, responseHead: HTTPResponseHead?, responseBody: [UInt8], error: (any Error)?,
         secrets: SecretRedactor) {
        self.call = call
        url = secrets.redact(request.url)
        requestHeaders = request.headers.map { header in
            // The credentials are in there, encoded: never written, whatever the redactor knows.
            header.name.lowercased() == "authorization"
                ? (header.name, (header.value.split(separator: " ").first.map { $0 + " " } ?? "") + SecretRedactor.mask)
                : (header.name, secrets.redact(header.value))
        }
        requestBody = secrets.redact(request.body ?? [])
        status = responseHead?.status
        responseHeaders = (responseHead?.headers ?? [:]).mapValues(secrets.redact)
        self.responseBody = secrets.redact(responseBody)
        self.error = error.map { "\(secrets.redact($0))" }
    }
}
