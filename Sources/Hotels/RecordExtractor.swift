import SOAP

/// The service said, inside a normal response, that the request failed (for
/// example OTA `<Errors>` with HTTP 200): the profile's `error` path matched.
public struct ServiceReportedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The profile path that matched, e.g. `//Errors/Error/@ShortText`.
    public var path: String

    public init(message: String, path: String) {
        self.message = message
        self.path = path
    }

    public var description: String { "the service reported an error: \(message) (\(path))" }
}

/// Turns Body events into the raw field texts of each record, following a
/// profile's paths, as the events arrive.
///
/// The profile's field paths are compiled into a trie rooted at the record
/// element; while inside a record, a stack holds the trie node of each open
/// element (or -1 for one no path goes through), so every event costs a few
/// pointer comparisons. Document paths (`//…`) keep, per open element, how
/// many of their steps the chain of ancestors matches.
final class RecordExtractor: SOAPBodyHandler {
    /// One record's fields, by slot (``HotelField/allCases`` order).
    struct Values {
        /// Texts, trimmed; nil when absent or empty, or when read as a number below.
        var texts: [String?]
        /// Coordinates read straight from the captured bytes, already in
        /// degrees and in range: their text is never made.
        var degrees: [Double?]

        subscript(_ field: HotelField) -> String? { texts[RecordExtractor.slot(field)] }
    }

    /// The trie as it is built: one node per path prefix.
    private struct TrieNode {
        var children: [(name: XMLName, node: Int)] = []
        var attributes: [(name: XMLName, slot: Int)] = []
        var textSlot: Int?
    }

    /// The trie, flattened into arrays of plain values for the hot path: a
    /// node's children are `childNames[children[node]]`; no nested arrays
    /// to retain and release on every element.
    private struct FlatTrie {
        var children: [Range<Int>] = []
        var childNames: [XMLName] = []
        var childNodes: [Int] = []
        var attributes: [Range<Int>] = []
        var attributeNames: [XMLName] = []
        var attributeSlots: [Int] = []
        var textSlots: [Int] = []

        init(_ nodes: [TrieNode]) {
            for node in nodes {
                children.append(childNames.count..<(childNames.count + node.children.count))
                childNames += node.children.map(\.name)
                childNodes += node.children.map(\.node)
                attributes.append(attributeNames.count..<(attributeNames.count + node.attributes.count))
                attributeNames += node.attributes.map(\.name)
                attributeSlots += node.attributes.map(\.slot)
                textSlots.append(node.textSlot ?? -1)
            }
        }
    }

    private struct DocumentMatcher {
        enum Role { case error, cursor, endMarker }
        let role: Role
        let path: DocumentPath
        /// This matcher's steps in ``RecordExtractor/matcherSteps``.
        let steps: Range<Int>
        let attribute: XMLName?
        var value: String?
        var isDone = false
    }

    private enum CaptureTarget {
        case field(Int)
        case document(Int)
    }

    /// Text being collected for an open element: its bytes start at `start`
    /// in the shared buffer, and run to the buffer's end when it closes.
    private struct Capture {
        let depth: Int
        let target: CaptureTarget
        let start: Int
    }

    private let recordName: XMLName
    private let trie: FlatTrie
    /// The profile's error path, document cursor and end marker, where it has them.
    @exclusivity(unchecked) private var matchers: [DocumentMatcher] = []
    /// Every matcher's steps, end to end.
    private let matcherSteps: [XMLName]
    /// How many steps each matcher has matched along the chain of open
    /// elements: a frame of `matchers.count` entries per open element.
    @exclusivity(unchecked) private var matcherProgress: [Int]
    /// Matchers of more than one step, which need their ancestors' progress.
    private let chainedMatchers: [Int]
    /// One-step matchers (`//lastAddTime`) match on the element's name alone:
    /// no progress to keep per element.
    private let singleStepMatchers: [(matcher: Int, name: XMLName)]
    private let cursorSlot: Int?
    private let maxCapture: Int
    /// On only while a capture is open: other text is skipped by the reader.
    private let textInterest: XMLTextInterest
    private let onRecord: (Values, Int) throws -> Void

    // Parse state. One parse runs on one thread at a time and the state is
    // private, so Swift's dynamic exclusivity checks, a fifth of the parse
    // time when enabled, can never fire: they are turned off.
    @exclusivity(unchecked) private var depth = 0
    /// The depth of the open record element, or nil outside records.
    @exclusivity(unchecked) private var recordDepth: Int?
    @exclusivity(unchecked) private var nodeStack: [Int] = []
    @exclusivity(unchecked) private var values = Values(texts: Array(repeating: nil, count: HotelField.allCases.count),
                                                        degrees: Array(repeating: nil, count: HotelField.allCases.count))
    /// Per slot, the coordinate limit of a field read as a number (0: read as text).
    /// A cursor field stays text: the next request sends it as the service wrote it.
    private let degreeLimits: [Double]
    private let coordinateScale: Double
    @exclusivity(unchecked) private var claimed = Array(repeating: false, count: HotelField.allCases.count)
    @exclusivity(unchecked) private var captures: [Capture] = []
    /// The text of every open capture; nested captures share it, since an
    /// element's text includes its descendants'. Emptied (its length set to
    /// zero) when the outermost capture closes.
    private let captureBuffer = ByteBuffer()
    @exclusivity(unchecked) private(set) var recordCount = 0
    @exclusivity(unchecked) private var lastRecordCursor: String?

    /// - Parameter onRecord: receives each record's values and its 1-based ordinal.
    init(profile: ServiceProfile, names: XMLNameTable, limits: XMLReaderLimits,
         onRecord: @escaping (Values, Int) throws -> Void) {
        recordName = names.name(profile.record)
        maxCapture = limits.maxTextLength
        textInterest = names.textInterest
        textInterest.isActive = false
        self.onRecord = onRecord
        coordinateScale = profile.coordinateScale
        var documentPaths: [(DocumentMatcher.Role, DocumentPath)] = []
        if let error = profile.error { documentPaths.append((.error, error)) }
        switch profile.paging {
        case .cursor(.document(let path)):
            documentPaths.append((.cursor, path))
            cursorSlot = nil
        case .cursor(.field(let field)):
            cursorSlot = RecordExtractor.slot(field)
        case .page:
            cursorSlot = nil
        }
        var limits = Array(repeating: 0.0, count: HotelField.allCases.count)
        for field in HotelField.allCases where RecordExtractor.slot(field) != cursorSlot {
            limits[RecordExtractor.slot(field)] = HotelRecordConverter.coordinateLimit(field) ?? 0
        }
        degreeLimits = limits
        if let endMarker = profile.endMarker { documentPaths.append((.endMarker, endMarker)) }
        var steps: [XMLName] = []
        for (role, path) in documentPaths {
            let range = steps.count..<(steps.count + path.steps.elements.count)
            steps += path.steps.elements.map(names.name)
            matchers.append(DocumentMatcher(role: role, path: path, steps: range, attribute: path.steps.attribute.map(names.name)))
        }
        matcherSteps = steps
        let ranges = matchers.map(\.steps)
        chainedMatchers = ranges.indices.filter { ranges[$0].count > 1 }
        singleStepMatchers = ranges.indices.filter { ranges[$0].count == 1 }.map { ($0, steps[ranges[$0].lowerBound]) }
        matcherProgress = Array(repeating: 0, count: chainedMatchers.count)
        var nodes = [TrieNode()]
        for (field, path) in profile.fields {
            RecordExtractor.insert(path, slot: RecordExtractor.slot(field), names: names, into: &nodes)
        }
        trie = FlatTrie(nodes)
    }

    /// The index of a field's value, in ``HotelField/allCases`` order.
    static func slot(_ field: HotelField) -> Int {
        switch field {
        case .code: 0
        case .name: 1
        case .address: 2
        case .latitude: 3
        case .longitude: 4
        case .logoURL: 5
        case .addtime: 6
        }
    }

    /// The cursor for the next page, if this response gave one.
    var nextCursor: String? {
        cursorSlot != nil ? lastRecordCursor : matchers.first { $0.role == .cursor }?.value
    }

    /// The list's final cursor, where the profile's end marker gives it.
    var lastCursor: String? {
        matchers.first { $0.role == .endMarker }?.value?.trimmingWhitespace()
    }

    private static func insert(_ path: FieldPath, slot: Int, names: XMLNameTable, into trie: inout [TrieNode]) {
        var node = 0
        for step in path.elements {
            let name = names.name(step)
            if let existing = trie[node].children.first(where: { $0.name == name }) {
                node = existing.node
            } else {
                trie.append(TrieNode())
                trie[node].children.append((name, trie.count - 1))
                node = trie.count - 1
            }
        }
        if let attribute = path.attribute {
            trie[node].attributes.append((names.name(attribute), slot))
        } else {
            trie[node].textSlot = slot
        }
    }

    // MARK: SOAPBodyHandler

    func startElement(_ element: XMLStartElement) throws {
        depth += 1
        for (index, name) in singleStepMatchers where element.localName == name && !matchers[index].isDone {
            try matched(matcher: index, element)
        }
        if !chainedMatchers.isEmpty {
            let frame = matcherProgress.count - chainedMatchers.count
            for (position, index) in chainedMatchers.enumerated() {
                try advance(matcher: index, parent: matcherProgress[frame + position], into: element)
            }
        }
        if recordDepth != nil {
            let parent = nodeStack[nodeStack.count - 1]
            var child = -1
            if parent >= 0 {
                for index in trie.children[parent] where trie.childNames[index] == element.localName {
                    child = trie.childNodes[index]
                    break
                }
            }
            nodeStack.append(child)
            if child >= 0 { visit(node: child, element) }
        } else if element.localName == recordName {
            recordDepth = depth
            nodeStack.append(0)
            visit(node: 0, element)
        }
    }

    func endElement(_ localName: XMLName) throws {
        defer { depth -= 1 }
        while let capture = captures.last, capture.depth == depth {
            captures.removeLast()
            try finish(capture)
        }
        for _ in chainedMatchers.indices { matcherProgress.removeLast() } // removeLast(n) costs more
        guard let recordDepth else { return }
        nodeStack.removeLast()
        if depth == recordDepth {
            self.recordDepth = nil
            try emitRecord()
        }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) throws {
        guard let outermost = captures.first else { return }
        captureBuffer.append(text)
        if captureBuffer.count - outermost.start > maxCapture {
            throw XMLReaderError.limitExceeded(.textLength(maxCapture), at: XMLPosition(line: 0, column: 0))
        }
    }

    func bodyDidEnd() throws {}

    // MARK: Records

    /// Takes what a trie node wants from this element: attributes now, text
    /// once the element ends. The first match of a field wins.
    private func visit(node: Int, _ element: XMLStartElement) {
        for index in trie.attributes[node] where !claimed[trie.attributeSlots[index]] {
            if let value = element.attribute(trie.attributeNames[index]) {
                claimed[trie.attributeSlots[index]] = true
                values.texts[trie.attributeSlots[index]] = RecordExtractor.cleaned(value)
            }
        }
        let slot = trie.textSlots[node]
        if slot >= 0, !claimed[slot] {
            claimed[slot] = true
            captures.append(Capture(depth: depth, target: .field(slot), start: captureBuffer.count))
            textInterest.isActive = true
        }
    }

    private func emitRecord() throws {
        recordCount += 1
        if let cursorSlot { lastRecordCursor = values.texts[cursorSlot] }
        try onRecord(values, recordCount)
        for slot in values.texts.indices {
            values.texts[slot] = nil
            values.degrees[slot] = nil
            claimed[slot] = false
        }
    }

    private func finish(_ capture: Capture) throws {
        let bytes = RecordExtractor.trimmed(captureBuffer.bytes(from: capture.start))
        defer {
            if captures.isEmpty {
                captureBuffer.count = 0
                textInterest.isActive = false
            }
        }
        switch capture.target {
        case .field(let slot):
            // A plain in-range coordinate becomes a number with no string made;
            // anything else stays text for the converter to judge and report.
            if degreeLimits[slot] > 0, let raw = HotelRecordConverter.decimal(bytes),
               let degrees = HotelRecordConverter.degrees(raw, scale: coordinateScale, limit: degreeLimits[slot]) {
                values.degrees[slot] = degrees
            } else {
                values.texts[slot] = bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
            }
        case .document(let index):
            try found(String(decoding: bytes, as: UTF8.self), matcher: index)
        }
    }

    /// The bytes without surrounding XML white space.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return UnsafeBufferPointer(start: bytes.baseAddress, count: 0) }
        return UnsafeBufferPointer(rebasing: bytes[first...last])
    }

    /// The text without surrounding XML white space; nil when nothing is left.
    private static func cleaned(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = trimmed(bytes)
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }

    private static func cleaned(_ text: String) -> String? {
        var text = text
        return text.withUTF8(cleaned)
    }

    // MARK: Document paths

    /// Pushes how many steps of matcher `index` this element completes, given
    /// its parent's count, and takes the value when the whole path matches.
    private func advance(matcher index: Int, parent: Int, into element: XMLStartElement) throws {
        let steps = matchers[index].steps
        var matched = 0
        if !matchers[index].isDone {
            if parent < steps.count, element.localName == matcherSteps[steps.lowerBound + parent] {
                matched = parent + 1
            } else if element.localName == matcherSteps[steps.lowerBound] {
                matched = 1
            }
        }
        matcherProgress.append(matched)
        if matched == steps.count { try self.matched(matcher: index, element) }
    }

    /// Matcher `index`'s whole path matches `element`: take its attribute
    /// now, or its text once it ends.
    private func matched(matcher index: Int, _ element: XMLStartElement) throws {
        if let attribute = matchers[index].attribute {
            if let value = element.attribute(attribute) {
                try found(value, matcher: index)
                return
            }
            // An error without the expected attribute is still an error: its
            // text stands in. A missing cursor attribute means no next page.
            guard matchers[index].role == .error else { return }
        }
        matchers[index].isDone = true
        captures.append(Capture(depth: depth, target: .document(index), start: captureBuffer.count))
        textInterest.isActive = true
    }

    private func found(_ value: String, matcher index: Int) throws {
        matchers[index].isDone = true
        matchers[index].value = value
        if matchers[index].role == .error {
            throw ServiceReportedError(message: value.isEmpty ? "(no message given)" : value,
                                       path: matchers[index].path.description)
        }
    }
}


/// A growable byte buffer whose reset is setting `count` to zero: the capture
/// buffer is appended to and emptied for every field of every record, where
/// an array's bookkeeping shows.
///
/// Used by one parse on one thread, like the extractor that owns it.
private final class ByteBuffer {
    private var storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    private var capacity = 256
    @exclusivity(unchecked) var count = 0

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity {
            var grown = capacity * 2
            while grown < count + bytes.count { grown *= 2 }
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            larger.update(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity = grown
        }
        (storage + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// The bytes from `start` to the end, valid until the next append.
    func bytes(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + start, count: count - start)
    }

    deinit { storage.deallocate() }
}
