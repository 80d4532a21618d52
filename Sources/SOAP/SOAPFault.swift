/// A SOAP fault, from either version, as a typed error.
///
/// SOAP 1.1's `faultcode`, `faultstring`, `faultactor` and `detail` map onto
/// the SOAP 1.2 names: `code`, `reason`, `node` and `detail`.
public struct SOAPFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// A fault code: a qualified name, as written and as resolved.
    public struct Code: Sendable, Equatable, CustomStringConvertible {
        /// The code as the message wrote it, e.g. `soap:Client` or `env:Sender`.
        public var value: String
        /// The part after the prefix, e.g. `Client` or `Sender`.
        public var localName: String
        /// The namespace the prefix was bound to, where it was bound.
        public var namespaceURI: String?

        public init(value: String, localName: String, namespaceURI: String? = nil) {
            self.value = value
            self.localName = localName
            self.namespaceURI = namespaceURI
        }

        public var description: String { value }
    }

    /// One `Reason/Text`, with its `xml:lang`.
    public struct Reason: Sendable, Equatable {
        public var text: String
        public var language: String?

        public init(text: String, language: String? = nil) {
            self.text = text
            self.language = language
        }
    }

    /// Who is at fault, from the code: it decides whether a retry can help.
    public enum Kind: Sendable, Equatable {
        case versionMismatch
        case mustUnderstand
        case dataEncodingUnknown
        /// The request was wrong (1.1 `Client`, 1.2 `Sender`): never retry it.
        case sender
        /// The service failed (1.1 `Server`, 1.2 `Receiver`): a retry may succeed.
        case receiver
        case other
    }

    public var version: SOAPVersion
    public var code: Code
    /// SOAP 1.2 `Subcode/Value`s, outermost first.
    public var subcodes: [Code]
    /// Every reason text; SOAP 1.1 has exactly one, without a language.
    public var reasons: [Reason]
    /// SOAP 1.2 `Node`, SOAP 1.1 `faultactor`.
    public var node: String?
    /// SOAP 1.2 `Role`.
    public var role: String?
    /// The content of `Detail` (`detail`), as XML text with its namespaces declared.
    public var detail: String?
    /// The detail's useful lines: each element that holds text, as `Name: text`,
    /// with white space folded (`Code: 322`, `Message: …`, `ProblemHeaderQName: wsa:Action`).
    public var detailLines: [String]

    public init(
        version: SOAPVersion,
        code: Code,
        subcodes: [Code] = [],
        reasons: [Reason],
        node: String? = nil,
        role: String? = nil,
        detail: String? = nil,
        detailLines: [String] = []
    ) {
        self.version = version
        self.code = code
        self.subcodes = subcodes
        self.reasons = reasons
        self.node = node
        self.role = role
        self.detail = detail
        self.detailLines = detailLines
    }

    /// The reason to show: English where given, else the first, with its
    /// white space folded (services send multi-line, indented reasons).
    public var reason: String {
        let english = reasons.first { $0.language?.lowercased().hasPrefix("en") == true }
        return ((english ?? reasons.first)?.text ?? "").foldingWhitespace()
    }

    /// What the fault is about, as far as its codes say: it decides the hint a person gets.
    public enum Topic: Sendable, Equatable {
        /// Security or authentication: the credentials, or an expired session.
        case authentication
        /// SOAPAction or WS-Addressing: the profile's action.
        case addressing
        /// The request (Client/Sender).
        case request
        /// The service (Server/Receiver).
        case service
        case other
    }

    /// WS-Addressing's "a required header is missing": the code
    /// `MessageAddressingHeaderRequired` (1.0) or `MessageInformationHeaderRequired`
    /// (2004/08), or a `ProblemHeaderQName` detail. The profile needs `addressing`.
    public var wantsAddressingHeaders: Bool {
        ([code] + subcodes).contains { ["MessageAddressingHeaderRequired", "MessageInformationHeaderRequired"].contains($0.localName) }
            || detailLines.contains { $0.hasPrefix("ProblemHeaderQName") }
    }

    public var topic: Topic {
        // The codes say it first; the reason only when the codes are generic
        // ("Server: NO AGREEMENT EXISTS FOR AGENCY"). A WCF ActionNotSupported
        // reason mentions security too, but its code is about the action.
        // Codes are matched word by word ("TransactionTimeout" is not about an
        // action), reasons by phrases ("unexpected token" is not a credential).
        let words = ([code] + subcodes).flatMap { Self.words(of: $0.localName) }
        if words.contains(where: { word in Self.addressingWords.contains { word.hasPrefix($0) } })
            || detailLines.contains(where: { $0.hasPrefix("ProblemHeaderQName") }) {
            return .addressing
        }
        let text = reason.lowercased()
        if words.contains(where: { word in Self.authenticationWords.contains { word.hasPrefix($0) } })
            || Self.authenticationPhrases.contains(where: text.contains) {
            return .authentication
        }
        switch kind {
        case .sender: return .request
        case .receiver: return .service
        default: return .other
        }
    }

    private static let addressingWords: [String] = ["soapaction", "action", "addressing"]
    private static let authenticationWords: [String] = [
        "security", "authenticat", "auth", "unauthoriz", "credential", "password", "token", "session", "login", "logon", "agreement",
    ]
    private static let authenticationPhrases: [String] = [
        "security", "authenticat", "unauthoriz", "not authorized", "credential", "password", "login", "logon", "agreement",
        "invalid token", "expired token", "token expired", "invalid session", "session expired", "expired session",
        "|session|",
    ]

    /// A fault code's words, lower-cased: split at dots and other separators,
    /// and where a lower-case letter meets a capital ("InvalidSecurityToken").
    static func words(of code: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousIsLower = false
        for character in code {
            if !character.isLetter && !character.isNumber {
                if !current.isEmpty { words.append(current.lowercased()) }
                (current, previousIsLower) = ("", false)
                continue
            }
            if character.isUppercase, previousIsLower {
                words.append(current.lowercased())
                current = ""
            }
            current.append(character)
            previousIsLower = character.isLowercase
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }

    public var kind: Kind {
        // SOAP 1.1 codes may be dotted ("Client.Authentication").
        let head = code.localName.split(separator: ".", maxSplits: 1).first.map(String.init) ?? code.localName
        switch head {
        case "VersionMismatch": return .versionMismatch
        case "MustUnderstand": return .mustUnderstand
        case "DataEncodingUnknown": return .dataEncodingUnknown
        case "Client", "Sender": return .sender
        case "Server", "Receiver": return .receiver
        default: return .other
        }
    }

    public var description: String {
        var text = "SOAP fault \(code.value)"
        if !subcodes.isEmpty {
            text += " (" + subcodes.map(\.value).joined(separator: " > ") + ")"
        }
        text += ": \(reason.isEmpty ? "(no reason given)" : reason)"
        if let node { text += " [node \(node)]" }
        if !detailLines.isEmpty { text += "; detail: " + detailLines.joined(separator: "; ") }
        return text
    }
}

// MARK: - Building a fault from its events

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
                    SOAPFault.Reason(text: text.text, language: text.attributes.first { attribute in
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

/// A fault for `--json`: every part, the detail as XML and as lines.
extension SOAPFault: Encodable {
    private enum Key: String, CodingKey { case code, subcodes, reason, node, role, detail, detailLines }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(code.value, forKey: .code)
        try container.encode(subcodes.map(\.value), forKey: .subcodes)
        try container.encode(reason, forKey: .reason)
        try container.encodeIfPresent(node, forKey: .node)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encode(detailLines, forKey: .detailLines)
    }
}
