import CLibXML2

/// Receives the events of one document from an ``XMLPushReader``, as they are
/// parsed.
///
/// Handlers work on borrowed views into libxml2's buffers: copy what you keep.
/// Throwing from any method stops the parse, and the reader rethrows the error
/// from `feed(_:)` or ``XMLPushReader/finish()``.
public protocol XMLEventHandler: AnyObject {
    func startElement(_ element: XMLStartElement) throws
    func endElement(_ localName: XMLName) throws
    /// Character data, CDATA included; one text node may arrive in many pieces.
    func characters(_ text: UnsafeBufferPointer<UInt8>) throws
    /// Where the reader delivers the events of a subtree this handler routes
    /// with ``XMLEventRoute``; read once, when the reader is made.
    var routeTarget: (any XMLEventHandler)? { get }
}

extension XMLEventHandler {
    /// No route target: this handler receives every event.
    public var routeTarget: (any XMLEventHandler)? { nil }
}

/// A streaming, namespace-aware XML reader on libxml2's SAX2 push parser.
///
/// Bytes are pushed in chunks of any size as they arrive (from a file, a pipe
/// or a socket), and events reach the handler at once, so a document is never
/// held whole in memory.
///
/// The reader is safe against hostile input by construction:
/// - any DOCTYPE is refused (SOAP forbids a DTD in a message), so no entity
///   can be declared, and only the five predefined entities exist;
/// - the network is off (`XML_PARSE_NONET`), and a process-wide entity loader
///   that loads nothing is installed before the first parse;
/// - ``XMLReaderLimits`` caps depth, one text value and the total input.
///
/// One reader parses one document. It is not thread-safe: feed it from one
/// thread at a time.
public final class XMLPushReader<Handler: XMLEventHandler> {
    /// The handler, made by the closure given to `init` with this reader's names.
    public let handler: Handler
    private let state: ReaderState
    private let context: xmlParserCtxtPtr

    /// Creates a reader; `makeHandler` receives the table its names must come from.
    public init(
        limits: XMLReaderLimits = XMLReaderLimits(),
        makeHandler: (XMLNameTable) throws -> Handler
    ) throws {
        libxml2IsReady.assertReady()
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = startElementTrampoline
        sax.endElementNs = endElementTrampoline
        sax.characters = charactersTrampoline
        sax.cdataBlock = charactersTrampoline
        sax.ignorableWhitespace = charactersTrampoline
        sax.internalSubset = doctypeTrampoline
        sax.serror = structuredErrorTrampoline
        // The context comes first, because the handler's names are interned in
        // its dictionary; the state, which holds the handler, is then given
        // to libxml2 as the callbacks' user data.
        guard let context = xmlCreatePushParserCtxt(&sax, nil, nil, 0, nil) else {
            throw XMLReaderError.outOfMemory
        }
        // NOENT substitutes references: without it, SAX2 hands `&amp;` in an
        // attribute over as `&#38;`. Safe here: with every DOCTYPE refused,
        // only the five predefined entities and character references exist.
        xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOENT.rawValue))
        let textInterest = XMLTextInterest()
        let route = XMLEventRoute()
        let fields = XMLFieldCapture()
        do {
            handler = try makeHandler(XMLNameTable(context: context, textInterest: textInterest, route: route, fields: fields))
            state = ReaderState(
                handler: handler, limits: limits, textInterest: textInterest, route: route, fields: fields, context: context)
        } catch {
            xmlFreeParserCtxt(context)
            throw error
        }
        self.context = context
        context.pointee.userData = Unmanaged.passUnretained(state).toOpaque()
    }

    deinit {
        xmlFreeParserCtxt(context)
    }

    /// Parses the next chunk of the document.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws {
        try state.throwIfFailed()
        guard !bytes.isEmpty else { return }
        state.inputBytes += bytes.count
        if state.inputBytes > state.limits.maxInputBytes {
            state.fail(exceeding: .inputBytes(state.limits.maxInputBytes))
            try state.throwIfFailed()
        }
        try parse(admitted: state.utf8.admit(bytes), chunk: bytes)
    }

    /// Parses what the UTF-8 check admitted: the bytes before a bad one are
    /// parsed, so what they hold is delivered as always, and then the bad one fails the parse.
    private func parse(admitted: UTF8Check.Admission, chunk: UnsafeRawBufferPointer) throws {
        let failure: UTF8Check.Failure?
        switch admitted {
        case .hold:
            return
        case .chunk(let invalid):
            failure = invalid
            try parse(UnsafeRawBufferPointer(rebasing: chunk[..<(invalid?.offset ?? chunk.count)]), isLast: false)
        case .head(let held, let invalid):
            failure = invalid
            try held.withUnsafeBytes { try parse(UnsafeRawBufferPointer(rebasing: $0[..<(invalid?.offset ?? held.count)]), isLast: false) }
        }
        if let failure {
            state.fail(XMLReaderError.malformed(reason: "bytes that are not valid UTF-8", at: failure.position))
            try state.throwIfFailed()
        }
    }

    /// Parses the next chunk of the document.
    public func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try feed($0) }
    }

    /// Ends the document: a document cut short is an error here.
    public func finish() throws {
        try state.throwIfFailed()
        try parse(admitted: state.utf8.finish(), chunk: UnsafeRawBufferPointer(start: nil, count: 0))
        if let cutShort = state.utf8.end() {
            state.fail(XMLReaderError.malformed(reason: "a UTF-8 character cut short at the end", at: cutShort))
            try state.throwIfFailed()
        }
        try parse(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true)
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, isLast: Bool) throws {
        xmlResetLastError()  // the thread's last error must be this chunk's (see failOnEncodingError)
        let status = xmlParseChunk(context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), isLast ? 1 : 0)
        state.failOnEncodingError()
        try state.throwIfFailed()
        try state.throwIfParserFailed(status: status)
    }

    /// How many bytes have been fed so far.
    public var inputBytes: Int { state.inputBytes }
}

func string(from pointer: UnsafePointer<xmlChar>) -> String {
    String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
}

// MARK: - Process-wide set-up

/// libxml2 is initialised once, and its entity loader replaced, before any
/// reader exists: the loader is process-wide, so it guards every parse.
private let libxml2IsReady = LibXML2Setup()

private struct LibXML2Setup: Sendable {
    init() {
        xmlInitParser()
        hk_xml_install_refusing_entity_loader()
    }

    /// Touching the global runs its initialiser exactly once.
    func assertReady() {}
}
