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
        do {
            handler = try makeHandler(XMLNameTable(context: context, textInterest: textInterest, route: route))
            state = ReaderState(handler: handler, limits: limits, textInterest: textInterest, route: route, context: context)
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
        xmlResetLastError() // the thread's last error must be this chunk's (see failOnEncodingError)
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

// MARK: - Parser state shared with the C callbacks

/// What the C callbacks reach through libxml2's user-data pointer: limits,
/// counters, and the handler events go to.
///
/// A reader is fed from one thread at a time and libxml2 calls back on that
/// thread, so these accesses never overlap: Swift's dynamic exclusivity checks
/// (a large share of the time per event) are turned off for the hot fields.
///
/// The state is not generic: the handler is held as an existential, so each
/// event is one witness call into the handler's own, fully specialised code.
/// (A generic state would run unspecialised here, since the handler's type
/// lives in another module.)
private final class ReaderState {
    let handler: any XMLEventHandler
    /// The events a route hands on go here. Both handlers are constants, so
    /// calling them retains nothing.
    let routeTarget: any XMLEventHandler
    let limits: XMLReaderLimits
    let textInterest: XMLTextInterest
    let route: XMLEventRoute
    let context: xmlParserCtxtPtr
    @exclusivity(unchecked) var depth = 0
    @exclusivity(unchecked) var textRunLength = 0
    @exclusivity(unchecked) var inputBytes = 0
    var utf8 = UTF8Check()
    @exclusivity(unchecked) private var failure: (any Error)?

    init(handler: any XMLEventHandler, limits: XMLReaderLimits, textInterest: XMLTextInterest, route: XMLEventRoute,
         context: xmlParserCtxtPtr) {
        self.handler = handler
        routeTarget = handler.routeTarget ?? handler
        self.limits = limits
        self.textInterest = textInterest
        self.route = route
        self.context = context
    }

    var position: XMLPosition {
        XMLPosition(line: Int(xmlSAX2GetLineNumber(context)), column: Int(xmlSAX2GetColumnNumber(context)))
    }

    /// Fails the parse for passing a limit, at the current position. Kept
    /// out of line, so the callbacks' common path stays short.
    @inline(never)
    func fail(exceeding limit: XMLReaderError.Limit) {
        fail(XMLReaderError.limitExceeded(limit, at: position))
    }

    /// Records the first failure and stops the parser; later events are ignored.
    func fail(_ error: any Error) {
        guard failure == nil else { return }
        failure = error
        xmlStopParser(context)
    }

    func throwIfFailed() throws {
        if let failure { throw failure }
    }

    /// libxml2 reported an error that reached no callback.
    func throwIfParserFailed(status: Int32) throws {
        guard status != 0 else { return }
        throw XMLReaderError.malformed(reason: "libxml2 error \(status)", at: position)
    }

    /// A conversion error in the document's encoding reaches no callback: it
    /// is raised without the parser's context, as the thread's last error,
    /// from the encoder or from the input layer, and the chunk that meets it
    /// may even return success. So it is looked for after every chunk, and
    /// named in words that the chunking cannot change.
    func failOnEncodingError() {
        guard let last = xmlGetLastError()?.pointee,
              last.domain == Int32(XML_FROM_I18N.rawValue)
                || last.domain == Int32(XML_FROM_IO.rawValue) && last.code == Int32(XML_IO_ENCODER.rawValue) else { return }
        fail(XMLReaderError.malformed(reason: "bytes that are not valid in the document's encoding", at: position))
    }

    /// Delivers an event of an element at `depth` unless the parse has
    /// failed: to the route target below the route, else to the handler. An
    /// error fails the parse. The handler is passed borrowed, never retained.
    @inline(__always)
    func deliver(atDepth depth: Int, _ event: (any XMLEventHandler) throws -> Void) {
        guard failure == nil else { return }
        do {
            if depth > route.deeperThan {
                try event(routeTarget)
            } else {
                try event(handler)
            }
        } catch {
            fail(error)
        }
    }
}

/// Runs `body` with the state behind libxml2's user-data pointer: the pointer
/// given to xmlCreatePushParserCtxt, to a ReaderState the reader keeps alive
/// until it frees the context, so it is borrowed without a retain.
@inline(__always)
private func withReaderState(_ userData: UnsafeMutableRawPointer?, _ body: (ReaderState) -> Void) {
    guard let userData else { return }
    Unmanaged<ReaderState>.fromOpaque(userData)._withUnsafeGuaranteedRef(body)
}

private let startElementTrampoline: startElementNsSAX2Func = {
    userData, localName, prefix, uri, namespaceCount, namespaces, attributeCount, _, attributes in
    withReaderState(userData) { state in
        state.depth += 1
        state.textRunLength = 0
        if state.depth > state.limits.maxDepth {
            state.fail(exceeding: .depth(state.limits.maxDepth))
            return
        }
        if let attributes {
            for index in 0..<Int(attributeCount) {
                guard let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4] else { continue }
                if end - start > state.limits.maxTextLength {
                    state.fail(exceeding: .textLength(state.limits.maxTextLength))
                    return
                }
            }
        }
        let element = XMLStartElement(
            localName: XMLName(localName.map(UnsafeRawPointer.init)),
            prefixPointer: prefix,
            namespacePointer: uri,
            namespaceCount: Int(namespaceCount),
            namespaceList: namespaces,
            attributeCount: Int(attributeCount),
            attributeList: attributes
        )
        state.deliver(atDepth: state.depth) { try $0.startElement(element) }
    }
}

private let endElementTrampoline: endElementNsSAX2Func = { userData, localName, _, _ in
    withReaderState(userData) { state in
        let depth = state.depth
        state.depth -= 1
        state.textRunLength = 0
        state.deliver(atDepth: depth) { try $0.endElement(XMLName(localName.map(UnsafeRawPointer.init))) }
    }
}

private let charactersTrampoline: charactersSAXFunc = { userData, bytes, length in
    withReaderState(userData) { state in
        state.textRunLength += Int(length)
        if state.textRunLength > state.limits.maxTextLength {
            state.fail(exceeding: .textLength(state.limits.maxTextLength))
            return
        }
        guard let bytes, state.textInterest.active else { return }
        state.deliver(atDepth: state.depth) { try $0.characters(UnsafeBufferPointer(start: bytes, count: Int(length))) }
    }
}

/// Called at `<!DOCTYPE name …`, before any internal subset is read: refusing
/// here means no entity is ever declared.
private let doctypeTrampoline: internalSubsetSAXFunc = { userData, name, _, _ in
    withReaderState(userData) { state in
        state.fail(XMLReaderError.doctypeForbidden(name: name.map(string(from:)) ?? "", at: state.position))
    }
}

private let structuredErrorTrampoline: xmlStructuredErrorFunc = { userData, error in
    guard let error else { return }
    let level = error.pointee.level
    guard level == XML_ERR_ERROR || level == XML_ERR_FATAL else { return }
    let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    let position = XMLPosition(line: Int(error.pointee.line), column: Int(error.pointee.int2))
    withReaderState(userData) { state in
        state.fail(XMLReaderError.malformed(reason: message.trimmingWhitespace(), at: position))
    }
}
