import Foundation
import SOAP
import TestSupport
import Testing

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

@Suite("Hostile input")
struct HostileInputTests {
    static let envelope = "http://schemas.xmlsoap.org/soap/envelope/"

    @Test("external entities reach neither the disk nor the network")
    func externalEntities() throws {
        // A loopback listener: any connection to it would be a parse reaching the network.
        let listener = try ScriptedHTTPServer { _, connection in connection.respond(contentType: "text/plain", body: "x") }
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
        #expect(listener.connectionCount == 0)
    }

    @Test(
        "every recorded attack is refused with the right error",
        arguments: [
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
