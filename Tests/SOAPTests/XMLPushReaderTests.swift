import Foundation
import SOAP
import TestSupport
import Testing

/// Records every event as text, to compare parses.
final class EventRecorder: XMLEventHandler {
    var events: [String] = []
    private var text = ""

    func startElement(_ element: XMLStartElement) throws {
        flushText()
        let attributes = element.attributes.map { "\($0.localName)=\($0.value)" }.joined(separator: ",")
        events.append("start \(element.namespaceURI ?? "-") \(element.localName.string) [\(attributes)]")
    }

    func endElement(_ localName: XMLName) throws {
        flushText()
        events.append("end \(localName.string)")
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        text += String(decoding: bytes, as: UTF8.self)
    }

    private func flushText() {
        if !text.isEmpty { events.append("text \(text)") }
        text = ""
    }
}

func recordEvents(_ bytes: [UInt8], chunkSize: Int? = nil, limits: XMLReaderLimits = XMLReaderLimits()) throws -> [String] {
    let reader = try XMLPushReader(limits: limits) { _ in EventRecorder() }
    let size = chunkSize ?? max(bytes.count, 1)
    var offset = 0
    while offset < bytes.count {
        try reader.feed(Array(bytes[offset..<min(offset + size, bytes.count)]))
        offset += size
    }
    try reader.finish()
    return reader.handler.events
}

/// Hands everything inside its first element's children to a recorder by
/// the reader's route, and records the rest itself.
final class RoutingRecorder: XMLEventHandler {
    let own = EventRecorder()
    let routed = EventRecorder()
    private let route: XMLEventRoute
    private var depth = 0

    init(names: XMLNameTable) {
        route = names.route
    }

    var routeTarget: (any XMLEventHandler)? { routed }

    func startElement(_ element: XMLStartElement) throws {
        depth += 1
        try own.startElement(element)
        if depth == 2 { route.deliver(deeperThan: 2) }
    }

    func endElement(_ localName: XMLName) throws {
        depth -= 1
        try own.endElement(localName)
        if depth == 1 { route.clear() }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try own.characters(bytes)
    }
}

@Suite("XML push reader")
struct XMLPushReaderTests {
    @Test("events carry local names, namespaces and attributes")
    func namespaces() throws {
        let xml = #"<a:root xmlns:a="urn:a" xmlns="urn:d"><child x="1" a:y="2">hi</child></a:root>"#
        let events = try recordEvents(Array(xml.utf8))
        #expect(events == ["start urn:a root []", "start urn:d child [x=1,y=2]", "text hi", "end child", "end root"])
    }

    @Test("a route hands a subtree's events, text and end tags to the route target, and clearing it takes them back")
    func route() throws {
        let xml = "<root><a><b>in</b>mid<c/></a>out<d><e>x</e></d></root>"
        let reader = try XMLPushReader { names in RoutingRecorder(names: names) }
        try reader.feed(Array(xml.utf8))
        try reader.finish()
        #expect(
            reader.handler.routed.events == [
                "start - b []", "text in", "end b", "start - c []", "end c",
                "start - e []", "text x", "end e",
            ])
        #expect(
            reader.handler.own.events == [
                "start - root []", "start - a []", "text mid", "end a", "text out",
                "start - d []", "end d", "end root",
            ])
    }

    @Test("chunk boundaries do not change the events", arguments: [1, 2, 3, 7, 64, 4096])
    func chunking(chunkSize: Int) throws {
        for name in ["sample-soap11.xml", "sample-utf16le-bom.xml", "sample-gbk.xml", "sample-cdata-refs.xml", "sample-shift_jis.xml"] {
            let bytes = try Samples.fixture(name)
            #expect(try recordEvents(bytes, chunkSize: chunkSize) == recordEvents(bytes), "\(name)")
        }
    }

    @Test("predefined entities and character references are decoded; CDATA is text")
    func references() throws {
        let xml = "<r>&lt;&amp;&gt;&quot;&apos;&#x4E0A;&#28023;<![CDATA[<raw>&amp;]]></r>"
        #expect(try recordEvents(Array(xml.utf8)) == ["start - r []", "text <&>\"'上海<raw>&amp;", "end r"])
    }

    @Test("names from the table match parsed names by identity")
    func interning() throws {
        final class Matcher: XMLEventHandler {
            let wanted: XMLName
            var hits = 0
            init(names: XMLNameTable) { wanted = names.name("Hotel") }
            func startElement(_ element: XMLStartElement) throws { if element.localName == wanted { hits += 1 } }
            func endElement(_ localName: XMLName) throws {}
            func characters(_ text: UnsafeBufferPointer<UInt8>) throws {}
        }
        let reader = try XMLPushReader { Matcher(names: $0) }
        try reader.feed(try Samples.fixture("sample-soap12.xml"))
        try reader.finish()
        #expect(reader.handler.hits == 5)
    }

    @Test("a depth past the cap is refused, and the cap can be raised")
    func depthCap() throws {
        let xml = String(repeating: "<a>", count: 20) + String(repeating: "</a>", count: 20)
        #expect(throws: XMLReaderError.self) {
            try recordEvents(Array(xml.utf8), limits: XMLReaderLimits(maxDepth: 10))
        }
        #expect(try recordEvents(Array(xml.utf8), limits: XMLReaderLimits(maxDepth: 20)).count == 40)
    }

    @Test("text and attribute values past the cap are refused")
    func textCap() throws {
        let long = String(repeating: "x", count: 101)
        for xml in ["<a>\(long)</a>", "<a v=\"\(long)\"/>", "<a>\(long.prefix(60))<![CDATA[\(long.prefix(60))]]></a>"] {
            do {
                _ = try recordEvents(Array(xml.utf8), chunkSize: 16, limits: XMLReaderLimits(maxTextLength: 100))
                Issue.record("accepted \(xml.prefix(20))")
            } catch XMLReaderError.limitExceeded(.textLength(100), _) {
            }
        }
    }

    /// Found by fuzzing (`scripts/fuzz parse`): bytes that are not Shift_JIS
    /// failed as “libxml2 error 81” whole and “libxml2 error -1” in chunks.
    @Test("bytes invalid in the declared encoding are the same error, with a reason, however they are chunked")
    func invalidEncodingBytes() throws {
        let bytes = try [UInt8](Data(contentsOf: Samples.url("Fuzz/parse-shift-jis-invalid-bytes.xml")))
        for chunkSize in [nil, 1, 7, 64] {
            #expect(
                throws: XMLReaderError.malformed(
                    reason: "bytes that are not valid in the document's encoding",
                    at: XMLPosition(line: 2, column: 1))
            ) {
                _ = try recordEvents(bytes, chunkSize: chunkSize)
            }
        }
    }

    @Test("input past the total cap is refused before it is parsed")
    func inputCap() throws {
        let bytes = try Samples.fixture("sample-soap11.xml")
        #expect(throws: XMLReaderError.limitExceeded(.inputBytes(1000), at: XMLPosition(line: 1, column: 1))) {
            _ = try recordEvents(bytes, chunkSize: 1001, limits: XMLReaderLimits(maxInputBytes: 1000))
        }
    }

    @Test("a handler's error stops the parse and comes back unchanged")
    func handlerError() throws {
        struct Stop: Error, Equatable {}
        final class Stopper: XMLEventHandler {
            var starts = 0
            func startElement(_ element: XMLStartElement) throws {
                starts += 1
                if starts == 2 { throw Stop() }
            }
            func endElement(_ localName: XMLName) throws {}
            func characters(_ text: UnsafeBufferPointer<UInt8>) throws {}
        }
        let reader = try XMLPushReader { _ in Stopper() }
        // Past the kilobyte the reader holds before parsing: the events start during this feed.
        let document = "<a><b/><c/><d/>" + String(repeating: "<e/>", count: 300) + "</a>"
        #expect(throws: Stop()) { try reader.feed(Array(document.utf8)) }
        #expect(reader.handler.starts == 2)
        #expect(throws: Stop()) { try reader.finish() }
    }

    @Test("malformed input names the position")
    func malformed() throws {
        do {
            _ = try recordEvents(Array("<a>\n<b></a>".utf8))
            Issue.record("accepted")
        } catch XMLReaderError.malformed(let reason, let position) {
            #expect(position.line == 2)
            #expect(reason.contains("mismatch"))
        }
    }
}
