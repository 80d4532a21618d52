import Foundation
import Hotels
import Locking

/// `--dump DIR`: every request and response as numbered files, headers
/// first, as a vendor's support desk asks for them (`003-page-2.request.http`,
/// `003-page-2.response.http`). The client has redacted every secret.
final class ExchangeDump: ExchangeLog {
    private let folder: URL
    private let count = PosixMutex(0)

    init(folder path: String) throws {
        folder = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func record(_ exchange: RecordedExchange) {
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
                Diagnostics.warning("--dump: cannot write \(file.path)")
            }
        }
    }
}
