import Foundation
import HTTP
import Locking
import Logging

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

    init(
        call: String, request: HTTPRequest, responseHead: HTTPResponseHead?, responseBody: [UInt8], error: (any Error)?,
        secrets: SecretRedactor
    ) {
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

/// Every request and response as numbered files in a folder, headers first,
/// as a vendor's support desk asks for them (`003-page-2.request.http`,
/// `003-page-2.response.http`), readable by their owner only: `hotels fetch --dump`.
/// The client has redacted every secret.
public final class ExchangeFolder: ExchangeLog {
    public let folder: URL
    private let logger: Logger
    private let count = PosixMutex(0)

    /// Creates the folder; a file that cannot be written later is logged as a warning.
    public init(folder: URL, logger: Logger = Logger(label: "hotelkit.exchanges")) throws {
        self.folder = folder
        self.logger = logger
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    public func record(_ exchange: RecordedExchange) {
        let number = count.withLock { count in
            count += 1
            return count
        }
        let name = String(format: "%03d-", number) + exchange.call.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        var request = "POST \(exchange.url)\n" + exchange.requestHeaders.map { "\($0.name): \($0.value)\n" }.joined() + "\n"
        request += String(decoding: exchange.requestBody, as: UTF8.self)
        var response = exchange.status.map { "HTTP \($0)\n" } ?? "no response: \(exchange.error ?? "")\n"
        response += exchange.responseHeaders.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined() + "\n"
        response += String(decoding: exchange.responseBody, as: UTF8.self)
        if let error = exchange.error, exchange.status != nil { response += "\n\n(error: \(error))\n" }
        for (suffix, text) in [("request", request), ("response", response)] {
            let file = folder.appendingPathComponent("\(name).\(suffix).http")
            if !FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) {
                logger.warning("--dump: cannot write \(file.path)")
            }
        }
    }
}
