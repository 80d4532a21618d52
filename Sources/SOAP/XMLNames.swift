import CLibXML2

/// The names a handler compares against, interned in the reader's dictionary.
///
/// libxml2 interns every element and attribute name it parses, so a name from
/// this table equals a parsed name exactly when their pointers are equal: name
/// matching on the hot path costs one comparison.
public struct XMLNameTable {
    let context: xmlParserCtxtPtr
    // Besides names, the reader's controls a handler may use.
    /// Whether character data is wanted now; a handler may switch it off
    /// while no text interests it, sparing a call per text node.
    public let textInterest: XMLTextInterest
    /// Where the events of a subtree go, when a handler hands them on.
    public let route: XMLEventRoute
    /// The simple fields of a record, which the reader can read itself.
    public let fields: XMLFieldCapture

    /// The interned form of `name`.
    public func name(_ name: String) -> XMLName {
        let pointer = name.withCString { cString in
            xmlDictLookup(context.pointee.dict, UnsafeRawPointer(cString).assumingMemoryBound(to: xmlChar.self), -1)
        }
        // xmlDictLookup only fails when out of memory; a name that matches
        // nothing is the safe answer then.
        return XMLName(pointer.map(UnsafeRawPointer.init))
    }
}

/// Lets a handler that only passes a subtree's events on step aside: the
/// reader then delivers them to the handler's ``XMLEventHandler/routeTarget``
/// itself, which spares a call per event. A SOAP envelope's body is such a
/// subtree.
///
/// Set and read on the parse's one thread, like ``XMLTextInterest``.
public final class XMLEventRoute {
    /// Elements deeper than this (the document element is at depth 1) go to
    /// the route target, with their text and end tags.
    @exclusivity(unchecked) var deeperThan = Int.max

    init() {}

    /// From now on, the events of elements deeper than `depth` go straight
    /// to the route target; the events at `depth` and above still come to
    /// the reader's handler.
    public func deliver(deeperThan depth: Int) {
        deeperThan = depth
    }

    /// Every event goes to the reader's handler again.
    public func clear() {
        deeperThan = Int.max
    }
}

/// Whether a reader's handlers want character data right now. On by default;
/// the reader still counts every text node against its limits.
public final class XMLTextInterest {
    /// Where text goes: nowhere, to the handler's `characters`, or into ``buffer``.
    @usableFromInline enum Mode: UInt8 { case off, deliver, collect }

    // Set and read on the parse's one thread: no exclusivity checks.
    @exclusivity(unchecked) @usableFromInline var mode = Mode.deliver
    /// What ``collect(from:atMost:)`` allows: at most `maxLength` bytes in
    /// the buffer past `collectStart`.
    @exclusivity(unchecked) @usableFromInline var collectStart = 0
    @exclusivity(unchecked) @usableFromInline var maxLength = Int.max

    /// Where the reader appends character data while a handler collects it.
    public let buffer = XMLTextBuffer()

    /// Inlinable: handlers switch it on and off for every field they read.
    /// Setting it delivers text to the handlers' `characters`, or none.
    @inlinable public var isActive: Bool {
        get { mode != .off }
        set { mode = newValue ? .deliver : .off }
    }

    /// From now on, until ``isActive`` is set, the reader appends character
    /// data to ``buffer`` itself, with no call to any handler: a text node
    /// costs a copy. More than `maxLength` bytes past `start` fail the
    /// parse, as a text value past the limit.
    @inlinable public func collect(from start: Int, atMost maxLength: Int) {
        mode = .collect
        collectStart = start
        self.maxLength = maxLength
    }

    init() {}
}

/// A name interned by one reader: valid, and comparable, while that reader lives.
public struct XMLName: Hashable {
    let pointer: UnsafeRawPointer?

    init(_ pointer: UnsafeRawPointer?) {
        self.pointer = pointer
    }

    /// A number that identifies this name while its reader lives (where
    /// libxml2's dictionary keeps it), for tables keyed by name: cheaper to
    /// hash than the name's text.
    public var identity: UInt { UInt(bitPattern: pointer) }

    /// The name as a Swift string.
    public var string: String {
        guard let pointer else { return "" }
        return String(cString: pointer.assumingMemoryBound(to: CChar.self))
    }
}

/// A start tag, as a view into the parser's buffers for the duration of the
/// callback.
public struct XMLStartElement {
    public let localName: XMLName
    /// How deep it is: the document element is at depth 1.
    public let depth: Int
    let prefixPointer: UnsafePointer<xmlChar>?
    let namespacePointer: UnsafePointer<xmlChar>?
    let namespaceCount: Int
    let namespaceList: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let attributeCount: Int
    let attributeList: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    /// The element's namespace URI, if it has one.
    public var namespaceURI: String? { namespacePointer.map(string(from:)) }

    /// The prefix the element was written with, if any.
    public var prefix: String? { prefixPointer.map(string(from:)) }

    /// The value of the attribute with this local name, whatever its namespace.
    public func attribute(_ name: XMLName) -> String? {
        attributeBytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The UTF-8 value of the attribute with this local name, whatever its
    /// namespace, as a view valid for the duration of the callback.
    public func attributeBytes(_ name: XMLName) -> UnsafeBufferPointer<UInt8>? {
        guard let list = attributeList else { return nil }
        for index in 0..<attributeCount where UnsafeRawPointer(list[index * 5]) == name.pointer {
            return valueBytes(at: index, in: list)
        }
        return nil
    }

    /// Every attribute, in document order.
    public var attributes: [XMLAttribute] {
        guard let list = attributeList else { return [] }
        return (0..<attributeCount).map { index in
            XMLAttribute(
                localName: list[index * 5].map(string(from:)) ?? "",
                prefix: list[index * 5 + 1].map(string(from:)),
                namespaceURI: list[index * 5 + 2].map(string(from:)),
                value: String(decoding: valueBytes(at: index, in: list), as: UTF8.self)
            )
        }
    }

    /// The namespaces this tag declares, as (prefix, URI); a nil prefix is the default namespace.
    public var namespaceDeclarations: [(prefix: String?, uri: String)] {
        guard let list = namespaceList else { return [] }
        return (0..<namespaceCount).map { index in
            (list[index * 2].map(string(from:)), list[index * 2 + 1].map(string(from:)) ?? "")
        }
    }

    private func valueBytes(at index: Int, in list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>) -> UnsafeBufferPointer<UInt8> {
        guard let start = list[index * 5 + 3], let end = list[index * 5 + 4] else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: start, count: end - start)
    }
}

/// One attribute of a start tag, copied out.
public struct XMLAttribute: Sendable, Equatable {
    public var localName: String
    public var prefix: String?
    public var namespaceURI: String?
    public var value: String
}
