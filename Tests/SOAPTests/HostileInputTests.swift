import Foundation
import SOAP
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A body handler that only collects text, to see what a parse let through.
final class TextCollector: SOAPBodyHandler {
    var text = ""
    func startElement(_ element: XMLStartElement) throws {}
    func endElement(_ localName: XMLName) throws {}
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws { text += String(decoding: bytes, as: UTF8.self) }
    func bodyDidEnd() throws {}
}

func readSOAP(_ bytes: [UInt8], limits: XMLReaderLimits = XMLReaderLimits()) throws -> SOAPResponseReader<TextCollector> {
    let reader = try SOAPResponseReader(limits: limits) { _ in TextCollector() }
    try reader.feed(bytes)
    try reader.finish()
    return reader
}

/// A loopback TCP listener that counts connection attempts, to prove a parse
/// never reached the network.
final class ConnectionCounter {
    let port: UInt16
    private let socketDescriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socketDescriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        _ = fcntl(socketDescriptor, F_SETFL, O_NONBLOCK)
    }

    /// Connections waiting to be accepted; the listener never blocks.
    func pendingConnections() -> Int {
        var count = 0
        while case let client = accept(socketDescriptor, nil, nil), client >= 0 {
            close(client)
            count += 1
        }
        return count
    }

    deinit { close(socketDescriptor) }
}

@Suite("Hostile input")
struct HostileInputTests {
    static let envelope = "http://schemas.xmlsoap.org/soap/envelope/"

    @Test("external entities reach neither the disk nor the network")
    func externalEntities() throws {
        let listener = try ConnectionCounter()
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-secret-\(getpid())")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let documents = [
            #"<!DOCTYPE e [<!ENTITY x SYSTEM "file://\#(secret.path)">]><soap:Envelope xmlns:soap="\#(Self.envelope)"><soap:Body><a>&x;</a></soap:Body></soap:Envelope>"#,
            #"<!DOCTYPE e [<!ENTITY x SYSTEM "http://127.0.0.1:\#(listener.port)/x">]><soap:Envelope xmlns:soap="\#(Self.envelope)"><soap:Body><a>&x;</a></soap:Body></soap:Envelope>"#,
            #"<!DOCTYPE e [<!ENTITY % p SYSTEM "http://127.0.0.1:\#(listener.port)/p"> %p;]><soap:Envelope xmlns:soap="\#(Self.envelope)"><soap:Body/></soap:Envelope>"#,
            #"<!DOCTYPE e SYSTEM "http://127.0.0.1:\#(listener.port)/e.dtd"><soap:Envelope xmlns:soap="\#(Self.envelope)"><soap:Body/></soap:Envelope>"#,
        ]
        for document in documents {
            do {
                let reader = try readSOAP(Array(document.utf8))
                Issue.record("accepted, body text: \(reader.body.text)")
            } catch XMLReaderError.doctypeForbidden {
            }
        }
        #expect(listener.pendingConnections() == 0)
    }

    @Test("every recorded attack is refused with the right error", arguments: [
        ("hostile-xxe-file.xml", "doctype"), ("hostile-xxe-network.xml", "doctype"),
        ("hostile-xxe-parameter.xml", "doctype"), ("hostile-external-dtd.xml", "doctype"),
        ("hostile-billion-laughs.xml", "doctype"), ("hostile-quadratic-blowup.xml", "doctype"),
        ("hostile-deep-nesting.xml", "depth"), ("hostile-huge-text.xml", "text"),
        ("hostile-undeclared-entity.xml", "malformed"),
    ])
    func recordedAttacks(file: String, expected: String) throws {
        do {
            _ = try readSOAP(try Samples.fixture(file))
            Issue.record("\(file) was accepted")
        } catch let error as XMLReaderError {
            switch (error, expected) {
            case (.doctypeForbidden, "doctype"), (.limitExceeded(.depth, _), "depth"),
                 (.limitExceeded(.textLength, _), "text"), (.malformed, "malformed"):
                break
            default:
                Issue.record("\(file): \(error)")
            }
        }
    }

    @Test("a document fed past the total cap stops at the cap")
    func endlessStream() throws {
        let reader = try SOAPResponseReader(limits: XMLReaderLimits(maxInputBytes: 1 << 20)) { _ in TextCollector() }
        try reader.feed(Array(#"<soap:Envelope xmlns:soap="\#(Self.envelope)"><soap:Body><a>"#.utf8))
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        var fed = 0
        do {
            while fed < 64 << 20 {
                try reader.feed(Array("<b>".utf8) + chunk + Array("</b>".utf8))
                fed += chunk.count
            }
            Issue.record("no limit hit")
        } catch XMLReaderError.limitExceeded(.inputBytes, _) {
        }
        #expect(fed <= 1 << 20)
    }
}
