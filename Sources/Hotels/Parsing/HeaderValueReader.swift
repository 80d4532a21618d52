import SOAP

/// Reads a profile's named values out of the SOAP Header: a session token
/// (Sabre's `wsse:BinarySecurityToken`), an echo token, a conversation id.
///
/// A Header is small and comes once per response, so this keeps the chain
/// of open element names and compares each path with its end: simple, and
/// off the Body's hot path.
final class HeaderValueReader: XMLEventHandler {
    private struct Wanted {
        let name: String
        let steps: [XMLName]
        let attribute: XMLName?
    }

    private let wanted: [Wanted]
    private let textInterest: XMLTextInterest
    private var open: [XMLName] = []
    /// The value being read from an element's text: which one, at what depth, so far.
    private var capture: (index: Int, depth: Int, bytes: [UInt8])?
    private(set) var values: [String: String] = [:]

    init(_ paths: [String: DocumentPath], names: XMLNameTable) {
        wanted = paths.sorted { $0.key < $1.key }.map { name, path in
            Wanted(name: name, steps: path.steps.elements.map(names.name), attribute: path.steps.attribute.map(names.name))
        }
        textInterest = names.textInterest
    }

    func startElement(_ element: XMLStartElement) throws {
        open.append(element.localName)
        for (index, path) in wanted.enumerated() where values[path.name] == nil && open.count >= path.steps.count {
            guard open.suffix(path.steps.count).elementsEqual(path.steps) else { continue }
            if let attribute = path.attribute {
                if let value = element.attribute(attribute) { values[path.name] = value.trimmingWhitespace() }
            } else if capture == nil {
                capture = (index, open.count, [])
                textInterest.isActive = true
            }
        }
    }

    func endElement(_ localName: XMLName) throws {
        if let capture, capture.depth == open.count {
            values[wanted[capture.index].name] = String(decoding: capture.bytes, as: UTF8.self).trimmingWhitespace()
            self.capture = nil
            textInterest.isActive = false
        }
        open.removeLast()
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) throws {
        capture?.bytes.append(contentsOf: text)
    }
}
