/// A small tree of one fault's elements; a fault is small, and capped.
struct FaultTreeElement {
    var localName: String
    var namespaceURI: String?
    var prefix: String?
    var attributes: [XMLAttribute]
    var namespaceDeclarations: [(prefix: String?, uri: String)]
    var children: [FaultTreeNode] = []

    func child(_ localName: String) -> FaultTreeElement? {
        for case .element(let element) in children where element.localName == localName {
            return element
        }
        return nil
    }

    func children(_ localName: String) -> [FaultTreeElement] {
        children.compactMap { node in
            guard case .element(let element) = node, element.localName == localName else { return nil }
            return element
        }
    }

    /// The concatenated text of the element and its descendants, trimmed.
    var text: String {
        var text = ""
        appendText(to: &text)
        return text.trimmingWhitespace()
    }

    private func appendText(to text: inout String) {
        for child in children {
            switch child {
            case .text(let piece): text += piece
            case .element(let element): element.appendText(to: &text)
            }
        }
    }
}

enum FaultTreeNode {
    case element(FaultTreeElement)
    case text(String)
}

/// Collects the events under a `Fault` element into a tree, then reads it as a
/// ``SOAPFault`` of the envelope's version.
struct FaultBuilder {
    private static let maxBytes = 1 << 20
    private let version: SOAPVersion
    /// Namespace bindings in scope at the `Fault` element (from Envelope and Body).
    private let outerScope: [String: String]
    private var stack: [FaultTreeElement]
    private var collectedBytes = 0

    init(version: SOAPVersion, fault: XMLStartElement, outerScope: [String: String]) {
        self.version = version
        self.outerScope = outerScope
        self.stack = [FaultBuilder.element(from: fault)]
    }

    mutating func start(_ element: XMLStartElement) throws {
        let node = FaultBuilder.element(from: element)
        try account(node.localName.utf8.count + node.attributes.reduce(0) { $0 + $1.value.utf8.count })
        stack.append(node)
    }

    /// Closes the innermost open element; returns the fault when that was `Fault`.
    mutating func end() throws -> SOAPFault? {
        let finished = stack.removeLast()
        guard !stack.isEmpty else { return fault(from: finished) }
        stack[stack.count - 1].children.append(.element(finished))
        return nil
    }

    mutating func characters(_ text: UnsafeBufferPointer<UInt8>) throws {
        try account(text.count)
        let piece = String(decoding: text, as: UTF8.self)
        let last = stack.count - 1
        if case .text(let previous)? = stack[last].children.last {
            stack[last].children[stack[last].children.count - 1] = .text(previous + piece)
        } else {
            stack[last].children.append(.text(piece))
        }
    }

    private mutating func account(_ bytes: Int) throws {
        collectedBytes += bytes
        if collectedBytes > FaultBuilder.maxBytes {
            throw XMLReaderError.limitExceeded(.textLength(FaultBuilder.maxBytes), at: XMLPosition(line: 0, column: 0))
        }
    }

    private static func element(from start: XMLStartElement) -> FaultTreeElement {
        FaultTreeElement(
            localName: start.localName.string,
            namespaceURI: start.namespaceURI,
            prefix: start.prefix,
            attributes: start.attributes,
            namespaceDeclarations: start.namespaceDeclarations
        )
    }

    private func fault(from element: FaultTreeElement) -> SOAPFault {
        var scope = outerScope
        scope.merge(bindings(of: element)) { _, inner in inner }
        switch version {
        case .v1_1:
            return SOAPFault(
                version: .v1_1,
                code: code(element.child("faultcode"), scope: scope),
                reasons: element.child("faultstring").map { [SOAPFault.Reason(text: $0.text)] } ?? [],
                node: element.child("faultactor")?.text,
                detail: element.child("detail").map(innerXML),
                detailLines: element.child("detail").map(Self.detailLines) ?? []
            )
        case .v1_2:
            var subcodes: [SOAPFault.Code] = []
            var codeElement = element.child("Code")
            let codeScope = codeElement.map { scope.merging(bindings(of: $0)) { _, inner in inner } } ?? scope
            var subcode = codeElement?.child("Subcode")
            while let current = subcode {
                subcodes.append(code(current.child("Value"), scope: codeScope.merging(bindings(of: current)) { _, inner in inner }))
                subcode = current.child("Subcode")
            }
            codeElement = codeElement?.child("Value")
            return SOAPFault(
                version: .v1_2,
                code: code(codeElement, scope: codeScope),
                subcodes: subcodes,
                reasons: (element.child("Reason")?.children("Text") ?? []).map { text in
                    SOAPFault.Reason(
                        text: text.text,
                        language: text.attributes.first { attribute in
                            attribute.localName == "lang" && attribute.namespaceURI == "http://www.w3.org/XML/1998/namespace"
                        }?.value)
                },
                node: element.child("Node")?.text,
                role: element.child("Role")?.text,
                detail: element.child("Detail").map(innerXML),
                detailLines: element.child("Detail").map(Self.detailLines) ?? []
            )
        }
    }

    /// Each element under `detail` that holds text of its own or attributes,
    /// in document order: `Name: text`, `Name: text (@Code=392)`, or
    /// `Name: @ErrorCode=E-1042, @Status=NotProcessed` (an OTA_ErrorRS says
    /// it all in attributes); at most 8 lines, each value cut at 200
    /// characters with an ellipsis.
    static func detailLines(_ detail: FaultTreeElement) -> [String] {
        var lines: [String] = []
        func cut(_ text: String) -> String { text.count > 200 ? text.prefix(199) + "…" : text }
        func visit(_ element: FaultTreeElement) {
            let children = element.children.compactMap { node -> FaultTreeElement? in
                if case .element(let child) = node { return child }
                return nil
            }
            let text = children.isEmpty ? element.text.foldingWhitespace() : ""
            let attributes = element.attributes.map { "@\($0.localName)=" + cut($0.value.foldingWhitespace()) }.joined(separator: ", ")
            if lines.count < 8, !text.isEmpty || !attributes.isEmpty {
                let shown = text.isEmpty ? attributes : cut(text) + (attributes.isEmpty ? "" : " (\(attributes))")
                lines.append("\(element.localName): " + shown)
            }
            children.forEach(visit)
        }
        detail.children.forEach { node in
            if case .element(let child) = node { visit(child) }
        }
        return lines
    }

    private func bindings(of element: FaultTreeElement) -> [String: String] {
        Dictionary(element.namespaceDeclarations.map { ($0.prefix ?? "", $0.uri) }) { _, last in last }
    }

    private func code(_ element: FaultTreeElement?, scope: [String: String]) -> SOAPFault.Code {
        let value = element?.text ?? ""
        let parts = value.split(separator: ":", maxSplits: 1)
        if parts.count == 2 {
            return SOAPFault.Code(value: value, localName: String(parts[1]), namespaceURI: scope[String(parts[0])])
        }
        return SOAPFault.Code(value: value, localName: value, namespaceURI: scope[""])
    }

    /// The element's content as XML, every namespace it uses declared in it.
    private func innerXML(_ element: FaultTreeElement) -> String {
        var output = ""
        var declared = bindings(of: element)
        for child in element.children {
            XMLSerializer.append(child, to: &output, declared: &declared)
        }
        return output.trimmingWhitespace()
    }
}

/// Writes fault tree nodes back out as XML.
private enum XMLSerializer {
    static func append(_ node: FaultTreeNode, to output: inout String, declared: inout [String: String]) {
        switch node {
        case .text(let text):
            output += XMLEscaping.escape(text)
        case .element(let element):
            // Declare every binding the tag needs that is not in scope yet, so
            // the fragment reads the same wherever it is pasted.
            var scope = declared
            var declarations = ""
            func declare(prefix: String?, uri: String) {
                let key = prefix ?? ""
                guard scope[key, default: ""] != uri else { return }
                scope[key] = uri
                let attributeName = key.isEmpty ? "xmlns" : "xmlns:\(key)"
                declarations += " \(attributeName)=\"\(XMLEscaping.escape(uri))\""
            }
            for declaration in element.namespaceDeclarations {
                declare(prefix: declaration.prefix, uri: declaration.uri)
            }
            declare(prefix: element.prefix, uri: element.namespaceURI ?? "")
            for attribute in element.attributes where attribute.prefix != nil && attribute.prefix != "xml" {
                declare(prefix: attribute.prefix, uri: attribute.namespaceURI ?? "")
            }
            let name = qualifiedName(element.prefix, element.localName)
            output += "<\(name)\(declarations)"
            for attribute in element.attributes {
                output += " \(qualifiedName(attribute.prefix, attribute.localName))=\"\(XMLEscaping.escape(attribute.value))\""
            }
            guard !element.children.isEmpty else {
                output += "/>"
                return
            }
            output += ">"
            for child in element.children {
                append(child, to: &output, declared: &scope)
            }
            output += "</\(name)>"
        }
    }

    private static func qualifiedName(_ prefix: String?, _ localName: String) -> String {
        prefix.map { "\($0):\(localName)" } ?? localName
    }
}
