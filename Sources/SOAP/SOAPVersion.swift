import Foundation
import HTTP

/// The two SOAP versions, told apart by the envelope's namespace.
public enum SOAPVersion: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case v1_1 = "1.1"
    case v1_2 = "1.2"

    /// The namespace of `Envelope`, `Header`, `Body` and `Fault`.
    public var namespaceURI: String {
        switch self {
        case .v1_1: "http://schemas.xmlsoap.org/soap/envelope/"
        case .v1_2: "http://www.w3.org/2003/05/soap-envelope"
        }
    }

    /// The version whose envelope namespace this is.
    public init?(namespaceURI: String) {
        guard let version = Self.allCases.first(where: { $0.namespaceURI == namespaceURI }) else { return nil }
        self = version
    }

    public var description: String { "SOAP \(rawValue)" }

    /// The media type of a message of this version.
    public var mediaType: String {
        switch self {
        case .v1_1: "text/xml"
        case .v1_2: "application/soap+xml"
        }
    }

    /// The HTTP headers that carry a message: SOAP 1.1 names the action in
    /// `SOAPAction`, SOAP 1.2 in the Content-Type's `action` parameter.
    public func httpHeaders(action: String) -> [(name: String, value: String)] {
        switch self {
        case .v1_1:
            [("Content-Type", "text/xml; charset=utf-8"), ("SOAPAction", "\"\(action)\"")]
        case .v1_2:
            [("Content-Type", "application/soap+xml; charset=utf-8; action=\"\(action)\"")]
        }
    }

    /// The version a request's Content-Type names, if any.
    public init?(contentType: String) {
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        switch mediaType {
        case "text/xml": self = .v1_1
        case "application/soap+xml": self = .v1_2
        default: return nil
        }
    }
}

/// Builds SOAP envelopes around a body.
public enum SOAPEnvelope {
    /// A complete SOAP message: the XML declaration, then an `Envelope` holding
    /// an optional `Header` and a `Body` with `body` as its content.
    ///
    /// `body` and `header` are inserted as they are: they must be XML already.
    public static func message(version: SOAPVersion, body: String, header: String? = nil) -> String {
        opening(version: version, header: header) + body + closing
    }

    /// The start of ``message(version:body:header:)``, up to and including
    /// `<soap:Body>`: for a writer that streams the body's bytes itself.
    public static func opening(version: SOAPVersion, header: String? = nil) -> String {
        var message = #"<?xml version="1.0" encoding="utf-8"?>"#
        message += #"<soap:Envelope xmlns:soap="\#(version.namespaceURI)">"#
        if let header {
            message += "<soap:Header>\(header)</soap:Header>"
        }
        return message + "<soap:Body>"
    }

    /// What follows the body in ``message(version:body:header:)``.
    public static let closing = "</soap:Body></soap:Envelope>"
}

extension SOAPEnvelope {
    /// The HTTP request that carries a message: a POST with the version's
    /// Content-Type and action headers.
    public static func request(
        to endpoint: String, version: SOAPVersion, action: String, body: String,
        header: String? = nil
    ) -> HTTPRequest {
        HTTPRequest(
            url: endpoint, method: .post, headers: version.httpHeaders(action: action),
            body: Array(message(version: version, body: body, header: header).utf8))
    }
}

/// XML escaping for text and attribute values.
public enum XMLEscaping {
    /// `text` with `& < > " '` replaced by entity references, safe both as
    /// element content and inside a quoted attribute.
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return text
        }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 16)
        escape(text, into: &escaped)
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Appends `text`'s UTF-8 to `bytes`, escaped as ``escape(_:)`` escapes it:
    /// for writers that build a message as bytes.
    public static func escape(_ text: String, into bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() {
                let entity: StaticString
                switch byte {
                case UInt8(ascii: "&"): entity = "&amp;"
                case UInt8(ascii: "<"): entity = "&lt;"
                case UInt8(ascii: ">"): entity = "&gt;"
                case UInt8(ascii: "\""): entity = "&quot;"
                case UInt8(ascii: "'"): entity = "&apos;"
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                entity.withUTF8Buffer { bytes.append(contentsOf: $0) }
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
    }
}
