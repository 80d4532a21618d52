import CLibXML2

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
final class ReaderState {
    let handler: any XMLEventHandler
    /// The events a route hands on go here. Both handlers are constants, so
    /// calling them retains nothing.
    let routeTarget: any XMLEventHandler
    let limits: XMLReaderLimits
    let textInterest: XMLTextInterest
    /// The text interest's buffer, held here too: reached through the
    /// interest, each append retained and released it.
    let buffer: XMLTextBuffer
    let route: XMLEventRoute
    let fields: XMLFieldCapture
    let context: xmlParserCtxtPtr
    @exclusivity(unchecked) var depth = 0
    @exclusivity(unchecked) var textRunLength = 0
    @exclusivity(unchecked) var inputBytes = 0
    var utf8 = UTF8Check()
    @exclusivity(unchecked) private var failure: (any Error)?

    init(
        handler: any XMLEventHandler, limits: XMLReaderLimits, textInterest: XMLTextInterest, route: XMLEventRoute,
        fields: XMLFieldCapture, context: xmlParserCtxtPtr
    ) {
        self.handler = handler
        routeTarget = handler.routeTarget ?? handler
        self.limits = limits
        self.textInterest = textInterest
        buffer = textInterest.buffer
        self.route = route
        self.fields = fields
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
                || last.domain == Int32(XML_FROM_IO.rawValue) && last.code == Int32(XML_IO_ENCODER.rawValue)
        else { return }
        fail(XMLReaderError.malformed(reason: "bytes that are not valid in the document's encoding", at: position))
    }

    /// A start tag: a field, read here in a function that calls nothing
    /// (``XMLFieldCapture``), or an element for the handlers.
    @inline(__always)
    func startElement(
        _ name: XMLName, prefix: UnsafePointer<xmlChar>?, namespace: UnsafePointer<xmlChar>?,
        namespaces: (count: Int, list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?),
        attributes: (count: Int, defaulted: Int, list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?)
    ) {
        // A field has no attributes (none defaulted either: with every DTD
        // refused, none ever are) to check against the limits, and is no
        // deeper than they allow.
        if depth &+ 1 == fields.depth, depth < limits.maxDepth, attributes.count | attributes.defaulted == 0, namespaces.count == 0,
            fields.start(name, prefix: prefix, namespace: namespace, interest: textInterest, maxLength: limits.maxTextLength)
        {
            depth &+= 1
            textRunLength = 0
            return
        }
        anyStart(name, prefix: prefix, namespace: namespace, namespaces: namespaces, attributes: (attributes.count, attributes.list))
    }

    @inline(never)
    private func anyStart(
        _ name: XMLName, prefix: UnsafePointer<xmlChar>?, namespace: UnsafePointer<xmlChar>?,
        namespaces: (count: Int, list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?),
        attributes: (count: Int, list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?)
    ) {
        depth += 1
        textRunLength = 0
        if depth > limits.maxDepth {
            fail(exceeding: .depth(limits.maxDepth))
            return
        }
        if let list = attributes.list {
            for index in 0..<attributes.count {
                guard let start = list[index * 5 + 3], let end = list[index * 5 + 4] else { continue }
                if end - start > limits.maxTextLength {
                    fail(exceeding: .textLength(limits.maxTextLength))
                    return
                }
            }
        }
        if fields.isOpen { handBack(fields.field) }
        let element = XMLStartElement(
            localName: name, depth: depth, prefixPointer: prefix, namespacePointer: namespace, namespaceCount: namespaces.count,
            namespaceList: namespaces.list, attributeCount: attributes.count, attributeList: attributes.list)
        deliver(atDepth: depth) { try $0.startElement(element) }
    }

    /// An end tag: a field's, ended here in a function that calls nothing,
    /// or one for the handlers.
    @inline(__always)
    func endElement(_ name: XMLName) {
        if depth == fields.depth, fields.isOpen {
            fields.end(interest: textInterest)
            depth -= 1
            textRunLength = 0
            return
        }
        anyEnd(name)
    }

    @inline(never)
    private func anyEnd(_ name: XMLName) {
        let depth = self.depth
        self.depth -= 1
        textRunLength = 0
        deliver(atDepth: depth) { try $0.endElement(name) }
    }

    /// Text: while a handler collects it, a few bytes are appended here, in
    /// a function that calls nothing and so saves almost no registers; text
    /// no one wants is only counted; anything else takes the general way.
    @inline(__always)
    func characters(_ bytes: UnsafePointer<UInt8>?, count: Int) {
        let run = textRunLength &+ count
        let used = buffer.count
        if let bytes, textInterest.mode == .collect, (4...32).contains(count), run <= limits.maxTextLength,
            used + count <= buffer.capacity, used + count - textInterest.collectStart <= textInterest.maxLength
        {
            textRunLength = run
            XMLTextBuffer.copy(bytes, to: buffer.storage + used, count: count)
            buffer.count = used + count
            return
        }
        // The white space between records, say.
        if textInterest.mode == .off, run <= limits.maxTextLength {
            textRunLength = run
            return
        }
        anyCharacters(bytes, count: count)
    }

    @inline(never)
    private func anyCharacters(_ bytes: UnsafePointer<UInt8>?, count: Int) {
        textRunLength += count
        if textRunLength > limits.maxTextLength {
            fail(exceeding: .textLength(limits.maxTextLength))
            return
        }
        guard let bytes else { return }
        take(UnsafeBufferPointer(start: bytes, count: count), atDepth: depth)
    }

    /// Text of an element at `depth` where the handlers want it now: into
    /// the text buffer, to a handler's `characters`, or nowhere.
    @inline(__always)
    func take(_ text: UnsafeBufferPointer<UInt8>, atDepth depth: Int) {
        switch textInterest.mode {
        case .off:
            return
        case .collect:
            // No call to any handler: the one collecting reads the buffer when its element ends.
            buffer.append(text)
            if buffer.count - textInterest.collectStart > textInterest.maxLength { fail(exceeding: .textLength(textInterest.maxLength)) }
        case .deliver:
            deliver(atDepth: depth) { try $0.characters(text) }
        }
    }

    /// A field being read holds an element: hands the field back to its
    /// handler first, its start tag and then its text so far, as the
    /// handler would have had them (``XMLFieldCapture``).
    @inline(never)
    func handBack(_ field: XMLFieldCapture.OpenField) {
        fields.isOpen = false
        let text = Array(buffer.bytes(from: field.start))
        buffer.count = field.start
        textInterest.mode = field.modeBefore
        // Read as a field only without attributes or namespace declarations: this is its whole start tag.
        let element = XMLStartElement(
            localName: field.localName, depth: depth - 1, prefixPointer: field.prefix, namespacePointer: field.namespace,
            namespaceCount: 0, namespaceList: nil, attributeCount: 0, attributeList: nil)
        deliver(atDepth: depth - 1) { try $0.startElement(element) }
        text.withUnsafeBufferPointer { take($0, atDepth: depth - 1) }
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

// The three callbacks of every element: each calls one method of the state,
// inlined, so that the callback libxml2 calls is the whole of it.

let startElementTrampoline: startElementNsSAX2Func = {
    userData, localName, prefix, uri, namespaceCount, namespaces, attributeCount, defaultedCount, attributes in
    withReaderState(userData) { state in
        state.startElement(
            XMLName(localName.map(UnsafeRawPointer.init)), prefix: prefix, namespace: uri, namespaces: (Int(namespaceCount), namespaces),
            attributes: (Int(attributeCount), Int(defaultedCount), attributes))
    }
}

let endElementTrampoline: endElementNsSAX2Func = { userData, localName, _, _ in
    withReaderState(userData) { state in state.endElement(XMLName(localName.map(UnsafeRawPointer.init))) }
}

let charactersTrampoline: charactersSAXFunc = { userData, bytes, length in
    withReaderState(userData) { state in state.characters(bytes, count: Int(length)) }
}

/// Called at `<!DOCTYPE name …`, before any internal subset is read: refusing
/// here means no entity is ever declared.
let doctypeTrampoline: internalSubsetSAXFunc = { userData, name, _, _ in
    withReaderState(userData) { state in
        state.fail(XMLReaderError.doctypeForbidden(name: name.map(string(from:)) ?? "", at: state.position))
    }
}

let structuredErrorTrampoline: xmlStructuredErrorFunc = { userData, error in
    guard let error else { return }
    let level = error.pointee.level
    guard level == XML_ERR_ERROR || level == XML_ERR_FATAL else { return }
    let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    let position = XMLPosition(line: Int(error.pointee.line), column: Int(error.pointee.int2))
    withReaderState(userData) { state in
        state.fail(XMLReaderError.malformed(reason: message.trimmingWhitespace(), at: position))
    }
}
