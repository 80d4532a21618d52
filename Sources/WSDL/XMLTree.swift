import SOAP

/// A qualified name: a namespace URI and a local name, as WSDL and XML
/// Schema refer to their declarations (`tns:QueryHotels`).
public struct QualifiedName: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var namespace: String
    public var name: String

    public init(namespace: String, name: String) {
        self.namespace = namespace
        self.name = name
    }

    public var description: String { namespace.isEmpty ? name : "{\(namespace)}\(name)" }

    public static func < (lhs: QualifiedName, rhs: QualifiedName) -> Bool {
        (lhs.name, lhs.namespace) < (rhs.name, rhs.namespace)
    }
}

/// One element of a small document held whole: a WSDL, an XML Schema, or a
/// recorded response read to guess a profile from. Built by `XMLTreeBuilder`
/// on the streaming ``/SOAP/XMLPushReader``, so every document is read under the
/// reader's rules: no DOCTYPE, no entity, nothing loaded, size caps.
public struct XMLTreeElement: Sendable {
    public var localName: String
    public var namespaceURI: String
    /// Attributes by local name, whatever their namespace.
    public var attributes: [String: String]
    public var children: [XMLTreeElement]
    /// The element's own text (not its children's), trimmed.
    public var text: String
    /// Every namespace in scope here, by prefix ("" for the default one):
    /// what a QName-valued attribute (`type="tns:Hotel"`) is resolved with.
    public var namespaces: [String: String]

    /// The children in `namespace` named `name`.
    public func children(_ name: String, in namespace: String) -> [XMLTreeElement] {
        children.filter { $0.localName == name && $0.namespaceURI == namespace }
    }

    /// The first child in `namespace` named `name`.
    public func child(_ name: String, in namespace: String) -> XMLTreeElement? {
        children.first { $0.localName == name && $0.namespaceURI == namespace }
    }

    /// The attribute's value as a qualified name, resolved with the
    /// namespaces in scope; an unprefixed name is in the default namespace.
    public func qualifiedName(_ attribute: String) -> QualifiedName? {
        guard let value = attributes[attribute]?.trimmingWhitespace(), !value.isEmpty else { return nil }
        return resolve(value)
    }

    /// `prefix:local` resolved with the namespaces in scope.
    public func resolve(_ value: String) -> QualifiedName {
        guard let colon = value.firstIndex(of: ":") else {
            return QualifiedName(namespace: namespaces[""] ?? "", name: value)
        }
        let prefix = String(value[..<colon])
        return QualifiedName(namespace: namespaces[prefix] ?? "", name: String(value[value.index(after: colon)...]))
    }

    /// Every element of the subtree, this one first, in document order.
    public func descendants(_ visit: (XMLTreeElement) -> Void) {
        visit(self)
        for child in children { child.descendants(visit) }
    }
}

/// Builds an ``XMLTreeElement`` from the events of an ``XMLPushReader``.
final class XMLTreeBuilder: XMLEventHandler {
    private var stack: [XMLTreeElement] = []
    private var texts: [String] = []
    private(set) var root: XMLTreeElement?

    func startElement(_ element: XMLStartElement) throws {
        var namespaces = stack.last?.namespaces ?? ["xml": "http://www.w3.org/XML/1998/namespace"]
        for (prefix, uri) in element.namespaceDeclarations { namespaces[prefix ?? ""] = uri }
        var attributes: [String: String] = [:]
        for attribute in element.attributes { attributes[attribute.localName] = attribute.value }
        stack.append(
            XMLTreeElement(
                localName: element.localName.string, namespaceURI: element.namespaceURI ?? "",
                attributes: attributes, children: [], text: "", namespaces: namespaces))
        texts.append("")
    }

    func endElement(_ localName: XMLName) throws {
        guard var finished = stack.popLast(), let text = texts.popLast() else { return }
        finished.text = text.trimmingWhitespace()
        if stack.isEmpty {
            root = finished
        } else {
            stack[stack.count - 1].children.append(finished)
        }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) throws {
        guard !texts.isEmpty else { return }
        texts[texts.count - 1] += String(decoding: text, as: UTF8.self)
    }
}

extension XMLTreeElement {
    /// Parses a whole document under `limits`; throws ``/SOAP/XMLReaderError`` for
    /// malformed or hostile input (a DOCTYPE, a cap passed).
    public static func parse(_ bytes: [UInt8], limits: XMLReaderLimits) throws(XMLReaderError) -> XMLTreeElement {
        do {
            let reader = try XMLPushReader(limits: limits) { _ in XMLTreeBuilder() }
            try reader.feed(bytes)
            try reader.finish()
            guard let root = reader.handler.root else {
                throw XMLReaderError.malformed(reason: "no root element", at: XMLPosition(line: 1, column: 1))
            }
            return root
        } catch let error as XMLReaderError {
            throw error
        } catch {
            // The tree builder throws nothing of its own: only the reader's errors reach here.
            throw XMLReaderError.malformed(reason: "\(error)", at: XMLPosition(line: 0, column: 0))
        }
    }
}
