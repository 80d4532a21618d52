import Failures

/// Receives what is inside a SOAP `Body`: every element below it, except a
/// `Fault`, which the response reader turns into a ``SOAPFault``.
public protocol SOAPBodyHandler: XMLEventHandler {
    /// Called at `</Body>`, once every body event has been delivered.
    func bodyDidEnd() throws

    /// Receives what is inside the SOAP `Header` (session tokens, message
    /// headers), or nil when nothing there is wanted.
    var headerHandler: (any XMLEventHandler)? { get }
}

extension SOAPBodyHandler {
    /// Nothing in the Header is wanted.
    public var headerHandler: (any XMLEventHandler)? { nil }
}

/// Whether a service wraps its messages in a SOAP envelope.
public enum MessageEnvelope: String, Sendable, Equatable, CaseIterable {
    /// SOAP: the payload is the Body's child.
    case soap
    /// Plain XML over HTTP (many OTA services): the payload is the document's root.
    case none
    /// Either: a SOAP envelope when the root is one, else the root is the payload.
    case auto
}

/// The response was not a SOAP envelope at all.
public struct NotSOAPEnvelopeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the response looked like instead, e.g. "an HTML page titled “502 Bad Gateway”".
    public var looksLike: String
    /// The root element, when the response was well-formed XML of another kind:
    /// a service speaking plain XML, not a wrong endpoint.
    public var xmlRoot: String?

    public init(looksLike: String, xmlRoot: String? = nil) {
        self.looksLike = looksLike
        self.xmlRoot = xmlRoot
    }

    public var description: String { "not a SOAP envelope: the response is \(looksLike)" }
}

/// Reads a SOAP response as a stream: checks the envelope, turns a fault into
/// a ``SOAPFault``, and hands the `Body`'s content to a ``SOAPBodyHandler``.
///
/// ```swift
/// let reader = try SOAPResponseReader { names in MyBodyHandler(names: names) }
/// for chunk in chunks { try reader.feed(chunk) }
/// try reader.finish()   // throws SOAPFault, NotSOAPEnvelopeError or XMLReaderError
/// ```
public final class SOAPResponseReader<Body: SOAPBodyHandler> {
    private let reader: XMLPushReader<SOAPMessageHandler>
    private var sniffer = ContentSniffer()

    /// - Parameters:
    ///   - limits: The reader's caps: depth, text and input size.
    ///   - envelope: Whether the payload comes in a SOAP envelope
    ///     (the default), as the document's root, or either way.
    ///   - makeBody: Makes the body handler, given the reader's name table.
    public init(
        limits: XMLReaderLimits = XMLReaderLimits(), envelope: MessageEnvelope = .soap,
        makeBody: (XMLNameTable) throws -> Body
    ) throws {
        reader = try XMLPushReader(limits: limits) { names in
            try SOAPMessageHandler(names: names, envelope: envelope, body: makeBody(names))
        }
    }

    /// The body handler.
    public var body: Body {
        // The message handler was given a Body just above.
        unsafeDowncast(reader.handler.body, to: Body.self)
    }

    /// The envelope's version, once its start tag has been read.
    public var version: SOAPVersion? { reader.handler.version }

    /// How many bytes have been fed so far.
    public var inputBytes: Int { reader.inputBytes }

    public func feed(_ bytes: UnsafeRawBufferPointer) throws {
        sniffer.observe(bytes)
        try explainingFailures { try reader.feed(bytes) }
    }

    public func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try feed($0) }
    }

    /// Whether the payload came without an envelope, as the document's root.
    public var isBare: Bool { reader.handler.isBare }

    /// Ends the response; throws if it was cut short or had no `Body`.
    public func finish() throws {
        try explainingFailures { try reader.finish() }
        guard reader.handler.sawBodyEnd else {
            throw NotSOAPEnvelopeError(looksLike: "a SOAP envelope without a Body")
        }
    }

    /// An XML error on something that was never XML is reported as what it was.
    private func explainingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as XMLReaderError {
            guard reader.handler.version == nil, !reader.handler.isBare, let looksLike = sniffer.looksLike else { throw error }
            throw NotSOAPEnvelopeError(looksLike: looksLike)
        }
    }
}

/// Checks the envelope structure and routes events: the `Body`'s content to
/// the body handler, a `Fault` to a ``FaultBuilder``.
///
/// Not generic over the body: it would run unspecialised, since body types
/// live in other modules, and pay for that on every event. Held as an
/// existential, the body gets one witness call per event.
final class SOAPMessageHandler: XMLEventHandler {
    let body: any SOAPBodyHandler
    private(set) var version: SOAPVersion?
    private(set) var sawBodyEnd = false
    private let envelope: MessageEnvelope
    /// The payload is the root: there is no envelope.
    private(set) var isBare = false
    private let envelopeName: XMLName
    private let bodyName: XMLName
    private let headerName: XMLName
    /// The depth of the `Header` element while inside it and something there is wanted.
    @exclusivity(unchecked) private var headerDepth: Int?
    private let faultName: XMLName
    private let problemHeaderName: XMLName
    /// WS-Addressing's `FaultDetail/ProblemHeaderQName` in the Header: in
    /// SOAP 1.1, where a fault about a missing header names that header.
    private var problemHeader: String?
    @exclusivity(unchecked) private var readingProblemHeader = false
    private let textInterest: XMLTextInterest
    private let route: XMLEventRoute
    // Fed by one reader on one thread: exclusivity checks off, as in the reader.
    @exclusivity(unchecked) private var depth = 0
    /// The depth of the `Body` element, once inside it.
    @exclusivity(unchecked) private var bodyDepth: Int?
    @exclusivity(unchecked) private var fault: FaultBuilder?
    /// Namespace bindings of Envelope and Body, for resolving fault codes.
    private var outerScope: [String: String] = [:]

    init(names: XMLNameTable, envelope: MessageEnvelope, body: any SOAPBodyHandler) {
        self.body = body
        self.envelope = envelope
        envelopeName = names.name("Envelope")
        bodyName = names.name("Body")
        headerName = names.name("Header")
        faultName = names.name("Fault")
        problemHeaderName = names.name("ProblemHeaderQName")
        textInterest = names.textInterest
        route = names.route
    }

    func startElement(_ element: XMLStartElement) throws {
        depth += 1
        if fault != nil {
            try fault?.start(element)
            return
        }
        if let bodyDepth {
            // Only the Body's children come here; what is inside them goes
            // to the body handler by the route.
            if element.localName == faultName, element.namespaceURI == version?.namespaceURI, let version {
                route.clear()  // a fault's content comes here, for the builder
                fault = FaultBuilder(version: version, fault: element, outerScope: outerScope)
                textInterest.isActive = true  // a fault's text is always read
                return
            }
            try body.startElement(element)
            route.deliver(deeperThan: bodyDepth + 1)
            return
        }
        switch depth {
        case 1 where envelope == .none || (envelope == .auto && !isSOAPEnvelope(element)):
            try startBare(element)
        case 1:
            try checkEnvelope(element)
            record(element.namespaceDeclarations)
        case 2 where element.localName == bodyName && element.namespaceURI == version?.namespaceURI:
            bodyDepth = depth
            record(element.namespaceDeclarations)
        case 2 where element.localName == headerName && element.namespaceURI == version?.namespaceURI && body.headerHandler != nil:
            headerDepth = depth
        default:
            if headerDepth != nil { try body.headerHandler?.startElement(element) }
            if element.localName == problemHeaderName, element.namespaceURI.map(Self.isAddressing) == true {
                readingProblemHeader = true
                problemHeader = ""
                textInterest.isActive = true
            }
        }
    }

    private static func isAddressing(_ namespace: String) -> Bool {
        namespace == "http://www.w3.org/2005/08/addressing" || namespace == "http://schemas.xmlsoap.org/ws/2004/08/addressing"
    }

    func endElement(_ localName: XMLName) throws {
        defer { depth -= 1 }
        readingProblemHeader = false
        if fault != nil {
            if var finished = try fault?.end() {
                if let problemHeader, !finished.detailLines.contains(where: { $0.hasPrefix("ProblemHeaderQName") }) {
                    finished.detailLines.append("ProblemHeaderQName: " + problemHeader.foldingWhitespace())
                }
                throw finished
            }
            return
        }
        if let headerDepth {
            if depth == headerDepth { self.headerDepth = nil } else { try body.headerHandler?.endElement(localName) }
            return
        }
        guard let bodyDepth else { return }
        if depth == bodyDepth {
            self.bodyDepth = nil
            sawBodyEnd = true
            try body.bodyDidEnd()
        } else {
            try body.endElement(localName)
            if isBare, depth == 1 {
                self.bodyDepth = nil
                sawBodyEnd = true
                try body.bodyDidEnd()
            }
        }
    }

    private func isSOAPEnvelope(_ root: XMLStartElement) -> Bool {
        root.localName == envelopeName && root.namespaceURI.flatMap(SOAPVersion.init(namespaceURI:)) != nil
    }

    /// A document with no envelope: its root is the payload, as a Body's
    /// child would be, and a root `Fault` in a SOAP namespace is a fault.
    private func startBare(_ root: XMLStartElement) throws {
        if root.localName.string.lowercased() == "html" { throw NotSOAPEnvelopeError(looksLike: "an HTML page") }
        isBare = true
        record(root.namespaceDeclarations)
        if root.localName == faultName, let namespace = root.namespaceURI, let version = SOAPVersion(namespaceURI: namespace) {
            self.version = version
            fault = FaultBuilder(version: version, fault: root, outerScope: outerScope)
            textInterest.isActive = true
            return
        }
        bodyDepth = 0
        try body.startElement(root)
        route.deliver(deeperThan: 1)
    }

    /// The body gets what is inside the Body's children straight from the reader.
    var routeTarget: (any XMLEventHandler)? { body }

    func characters(_ text: UnsafeBufferPointer<UInt8>) throws {
        if fault != nil {
            try fault?.characters(text)
        } else if bodyDepth != nil {
            try body.characters(text)
        } else if headerDepth != nil {
            try body.headerHandler?.characters(text)
        }
        // A qualified name: a few dozen characters; more is not one, and is dropped.
        if readingProblemHeader, let read = problemHeader {
            if read.utf8.count + text.count <= 256 {
                problemHeader = read + String(decoding: text, as: UTF8.self)
            } else {
                problemHeader = nil
                readingProblemHeader = false
            }
        }
    }

    private func checkEnvelope(_ root: XMLStartElement) throws {
        let namespace = root.namespaceURI
        if root.localName == envelopeName, let namespace, let version = SOAPVersion(namespaceURI: namespace) {
            self.version = version
            return
        }
        let name = root.localName.string
        if name.lowercased() == "html" {
            throw NotSOAPEnvelopeError(looksLike: "an HTML page")
        }
        if name == "Envelope" {
            throw NotSOAPEnvelopeError(
                looksLike: "an Envelope in namespace \(namespace.map { "“\($0)”" } ?? "none"), "
                    + "which is neither SOAP 1.1 (\(SOAPVersion.v1_1.namespaceURI)) nor SOAP 1.2 (\(SOAPVersion.v1_2.namespaceURI))")
        }
        throw NotSOAPEnvelopeError(
            looksLike: "an XML document whose root element is <\(name)>"
                + (namespace.map { " in namespace “\($0)”" } ?? ""), xmlRoot: name)
    }

    private func record(_ declarations: [(prefix: String?, uri: String)]) {
        for declaration in declarations {
            outerScope[declaration.prefix ?? ""] = declaration.uri
        }
    }
}

extension NotSOAPEnvelopeError: MeaningfulError {
    /// Bad data, with what to set in the profile when the response is a fault or plain XML.
    public var meaning: ErrorMeaning {
        let hint =
            if xmlRoot == "Fault" {
                "the service sent a SOAP fault without its Envelope: set \"envelope\": \"auto\" in the profile to read it"
            } else if let root = xmlRoot {
                "the service answers plain XML, with <\(root)> as the root: set \"envelope\": \"none\" (or \"auto\") in the profile"
            } else {
                "check the endpoint URL: the response was not a SOAP message"
            }
        return ErrorMeaning(kind: .badData, status: .dataError, hint: hint)
    }
}
