import SOAP

/// A WSDL 1.1 set read into what a client needs: services and their
/// endpoints, SOAP bindings, their operations with SOAPAction, input,
/// output and headers, and what the policies ask for.
///
/// ```swift
/// let description = try ServiceDescription(try await WSDLLoader().load("Samples/Real/wsdl/asmx/InformationService.wsdl"))
/// for operation in description.operations { print(operation.name, operation.soapAction) }
/// ```
public struct ServiceDescription: Sendable {
    public struct Service: Sendable, Encodable {
        public var name: String
        public var ports: [Port]
    }

    public struct Port: Sendable, Encodable {
        public var name: String
        public var binding: String
        /// The endpoint: `soap:address/@location`.
        public var address: String?
        /// `1.1`, `1.2`, or nil for a binding that is not SOAP (ASMX's HTTP GET and POST).
        public var soapVersion: String?
    }

    public struct Binding: Sendable {
        public var name: String
        public var portType: String
        public var soapVersion: SOAPVersion
        /// `document` or `rpc`.
        public var style: String
        public var operations: [Operation]
        /// What the WSDL gets wrong about this binding, and how it was read
        /// anyway: its port type is not in the set, and another stands in.
        public var problem: String?
    }

    /// A port type no SOAP binding binds (HTNG publishes its port types apart from any binding): its operations
    /// have messages, but no SOAP version and no SOAPAction until a binding says them.
    public struct UnboundPortType: Sendable, Encodable {
        public struct Operation: Sendable, Encodable {
            public var name: String
            /// The input's elements (`{namespace}name`), or its typed parts (`part: {namespace}type`).
            public var input: [String]
            public var output: [String]
            public var documentation: String?
        }

        public var name: String
        public var operations: [Operation]
    }

    /// An operation as one SOAP binding binds it.
    public struct Operation: Sendable {
        public var name: String
        public var binding: String
        public var soapVersion: SOAPVersion
        public var soapAction: String
        /// `document` or `rpc`.
        public var style: String
        /// `literal` or `encoded`.
        public var use: String
        /// Under RPC style, the wrapper's namespace (`soap:body/@namespace`).
        public var rpcNamespace: String?
        public var input: [Part]
        public var output: [Part]
        /// The SOAP header blocks the binding declares for the input.
        public var inputHeaders: [QualifiedName]
        public var outputHeaders: [QualifiedName]
        /// The WS-Addressing action the port type names for the input, when it names one.
        public var addressingAction: String?
        public var documentation: String
    }

    /// A message part: a global element (document style) or a typed value (RPC style).
    public struct Part: Sendable, Equatable {
        public var name: String
        public var element: QualifiedName?
        public var type: QualifiedName?
    }

    /// Where the policy hints come from, for `inspect`: what a request must carry.
    public struct PolicyHints: Sendable, Equatable, Encodable {
        public var usernameToken = false
        public var addressing = false
        public var transportSecurity = false
        /// Signing or encryption with certificates, which profiles cannot do.
        public var messageSecurity = false
        /// WCF's binary message encoding (`msb:BinaryEncoding`): .NET Binary XML, which only WCF speaks.
        public var binaryEncoding = false

        public var descriptions: [String] {
            var lines: [String] = []
            if usernameToken { lines.append("WS-Security UsernameToken") }
            if addressing { lines.append("WS-Addressing") }
            if transportSecurity { lines.append("WS-Security transport binding (HTTPS)") }
            if messageSecurity { lines.append("WS-Security signing or encryption with certificates (a profile cannot do this)") }
            if binaryEncoding { lines.append("WCF binary message encoding (only WCF clients speak it; ask for a text-encoded endpoint)") }
            return lines
        }
    }

    public var name: String
    public var targetNamespace: String
    public var services: [Service]
    public var bindings: [Binding]
    /// Port types that no SOAP binding of the set binds.
    public var unboundPortTypes: [UnboundPortType]
    public var policies: PolicyHints
    public var schemas: SchemaSet
    /// The documents read, in order, and where each came from.
    public var documents: [LoadedDocument]
    /// Standard schemas the set imports but the loader did not read.
    public var skipped: [SkippedImport]
    /// Schemas the set refers to that are not there (``WSDLDocumentSet/missing``).
    public var missing: [MissingDocument]
    /// What the WSDL gets wrong, and how it was read anyway: each binding's ``Binding/problem``.
    public var problems: [String] { bindings.compactMap(\.problem) }

    /// Every operation of every SOAP binding, in document order.
    public var operations: [Operation] { bindings.flatMap(\.operations) }

    /// Reads the description from a loaded set. Bindings that are not SOAP are
    /// left out; references that do not resolve are kept with what is known.
    public init(_ set: WSDLDocumentSet) {
        documents = set.documents
        skipped = set.skipped
        missing = set.missing
        let definitions = set.documents.map(\.root).filter { $0.namespaceURI == Namespaces.wsdl }
        let root = set.root.root
        name = root.attributes["name"] ?? ""
        targetNamespace = root.attributes["targetNamespace"] ?? ""
        var schemaNodes = set.documents.map(\.root).filter { $0.namespaceURI == Namespaces.xsd }
        for document in definitions {
            for types in document.children(("types"), in: Namespaces.wsdl) {
                schemaNodes += types.children(("schema"), in: Namespaces.xsd)
            }
        }
        schemas = SchemaSet(schemas: schemaNodes)

        var messages: [QualifiedName: [Part]] = [:]
        var portTypes: [QualifiedName: XMLTreeElement] = [:]
        var portTypeOrder: [QualifiedName] = []
        var bindingNodes: [(QualifiedName, XMLTreeElement)] = []
        var serviceNodes: [XMLTreeElement] = []
        for document in definitions {
            let target = document.attributes["targetNamespace"] ?? ""
            for child in document.children where child.namespaceURI == Namespaces.wsdl {
                let qualified = QualifiedName(namespace: target, name: child.attributes["name"] ?? "")
                switch child.localName {
                case "message":
                    messages[qualified] = child.children(("part"), in: Namespaces.wsdl).map { part in
                        Part(name: part.attributes["name"] ?? "", element: part.qualifiedName("element"), type: part.qualifiedName("type"))
                    }
                case "portType":
                    if portTypes.updateValue(child, forKey: qualified) == nil { portTypeOrder.append(qualified) }
                case "binding": bindingNodes.append((qualified, child))
                case "service": serviceNodes.append(child)
                default: continue
                }
            }
        }
        /// The key `name` is under in `table`: itself, or one of the same local name (a wrong or undeclared prefix).
        func key<Value>(in table: [QualifiedName: Value], for name: QualifiedName?) -> QualifiedName? {
            guard let name else { return nil }
            return table[name] != nil ? name : table.keys.first { $0.name == name.name }
        }
        func lookup<Value>(_ table: [QualifiedName: Value], _ name: QualifiedName?) -> Value? {
            key(in: table, for: name).flatMap { table[$0] }
        }

        var bindings: [Binding] = []
        var bindingVersions: [String: SOAPVersion] = [:]
        var boundPortTypes: Set<QualifiedName> = []
        for (qualified, node) in bindingNodes {
            let soap = node.child("binding", in: Namespaces.soap11) ?? node.child("binding", in: Namespaces.soap12)
            guard let soap else { continue }
            let version: SOAPVersion = soap.namespaceURI == Namespaces.soap12 ? .v1_2 : .v1_1
            bindingVersions[qualified.name] = version
            let portTypeName = node.qualifiedName("type")
            var portTypeKey = key(in: portTypes, for: portTypeName)
            var problem: String?
            if portTypeKey == nil {
                (portTypeKey, problem) = Self.standInPortType(for: node, named: qualified.name, among: portTypes)
            }
            if let portTypeKey { boundPortTypes.insert(portTypeKey) }
            let portType = portTypeKey.flatMap { portTypes[$0] }
            let style = soap.attributes["style"] ?? "document"
            var operations: [Operation] = []
            for operation in node.children(("operation"), in: Namespaces.wsdl) {
                let name = operation.attributes["name"] ?? ""
                let soapOperation = operation.child("operation", in: soap.namespaceURI)
                // An overloaded name (WSDL 1.1 allows it) is told apart by the input's and output's names.
                let namesake = portType?.children(("operation"), in: Namespaces.wsdl).filter { $0.attributes["name"] == name } ?? []
                func messageName(_ node: XMLTreeElement?, _ direction: String) -> String? {
                    node?.child(direction, in: Namespaces.wsdl)?.attributes["name"]
                }
                let abstract =
                    namesake.first {
                        messageName($0, "input") == messageName(operation, "input")
                            && messageName($0, "output") == messageName(operation, "output")
                    } ?? namesake.first
                let abstractInput = abstract?.child("input", in: Namespaces.wsdl)
                let abstractOutput = abstract?.child("output", in: Namespaces.wsdl)
                func body(_ direction: String, _ abstract: XMLTreeElement?) -> (
                    parts: [Part], headers: [QualifiedName], body: XMLTreeElement?
                ) {
                    let bound = operation.child(direction, in: Namespaces.wsdl)
                    let soapBody = bound?.child("body", in: soap.namespaceURI)
                    var parts = lookup(messages, abstract?.qualifiedName("message")) ?? []
                    if let only = soapBody?.attributes["parts"]?.split(separator: " ").map(String.init), !only.isEmpty {
                        parts = parts.filter { only.contains($0.name) }
                    }
                    let headers: [QualifiedName] = (bound?.children(("header"), in: soap.namespaceURI) ?? []).compactMap { header in
                        let message = lookup(messages, header.qualifiedName("message"))
                        let part = message?.first { $0.name == header.attributes["part"] } ?? message?.first
                        return part?.element ?? part?.type
                    }
                    return (parts, headers, soapBody)
                }
                let input = body("input", abstractInput)
                let output = body("output", abstractOutput)
                let action = abstractInput.flatMap { node in
                    node.attributes.first { $0.key == "Action" }?.value
                }
                operations.append(
                    Operation(
                        name: name, binding: qualified.name, soapVersion: version,
                        soapAction: soapOperation?.attributes["soapAction"] ?? "",
                        style: soapOperation?.attributes["style"] ?? style,
                        use: input.body?.attributes["use"] ?? "literal",
                        rpcNamespace: input.body?.attributes["namespace"],
                        input: input.parts, output: output.parts, inputHeaders: input.headers, outputHeaders: output.headers,
                        addressingAction: action,
                        documentation: (abstract?.child("documentation", in: Namespaces.wsdl)?.text ?? "").foldingWhitespace()))
            }
            bindings.append(
                Binding(
                    name: qualified.name, portType: portTypeName?.name ?? "", soapVersion: version, style: style,
                    operations: operations, problem: problem))
        }
        self.bindings = bindings
        unboundPortTypes = portTypeOrder.filter { !boundPortTypes.contains($0) }.compactMap { qualified in
            portTypes[qualified].map { node in
                UnboundPortType(
                    name: qualified.name,
                    operations: node.children(("operation"), in: Namespaces.wsdl).map { operation in
                        func parts(_ direction: String) -> [String] {
                            Self.describe(lookup(messages, operation.child(direction, in: Namespaces.wsdl)?.qualifiedName("message")) ?? [])
                        }
                        let documentation = (operation.child("documentation", in: Namespaces.wsdl)?.text ?? "").foldingWhitespace()
                        return .init(
                            name: operation.attributes["name"] ?? "", input: parts("input"), output: parts("output"),
                            documentation: documentation.isEmpty ? nil : documentation)
                    })
            }
        }

        services = serviceNodes.map { service in
            Service(
                name: service.attributes["name"] ?? "",
                ports: service.children(("port"), in: Namespaces.wsdl).map { port in
                    let binding = port.qualifiedName("binding")?.name ?? ""
                    let address = port.children.first { $0.localName == "address" }?.attributes["location"]
                    return Port(
                        name: port.attributes["name"] ?? "", binding: binding, address: address,
                        soapVersion: bindingVersions[binding].map(\.rawValue))
                })
        }
        policies = Self.policyHints(in: definitions)
        if operations.contains(where: { $0.inputHeaders.contains { $0.name == "Security" } }) { policies.usernameToken = true }
    }

    /// Parts as inspection shows them: each part's element (`{namespace}name`), or its name and type.
    static func describe(_ parts: [Part]) -> [String] {
        parts.map { part in
            if let element = part.element { return element.description }
            return "\(part.name): " + (part.type?.description ?? "?")
        }
    }

    /// A binding whose `type` names no port type of the set (a wrong name, an
    /// undeclared prefix) gets the one port type that has every operation it
    /// binds, when exactly one has; the problem says which, or that none did.
    private static func standInPortType(
        for binding: XMLTreeElement, named name: String,
        among portTypes: [QualifiedName: XMLTreeElement]
    ) -> (QualifiedName?, String) {
        let written = binding.attributes["type"] ?? ""
        let bound = Set(binding.children(("operation"), in: Namespaces.wsdl).compactMap { $0.attributes["name"] })
        let matching = portTypes.filter { _, node in
            bound.isSubset(of: node.children(("operation"), in: Namespaces.wsdl).compactMap { $0.attributes["name"] })
        }
        let prefix = written.split(separator: ":", maxSplits: 1).dropLast().first.map(String.init)
        let why =
            if written.isEmpty {
                "no port type"
            } else if let prefix, binding.namespaces[prefix] == nil {
                "port type \(written), whose prefix \(prefix) is not declared"
            } else {
                "port type \(written), which no document of the set defines"
            }
        guard matching.count == 1, let standIn = matching.first?.key else {
            return (nil, "binding \(name) names \(why); its operations' messages are unknown")
        }
        return (standIn, "binding \(name) names \(why); port type \(standIn.name), the only one with all its operations, stands in")
    }

    /// Policy assertions anywhere in the WSDL documents, by their local
    /// names (WS-SecurityPolicy 1.1 and 1.2, WS-Addressing metadata and WSDL binding).
    private static func policyHints(in definitions: [XMLTreeElement]) -> PolicyHints {
        var hints = PolicyHints()
        for document in definitions {
            document.descendants { element in
                switch element.localName {
                case "UsernameToken": hints.usernameToken = true
                case "UsingAddressing": hints.addressing = true
                case "Addressing" where element.namespaceURI.contains("addressing"): hints.addressing = true
                case "TransportBinding", "HttpsToken": hints.transportSecurity = true
                case "SymmetricBinding", "AsymmetricBinding", "X509Token": hints.messageSecurity = true
                case "BinaryEncoding": hints.binaryEncoding = true
                default: break
                }
            }
        }
        return hints
    }

    /// The operation named `name` in the preferred binding: the first SOAP 1.1
    /// one when `version` is nil (the one every client speaks), else that version's.
    public func operation(named name: String, version: SOAPVersion? = nil) throws(WSDLError) -> Operation {
        let candidates = operations.filter { $0.name == name || $0.name.lowercased() == name.lowercased() }
        if let version {
            if let match = candidates.first(where: { $0.soapVersion == version }) { return match }
        } else if let match = candidates.first(where: { $0.soapVersion == .v1_1 }) ?? candidates.first {
            return match
        }
        var known: [String] = []
        for operation in operations where !known.contains(operation.name) { known.append(operation.name) }
        throw WSDLError.unknownOperation(name, known: known)
    }

    /// The endpoint of the port bound to `binding`, when the WSDL gives one.
    public func endpoint(of binding: String) -> String? {
        services.flatMap(\.ports).first { $0.binding == binding }?.address
    }

    /// The shape of a message's body: the parts' elements (document style),
    /// or the operation's wrapper with one child per part (RPC style).
    public func bodyShape(of operation: Operation, output: Bool) -> ElementShape? {
        var expander = ShapeExpander(schemas: schemas)
        let parts = output ? operation.output : operation.input
        if operation.style == "rpc" {
            var wrapper = ElementShape(
                name: operation.name + (output ? "Response" : ""), namespace: operation.rpcNamespace ?? targetNamespace)
            for part in parts {
                if let element = part.element, let shape = expander.element(element) {
                    wrapper.children.append(shape)
                } else {
                    wrapper.children.append(
                        expander.element(
                            named: part.name, namespace: "",
                            type: part.type ?? QualifiedName(namespace: Namespaces.xsd, name: "anyType")))
                }
            }
            return wrapper
        }
        guard let element = parts.first?.element else {
            return parts.first?.type.map { expander.element(named: parts[0].name, namespace: "", type: $0) }
        }
        return expander.element(element)
    }

    /// A header block's shape.
    public func headerShape(_ name: QualifiedName) -> ElementShape? {
        var expander = ShapeExpander(schemas: schemas)
        return expander.element(name)
    }
}
