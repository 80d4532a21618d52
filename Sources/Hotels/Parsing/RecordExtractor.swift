import SOAP

/// Turns Body events into the raw fields of each record, following a
/// profile's paths, as the events arrive.
///
/// The profile's field paths are compiled into a trie rooted at the record
/// element; while inside a record, a stack holds the trie node of each open
/// element (or -1 for one no path goes through), so every event costs a few
/// pointer comparisons. Document paths (`//…`) keep, per open element, how
/// many of their steps the chain of ancestors matches.
///
/// A record's text and attribute values are copied into two byte buffers
/// and stay there until the record ends: the converter reads them in place.
/// Every stack lives in memory allocated once per parse, sized by the depth
/// limit the reader enforces, so the hot path checks no uniqueness and
/// retains nothing.
final class RecordExtractor: SOAPBodyHandler {
    private struct DocumentMatcher {
        enum Role: Equatable { case error, errorMessage, cursor, cursorAttribute(String), endMarker, more }
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
        /// A part of a joined field: its index in ``RecordExtractor/joinParts``.
        case joinPart(Int)
        /// The code of a reference found in this record, whose element's text it is: its index in ``RecordExtractor/foundReferences``.
        case referenceCode(Int)
    }

    /// A reference rule, with its names looked up once.
    private struct ReferenceReader {
        let catalogAttribute: XMLName?
        let fixedCatalog: [UInt8]
        let codeAttribute: XMLName?
    }

    /// One path of a joined field: which field, and the path's place in the join.
    private struct JoinPart {
        let slot: Int
        let order: Int
    }

    /// A piece of a joined field found in this record.
    private struct FoundPart {
        let slot: Int
        let order: Int
        let bytes: FieldBytes
    }

    /// Text being collected for an open element: its bytes start at `start`
    /// in the text buffer, and run to the buffer's end when it closes.
    private struct Capture {
        let depth: Int
        let target: CaptureTarget
        let start: Int
    }

    /// Nil for a profile without records: no element is one.
    private let recordName: XMLName?
    private let trie: FieldTrie
    /// The profile's error path, document cursor and end marker, where it has them.
    @exclusivity(unchecked) private var matchers: [DocumentMatcher] = []
    /// Every matcher's steps, end to end.
    private let matcherSteps: [XMLName]
    /// Matchers of more than one step, which need their ancestors' progress.
    private let chainedMatchers: [Int]
    /// How many steps each chained matcher has matched along the chain of
    /// open elements: a frame of `chainedMatchers.count` entries per element.
    @exclusivity(unchecked) private var matcherProgress: FixedStack<Int>
    /// One-step matchers (`//lastAddTime`) match on the element's name alone,
    /// with no progress to keep per element. They are checked for every
    /// element, so they sit in memory of their own, by name identity, where
    /// iterating an array would cost a retain and a release.
    private let singleStepMatchers: FixedStack<(matcher: Int, name: UInt)>
    private let cursorField: HotelField?
    private let errorRule: ErrorRule?
    /// The error's value and how many times its path matched; thrown at the Body's end.
    @exclusivity(unchecked) private var errorValue: String?
    @exclusivity(unchecked) private var errorCount = 0
    /// Fields mapped to the same path as an earlier field: (its slot, the
    /// earlier one's). The trie fills the earlier one; these copy it.
    private let aliases: [(slot: Int, source: Int)]
    /// Every path of every joined field, and the joined fields with their separators, by slot.
    private let joinParts: [JoinPart]
    private let joinSeparators: [(slot: Int, separator: [UInt8], paths: Int)]
    /// The parts of joined fields found in the open record, and the joined values built from them.
    @exclusivity(unchecked) private var foundParts: [FoundPart] = []
    private let joined = ByteBuffer()
    /// The profile's reference rules, by the index the trie gives.
    private let referenceReaders: [ReferenceReader]
    private let hasReferences: Bool
    /// The open record's references.
    @exclusivity(unchecked) private var foundReferences: [ReferenceBytes] = []
    private let maxCapture: Int
    private let maxDepth: Int
    /// On only while a capture is open: other text is skipped by the reader.
    private let textInterest: XMLTextInterest
    private let onRecord: (RecordFields, Int) throws -> Void

    // Parse state. One parse runs on one thread at a time and the state is
    // private, so Swift's dynamic exclusivity checks, a fifth of the parse
    // time when enabled, can never fire: they are turned off.
    @exclusivity(unchecked) private var depth = 0
    /// The depth of the open record element, or nil outside records.
    @exclusivity(unchecked) private var recordDepth: Int?
    @exclusivity(unchecked) private var nodeStack: FixedStack<Int>
    @exclusivity(unchecked) private var captures: FixedStack<Capture>
    /// The open record's fields, by slot (``HotelField/allCases`` order).
    private let fields = UnsafeMutablePointer<FieldBytes>.allocate(capacity: RecordExtractor.slotCount)
    /// One bit per slot whose path has matched in this record: the first match wins.
    @exclusivity(unchecked) private var claimed: UInt32 = 0
    /// The text of the open record's captures, and of every open capture;
    /// nested captures share it, since an element's text includes its
    /// descendants'. Emptied when a record ends with no capture open.
    private let text = ByteBuffer()
    /// The open record's attribute fields, apart from the text so that an
    /// enclosing capture's text is never interleaved with them.
    private let attributes = ByteBuffer()
    /// The cursor field of the last record, kept as bytes until asked for.
    private let lastRecordCursor = ByteBuffer()
    @exclusivity(unchecked) private var lastRecordHasCursor = false
    @exclusivity(unchecked) private(set) var recordCount = 0
    /// Until the first record: every element's name, how often it came and
    /// how shallow, for saying what the body holds when no record matches.
    @exclusivity(unchecked) private var seenBeforeRecords: [UInt: (name: String, count: Int, depth: Int, order: Int)] = [:]
    /// The payload's root (the Body's first child) and its namespace.
    @exclusivity(unchecked) private(set) var payload: (name: String, namespace: String?)?
    private let recordElement: String?
    private let headerReader: HeaderValueReader?
    /// Fields taken from an enclosing element: slot, how many levels up to start, which attribute.
    private let ancestorFields: [(slot: Int, levels: Int, attribute: XMLName)]
    /// Whether the profile uses ancestors, joins or shared paths: plain flags,
    /// so a profile without them pays no array access per element or record.
    private let hasAncestorFields: Bool
    private let hasJoins: Bool
    private let hasAliases: Bool
    /// Open elements outside records that hold an attribute some ancestor field wants: depth and values.
    @exclusivity(unchecked) private var ancestorFrames: [(depth: Int, values: [[UInt8]?])] = []
    /// The header value that is the cursor, under `header:NAME` cursor paging.
    private let headerCursor: String?

    var headerHandler: (any XMLEventHandler)? { headerReader }

    /// The profile's header values this response gave.
    var headerValues: [String: String] { headerReader?.values ?? [:] }

    /// - Parameter onRecord: receives each record's fields and its 1-based ordinal.
    init(profile: ServiceProfile, names: XMLNameTable, limits: XMLReaderLimits,
         onRecord: @escaping (RecordFields, Int) throws -> Void) {
        recordName = profile.record.map(names.name)
        recordElement = profile.record
        maxCapture = limits.maxTextLength
        maxDepth = limits.maxDepth
        textInterest = names.textInterest
        textInterest.isActive = false
        self.onRecord = onRecord
        var documentPaths: [(DocumentMatcher.Role, DocumentPath)] = []
        errorRule = profile.error
        if let error = profile.error {
            documentPaths.append((.error, error.path))
            documentPaths += error.message.map { (.errorMessage, $0) }
        }
        switch profile.paging {
        case .cursor(.document(let path)):
            documentPaths.append((.cursor, path))
            // Read where the cursor is: the same element, its attributes.
            documentPaths += profile.cursorAttributes.map { name in
                var attribute = path
                attribute.steps.attribute = name
                return (.cursorAttribute(name), attribute)
            }
            cursorField = nil
        case .cursor(.field(let field)):
            cursorField = field
        case .flag(let path):
            documentPaths.append((.more, path))
            cursorField = nil
        case .page, .none, .cursor(.header):
            cursorField = nil
        }
        let headerPaths = profile.headerValuePaths
        headerReader = headerPaths.isEmpty ? nil : HeaderValueReader(headerPaths, names: names)
        if case .cursor(.header(let name)) = profile.paging { headerCursor = name } else { headerCursor = nil }
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
        singleStepMatchers = FixedStack(ranges.indices.filter { ranges[$0].count == 1 }.map {
            ($0, steps[ranges[$0].lowerBound].identity)
        })
        // The reader refuses a document deeper than maxDepth, which bounds
        // every stack: one node per open element, and per element at most
        // one field capture and one capture per matcher.
        let frames = limits.maxDepth + 1
        // One frame more, of zeros, for the document above the first element:
        // the first element's parent frame is read like any other.
        matcherProgress = FixedStack(Array(repeating: 0, count: chainedMatchers.count), capacity: (frames + 1) * chainedMatchers.count + 1)
        nodeStack = FixedStack(capacity: frames)
        captures = FixedStack(capacity: frames * (1 + matchers.count))
        fields.initialize(repeating: .absent, count: RecordExtractor.slotCount)
        // In slot order, so the first field of a shared path is always the one the trie fills.
        let mapped = profile.fields.map { (slot: RecordExtractor.slot($0.key), path: $0.value) }.sorted { $0.slot < $1.slot }
        var firstSlot: [FieldPath: Int] = [:]
        var aliases: [(slot: Int, source: Int)] = []
        var distinct: [(slot: Int, path: FieldPath)] = []
        ancestorFields = mapped.compactMap { slot, path in
            path.ancestorLevels > 0 ? path.attribute.map { (slot, path.ancestorLevels, names.name($0)) } : nil
        }
        for (slot, path) in mapped where path.ancestorLevels == 0 {
            if let source = firstSlot[path] {
                aliases.append((slot, source))
            } else {
                firstSlot[path] = slot
                distinct.append((slot, path))
            }
        }
        self.aliases = aliases
        hasAliases = !aliases.isEmpty
        hasAncestorFields = !ancestorFields.isEmpty
        hasJoins = !profile.joins.isEmpty
        var parts: [JoinPart] = []
        var targets = distinct
        for (field, join) in profile.joins.sorted(by: { RecordExtractor.slot($0.key) < RecordExtractor.slot($1.key) }) {
            for (order, path) in join.paths.enumerated() {
                targets.append((FieldTrie.joinTarget(parts.count), path))
                parts.append(JoinPart(slot: RecordExtractor.slot(field), order: order))
            }
        }
        joinParts = parts
        for (rule, reference) in profile.references.enumerated() {
            targets.append((FieldTrie.referenceTarget(rule), reference.element))
        }
        referenceReaders = profile.references.map { rule in
            switch rule.catalog {
            case .attribute(let name): ReferenceReader(catalogAttribute: names.name(name), fixedCatalog: [], codeAttribute: rule.codeAttribute.map(names.name))
            case .fixed(let catalog): ReferenceReader(catalogAttribute: nil, fixedCatalog: Array(catalog.utf8), codeAttribute: rule.codeAttribute.map(names.name))
            }
        }
        hasReferences = !profile.references.isEmpty
        joinSeparators = profile.joins.map { (RecordExtractor.slot($0.key), Array($0.value.separator.utf8), $0.value.paths.count) }
            .sorted { $0.slot < $1.slot }
        trie = FieldTrie(targets, names: names)
    }

    deinit {
        singleStepMatchers.deallocate()
        matcherProgress.deallocate()
        nodeStack.deallocate()
        captures.deallocate()
        fields.deallocate()
    }

    /// How many fields a record has.
    static let slotCount = HotelField.allCases.count

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
        case .phone: 7
        case .chainCode: 8
        case .rating: 9
        case .postalCode: 10
        case .city: 11
        case .countryCode: 12
        case .references: 13
        }
    }

    /// The cursor for the next page, if this response gave one.
    var nextCursor: String? {
        if let headerCursor { return headerValues[headerCursor] }
        guard cursorField != nil else { return matchers.first { $0.role == .cursor }?.value }
        return lastRecordHasCursor ? String(decoding: lastRecordCursor.bytes(from: 0), as: UTF8.self) : nil
    }

    /// The attributes that travel with the cursor (``ServiceProfile/cursorAttributes``).
    var nextCursorAttributes: [String: String] {
        var attributes: [String: String] = [:]
        for matcher in matchers {
            if case .cursorAttribute(let name) = matcher.role, let value = matcher.value { attributes[name] = value }
        }
        return attributes
    }

    /// The more-rows flag, under flag paging.
    var moreFlag: String? {
        matchers.first { $0.role == .more }?.value
    }

    /// The list's final cursor, where the profile's end marker gives it.
    var lastCursor: String? {
        matchers.first { $0.role == .endMarker }?.value?.trimmingWhitespace()
    }

    // MARK: SOAPBodyHandler

    func startElement(_ element: XMLStartElement) throws {
        depth += 1
        for position in 0..<singleStepMatchers.count where singleStepMatchers[position].name == element.localName.identity {
            let index = singleStepMatchers[position].matcher
            if !matchers[index].isDone || matchers[index].role == .error { try matched(matcher: index, element) }
        }
        if !chainedMatchers.isEmpty {
            let frame = matcherProgress.count - chainedMatchers.count
            for (position, index) in chainedMatchers.enumerated() {
                try advance(matcher: index, parent: matcherProgress[frame + position], into: element)
            }
        }
        if recordDepth != nil {
            let parent = nodeStack.top
            let child = parent < 0 ? -1 : trie.hasTests ? trie.child(of: parent, for: element) : trie.child(of: parent, named: element.localName)
            try nodeStack.push(child, maxDepth: maxDepth)
            if child >= 0 { try visit(node: child, element) }
        } else {
            // Outside records only, so a record's elements pay nothing for these.
            if recordCount == 0 { noteBeforeRecords(element) }
            if element.localName == recordName {
                recordDepth = depth
                try nodeStack.push(0, maxDepth: maxDepth)
                if hasAncestorFields { takeAncestors() }
                try visit(node: 0, element)
            } else if hasAncestorFields {
                noteAncestor(element)
            }
        }
    }

    func endElement(_ localName: XMLName) throws {
        defer { depth -= 1 }
        while captures.count > 0, captures.top.depth == depth {
            try finish(captures.pop())
        }
        matcherProgress.pop(chainedMatchers.count)
        guard let recordDepth else {
            // Ancestor frames open and close outside records only.
            if hasAncestorFields, ancestorFrames.last?.depth == depth { ancestorFrames.removeLast() }
            return
        }
        nodeStack.pop(1)
        if depth == recordDepth {
            self.recordDepth = nil
            try emitRecord()
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        guard captures.count > 0 else { return }
        text.append(bytes)
        if text.count - captures[0].start > maxCapture {
            throw XMLReaderError.limitExceeded(.textLength(maxCapture), at: XMLPosition(line: 0, column: 0))
        }
    }

    /// Remembers an element that encloses records and holds an attribute some ancestor field wants.
    private func noteAncestor(_ element: XMLStartElement) {
        // Trimmed once, here: every record below copies the bytes.
        let values = ancestorFields.map { field in element.attributeBytes(field.attribute).map { Array(RecordExtractor.trimmed($0)) } }
        if values.contains(where: { $0 != nil }) { ancestorFrames.append((depth, values)) }
    }

    /// Fills the ancestor fields of a record that starts now: for each, the
    /// nearest enclosing element, from its level up, that has the attribute.
    private func takeAncestors() {
        guard let recordDepth else { return }
        for (index, field) in ancestorFields.enumerated() {
            var frame = ancestorFrames.count - 1
            while frame >= 0, ancestorFrames[frame].depth > recordDepth - field.levels || ancestorFrames[frame].values[index] == nil { frame -= 1 }
            guard frame >= 0, let value = ancestorFrames[frame].values[index] else { continue }
            let start = attributes.count
            value.withUnsafeBufferPointer { attributes.append($0) }
            fields[field.slot] = FieldBytes(start: start, count: attributes.count - start, source: .attributes)
            claimed |= 1 << field.slot
        }
    }

    /// Keeps what the body holds until a record comes: off the path of every response that has records.
    private func noteBeforeRecords(_ element: XMLStartElement) {
        if payload == nil { payload = (element.localName.string, element.namespaceURI) }
        guard element.localName != recordName, seenBeforeRecords.count < 512 || seenBeforeRecords[element.localName.identity] != nil else { return }
        seenBeforeRecords[element.localName.identity, default: (element.localName.string, 0, depth, seenBeforeRecords.count)].count += 1
    }

    /// Why a body with content gave no record, when it repeats some element
    /// that could be the record: `no <Hotel> records; the body repeats <Property> ×100`.
    var noRecordsHint: String? {
        guard recordCount == 0, let recordElement else { return nil }
        // The shallowest repeated elements are the likeliest records; then the most repeated, then the first seen.
        let repeated = seenBeforeRecords.values.filter { $0.count > 1 }
            .sorted { ($0.depth, -$0.count, $0.order) < ($1.depth, -$1.count, $1.order) }.prefix(2)
        guard let likeliest = repeated.first else { return nil }
        var hint = "no <\(recordElement)> records; the body repeats "
            + repeated.map { "<\($0.name)> ×\($0.count)" }.joined(separator: " and ")
        var tries = ["\"record\": \"\(likeliest.name)\""]
        // The built-in reads OTA_HotelSearchRS only: another OTA payload would meet the same silence there.
        if payload?.namespace?.contains("opentravel.org/OTA") == true, payload?.name == "OTA_HotelSearchRS", recordElement != "Property" {
            tries.insert("the built-in profile ota-search (this is an OpenTravel <\(payload?.name ?? "")>)", at: 0)
        }
        hint += ": try " + tries.joined(separator: ", or ")
        return hint
    }

    /// The error, if the response reported one, now that every part of its message has been read.
    func bodyDidEnd() throws {
        guard let errorRule, let errorValue else { return }
        let parts = matchers.filter { $0.role == .errorMessage }.compactMap { $0.value?.foldingWhitespace() }.filter { !$0.isEmpty }
        let message = parts.isEmpty ? errorValue.foldingWhitespace() : parts.joined(separator: " ")
        throw ServiceReportedError(message: message.isEmpty ? "(no message given)" : message, path: errorRule.path.description,
                                   others: errorCount - 1, isAuthentication: errorRule.authentication.contains(errorValue.foldingWhitespace()))
    }

    // MARK: Records

    /// Takes what a trie node wants from this element: attributes now, text
    /// once the element ends. The first match of a field wins.
    @inline(__always) // called for most elements of a record: no call frame
    private func visit(node: Int, _ element: XMLStartElement) throws {
        let wanted = trie.nodes[node]
        if !wanted.attributes.isEmpty { takeAttributes(wanted.attributes, of: element) }
        let slot = wanted.textSlot
        if slot >= 0, claimed & (1 << slot) == 0 {
            claimed |= 1 << slot
            try captures.push(Capture(depth: depth, target: .field(slot), start: text.count), maxDepth: maxDepth)
            textInterest.isActive = true
        }
        if wanted.referenceRule >= 0 { try takeReference(wanted.referenceRule, element) }
        if wanted.joinPart >= 0 {
            // Every match of a joined part is taken, not just the first.
            try captures.push(Capture(depth: depth, target: .joinPart(wanted.joinPart), start: text.count), maxDepth: maxDepth)
            textInterest.isActive = true
        }
    }

    /// Copies the attribute fields a trie node names out of the start tag.
    private func takeAttributes(_ wanted: Range<Int>, of element: XMLStartElement) {
        for index in wanted {
            let attribute = trie.attributes[index]
            if let part = FieldTrie.joinPart(of: attribute.slot) {
                guard let value = element.attributeBytes(attribute.name) else { continue }
                let start = attributes.count
                attributes.append(RecordExtractor.trimmed(value))
                found(part: part, FieldBytes(start: start, count: attributes.count - start, source: .attributes))
                continue
            }
            guard claimed & (1 << attribute.slot) == 0, let value = element.attributeBytes(attribute.name) else { continue }
            claimed |= 1 << attribute.slot
            let start = attributes.count
            attributes.append(RecordExtractor.trimmed(value))
            fields[attribute.slot] = FieldBytes(start: start, count: attributes.count - start, source: .attributes)
        }
    }

    /// A reference rule's element: its catalogue now, its code now or, as its text, when it ends.
    @inline(never)
    private func takeReference(_ rule: Int, _ element: XMLStartElement) throws {
        let reader = referenceReaders[rule]
        var catalog = FieldBytes.absent
        if let attribute = reader.catalogAttribute {
            if let value = element.attributeBytes(attribute) { catalog = append(RecordExtractor.trimmed(value)) }
        } else {
            catalog = reader.fixedCatalog.withUnsafeBufferPointer { append($0) }
        }
        var code = FieldBytes.absent
        if let attribute = reader.codeAttribute {
            if let value = element.attributeBytes(attribute) { code = append(RecordExtractor.trimmed(value)) }
        } else {
            try captures.push(Capture(depth: depth, target: .referenceCode(foundReferences.count), start: text.count), maxDepth: maxDepth)
            textInterest.isActive = true
        }
        foundReferences.append(ReferenceBytes(catalog: catalog, code: code))
    }

    /// Copies bytes into the attribute buffer: where they are now.
    private func append(_ bytes: UnsafeBufferPointer<UInt8>) -> FieldBytes {
        let start = attributes.count
        attributes.append(bytes)
        return FieldBytes(start: start, count: attributes.count - start, source: .attributes)
    }

    /// Out of line: a profile without joins never comes here, and its hot path stays small.
    @inline(never)
    private func finish(part: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        found(part: part, FieldBytes(start: bytes.baseAddress.map { $0 - text.base } ?? 0, count: bytes.count, source: .text))
        stopCapturingIfDone()
    }

    private func found(part index: Int, _ bytes: FieldBytes) {
        guard bytes.count > 0 else { return }
        foundParts.append(FoundPart(slot: joinParts[index].slot, order: joinParts[index].order, bytes: bytes))
    }

    /// Builds each joined field from its parts, in path order, each path's
    /// matches in document order, with the separator between them.
    private func joinFields() {
        joined.count = 0
        for (slot, separator, paths) in joinSeparators {
            let start = joined.count
            // A handful of parts: a pass per path keeps them in path order, each path's in document order, with no sort.
            for order in 0..<paths {
                for part in foundParts where part.slot == slot && part.order == order {
                    if joined.count > start { separator.withUnsafeBufferPointer { joined.append($0) } }
                    let base = part.bytes.source == .attributes ? attributes.base : text.base
                    joined.append(UnsafeBufferPointer(start: base + part.bytes.start, count: part.bytes.count))
                }
            }
            if joined.count > start { fields[slot] = FieldBytes(start: start, count: joined.count - start, source: .joined) }
        }
        foundParts.removeAll(keepingCapacity: true)
    }

    private func emitRecord() throws {
        // The response is an error (TBO's StatusCode before the payload): what
        // follows is no list, and a streaming reader must not print it.
        guard errorValue == nil else { return }
        recordCount += 1
        if hasAliases {
            for (slot, source) in aliases { fields[slot] = fields[source] }
        }
        if hasJoins { joinFields() }
        if hasReferences, !foundReferences.isEmpty {
            try foundReferences.withUnsafeBufferPointer { try emit(references: $0) }
            foundReferences.removeAll(keepingCapacity: true)
        } else {
            try emit(references: UnsafeBufferPointer(start: nil, count: 0))
        }
        fields.update(repeating: .absent, count: RecordExtractor.slotCount)
        claimed = 0
        attributes.count = 0
        if captures.count == 0 { text.count = 0 }
    }

    @inline(__always) // once per record: no call frame
    private func emit(references: UnsafeBufferPointer<ReferenceBytes>) throws {
        let record = RecordFields(ranges: fields, text: text.base, attributes: attributes.base, joined: joined.base, references: references)
        if let cursorField {
            let cursor = record[cursorField]
            lastRecordHasCursor = cursor != nil
            lastRecordCursor.count = 0
            if let cursor { lastRecordCursor.append(cursor) }
        }
        try onRecord(record, recordCount)
    }

    @inline(__always) // once per field of every record: no call frame
    private func finish(_ capture: Capture) throws {
        let bytes = RecordExtractor.trimmed(text.bytes(from: capture.start))
        switch capture.target {
        case .field(let slot):
            fields[slot] = FieldBytes(start: bytes.baseAddress.map { $0 - text.base } ?? 0, count: bytes.count, source: .text)
            stopCapturingIfDone()
        case .joinPart(let part):
            finish(part: part, bytes)
        case .referenceCode(let index):
            foundReferences[index].code = FieldBytes(start: bytes.baseAddress.map { $0 - text.base } ?? 0, count: bytes.count, source: .text)
            stopCapturingIfDone()
        case .document(let index):
            let value = String(decoding: bytes, as: UTF8.self)
            stopCapturingIfDone()
            try found(value, matcher: index)
        }
    }

    /// With no capture open, the reader stops delivering text; outside a
    /// record, nothing in the text buffer is wanted any more.
    private func stopCapturingIfDone() {
        guard captures.count == 0 else { return }
        textInterest.isActive = false
        if recordDepth == nil { text.count = 0 }
    }

    /// The bytes without surrounding XML white space.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard var first = bytes.baseAddress else { return bytes }
        var end = first + bytes.count
        while first < end, isSpace(first.pointee) { first += 1 }
        while end > first, isSpace((end - 1).pointee) { end -= 1 }
        return UnsafeBufferPointer(start: first, count: end - first)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    // MARK: Document paths

    /// Pushes how many steps of matcher `index` this element completes, given
    /// its parent's count, and takes the value when the whole path matches.
    private func advance(matcher index: Int, parent: Int, into element: XMLStartElement) throws {
        let steps = matchers[index].steps
        var matched = 0
        // The error's path is followed to the end, to count every error.
        if !matchers[index].isDone || matchers[index].role == .error {
            if parent < steps.count, element.localName == matcherSteps[steps.lowerBound + parent] {
                matched = parent + 1
            } else if element.localName == matcherSteps[steps.lowerBound] {
                matched = 1
            }
        }
        try matcherProgress.push(matched, maxDepth: maxDepth)
        if matched == steps.count { try self.matched(matcher: index, element) }
    }

    /// Matcher `index`'s whole path matches `element`: take its attribute
    /// now, or its text once it ends.
    private func matched(matcher index: Int, _ element: XMLStartElement) throws {
        if matchers[index].role == .error, matchers[index].isDone {
            if errorValue != nil { errorCount += 1 }
            return
        }
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
        try captures.push(Capture(depth: depth, target: .document(index), start: text.count), maxDepth: maxDepth)
        textInterest.isActive = true
    }

    private func found(_ value: String, matcher index: Int) throws {
        matchers[index].isDone = true
        matchers[index].value = value
        // An error rule with a success value: any other value is the error.
        if matchers[index].role == .error, value.trimmingWhitespace() != errorRule?.unless {
            errorValue = value
            errorCount = 1
        }
    }
}
