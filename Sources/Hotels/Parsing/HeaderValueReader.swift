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
    /// The values being read from elements' text, outermost first: which
    /// ones (two names may read the same element), at what depth, the text
    /// so far. An element inside one being read is read too.
    private var captures: [(indices: [Int], depth: Int, bytes: [UInt8])] = []
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
            } else if captures.last?.depth == open.count {
                captures[captures.count - 1].indices.append(index)
            } else {
                captures.append(([index], open.count, []))
                textInterest.isActive = true
            }
        }
    }

    func endElement(_ localName: XMLName) throws {
        if let capture = captures.last, capture.depth == open.count {
            let text = String(decoding: capture.bytes, as: UTF8.self).trimmingWhitespace()
            for index in capture.indices { values[wanted[index].name] = text }
            captures.removeLast()
            textInterest.isActive = !captures.isEmpty
        }
        open.removeLast()
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) throws {
        for index in captures.indices { captures[index].bytes.append(contentsOf: text) }
    }
}
