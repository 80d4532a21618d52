import SOAP
import Testing

/// Has the reader read `a` (slot 0) and `b` (slot 1) among each `r`'s
/// children, and records the events it still gets, with each `r`'s fields.
final class FieldRecorder: XMLEventHandler {
    private let names: XMLNameTable
    private(set) var events: [String] = []
    private(set) var fields: [String] = []
    private var text = ""

    init(names: XMLNameTable) {
        self.names = names
        names.fields.setFields([(names.name("a"), 0), (names.name("b"), 1)])
        names.textInterest.isActive = false
    }

    func startElement(_ element: XMLStartElement) throws {
        flushText()
        events.append("start \(element.localName.string)")
        switch element.localName.string {
        case "r": names.fields.readChildren(of: element)
        case "b": names.textInterest.isActive = true  // a `b` handed back: its text comes here
        default: break
        }
    }

    func endElement(_ localName: XMLName) throws {
        flushText()
        events.append("end \(localName.string)")
        switch localName.string {
        case "b":
            names.textInterest.isActive = false
        case "r":
            let buffer = names.textInterest.buffer
            for slot in 0..<2 where names.fields.read & (1 << slot) != 0 {
                let range = names.fields.range(of: slot)
                fields.append("\(slot)=" + String(decoding: buffer.bytes(from: range.lowerBound).prefix(range.count), as: UTF8.self))
            }
            names.fields.reset()
            names.fields.stopReading()
            buffer.count = 0
        default:
            break
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        text += String(decoding: bytes, as: UTF8.self)
    }

    private func flushText() {
        if !text.isEmpty { events.append("text \(text)") }
        text = ""
    }
}

@Suite("XMLFieldCapture")
struct XMLFieldCaptureTests {
    func read(_ document: String, chunkSize: Int? = nil, limits: XMLReaderLimits = XMLReaderLimits()) throws -> FieldRecorder {
        let bytes = Array(document.utf8)
        let reader = try XMLPushReader(limits: limits) { FieldRecorder(names: $0) }
        let size = chunkSize ?? bytes.count
        for start in stride(from: 0, to: bytes.count, by: size) {
            try reader.feed(Array(bytes[start..<min(start + size, bytes.count)]))
        }
        try reader.finish()
        return reader.handler
    }

    @Test(
        "fields are read with no event; one holding an element, or with an attribute, comes to the handler whole; the first of a name wins",
        arguments: [nil, 1, 3])
    func fields(chunkSize: Int?) throws {
        let recorder = try read(
            "<doc><r><a> x </a><b>y<i>z</i>w</b><a>q</a><c>n</c></r><r><b>B&amp;<![CDATA[<C>]]></b><a k=\"1\">A</a></r></doc>",
            chunkSize: chunkSize)
        #expect(
            recorder.events == [
                "start doc", "start r", "start b", "text y", "start i", "text z", "end i", "text w", "end b", "start c", "end c", "end r",
                "start r", "start a", "end a", "end r", "end doc",
            ])
        // Untrimmed, as the reader found them; the handed back `b` is the handler's, not read here.
        #expect(recorder.fields == ["0= x ", "1=B&<C>"])
    }

    @Test("a field's text is held to the text limit like any other")
    func limit() throws {
        #expect {
            try read("<doc><r><a>12345</a></r></doc>", limits: XMLReaderLimits(maxTextLength: 4))
        } throws: { error in
            guard case XMLReaderError.limitExceeded(.textLength(4), _) = error else { return false }
            return true
        }
    }
}
