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
/// The record's plain text fields (a child element holding a field's text
/// and nothing else) are read by the reader itself, with no event here
/// (``XMLFieldCapture``); the others follow the trie.
///
/// A record's text and attribute values are copied into two byte buffers
/// and stay there until the record ends: the converter reads them in place.
/// Every stack lives in memory allocated once per parse, sized by the depth
/// limit the reader enforces, so the hot path checks no uniqueness and
/// retains nothing.
///
/// Here: the state, and the events. The record's fields are taken in
/// `RecordExtractor+Records.swift`, the document paths and what else the
/// response says in `RecordExtractor+Document.swift`.
final class RecordExtractor: SOAPBodyHandler {
    struct DocumentMatcher {
        enum Role: Equatable {
            case error, errorMessage, cursor
            case cursorAttribute(String)
            case endMarker, more
        }
        let role: Role
        let path: DocumentPath
        /// This matcher's steps in ``RecordExtractor/matcherSteps``.
        let steps: Range<Int>
        let attribute: XMLName?
        var value: String?
        var isDone = false
    }

    enum CaptureTarget {
        case field(Int)
        case document(Int)
        /// A part of a joined field: its index in ``RecordExtractor/joinParts``.
        case joinPart(Int)
        /// The code of a reference found in this record, whose element's text it is: its index in ``RecordExtractor/foundReferences``.
        case referenceCode(Int)
    }

    /// A reference rule, with its names looked up once.
    struct ReferenceReader {
        let catalogAttribute: XMLName?
        let fixedCatalog: [UInt8]
        let codeAttribute: XMLName?
    }

    /// One path of a joined field: which field, and the path's place in the join.
    struct JoinPart {
        let slot: Int
        let order: Int
    }

    /// A piece of a joined field found in this record.
    struct FoundPart {
        let slot: Int
        let order: Int
        let bytes: FieldBytes
    }

    /// Text being collected for an open element: its bytes start at `start`
    /// in the text buffer, and run to the buffer's end when it closes.
    struct Capture {
        let depth: Int
        let target: CaptureTarget
        let start: Int
    }

    /// Nil for a profile without records: no element is one.
    let recordName: XMLName?
    let trie: FieldTrie
    /// The profile's error path, document cursor and end marker, where it has them.
    @exclusivity(unchecked) var matchers: [DocumentMatcher] = []
    /// Every matcher's steps, end to end.
    let matcherSteps: [XMLName]
    /// Matchers of more than one step, which need their ancestors' progress.
    let chainedMatchers: [Int]
    /// How many steps each chained matcher has matched along the chain of
    /// open elements: a frame of `chainedMatchers.count` entries per element.
    @exclusivity(unchecked) var matcherProgress: FixedStack<Int>
    /// One-step matchers (`//lastAddTime`) match on the element's name alone,
    /// with no progress to keep per element. They are checked for every
    /// element, so they sit in memory of their own, by name identity, where
    /// iterating an array would cost a retain and a release.
    let singleStepMatchers: FixedStack<(matcher: Int, name: UInt)>
    let cursorField: HotelField?
    let errorRule: ErrorRule?
    /// The error's value and how many times its path matched; thrown at the Body's end.
    @exclusivity(unchecked) var errorValue: String?
    @exclusivity(unchecked) var errorCount = 0
    /// Fields mapped to the same path as an earlier field: (its slot, the
    /// earlier one's). The trie fills the earlier one; these copy it.
    let aliases: [(slot: Int, source: Int)]
    /// Every path of every joined field, and the joined fields with their separators, by slot.
    let joinParts: [JoinPart]
    let joinSeparators: [(slot: Int, separator: [UInt8], paths: Int)]
    /// The parts of joined fields found in the open record, and the joined values built from them.
    @exclusivity(unchecked) var foundParts: [FoundPart] = []
    let joined = XMLTextBuffer()
    /// The profile's reference rules, by the index the trie gives.
    let referenceReaders: [ReferenceReader]
    let hasReferences: Bool
    /// The open record's references.
    @exclusivity(unchecked) var foundReferences: [ReferenceBytes] = []
    let maxCapture: Int
    let maxDepth: Int
    /// On only while a capture is open: other text is skipped by the reader.
    let textInterest: XMLTextInterest
    let onRecord: (RecordFields, Int) throws -> Void

    // Parse state. One parse runs on one thread at a time and only the
    // extractor touches its state, so Swift's dynamic exclusivity checks, a
    // fifth of the parse time when enabled, can never fire: they are off.
    @exclusivity(unchecked) var depth = 0
    /// The depth of the open record element, or nil outside records.
    @exclusivity(unchecked) var recordDepth: Int?
    @exclusivity(unchecked) var nodeStack: FixedStack<Int>
    @exclusivity(unchecked) var captures: FixedStack<Capture>
    /// The open record's fields, by slot: ``HotelField/allCases`` order, then the profile's added fields in its table's order.
    let fields: UnsafeMutablePointer<FieldBytes>
    let slotCount: Int
    /// One bit per slot whose path has matched in this record: the first
    /// match wins. Kept with the reader's field capture, which takes the
    /// bits of the fields it reads.
    var claimed: UInt64 {
        get { fieldCapture.taken }
        set { fieldCapture.taken = newValue }
    }
    /// Reads the record's plain text fields (``FieldTrie/plainTextChildren(of:)``)
    /// in the reader, with no call here for their elements.
    let fieldCapture: XMLFieldCapture
    let hasFieldCapture: Bool
    /// The text of the open record's captures, and of every open capture;
    /// nested captures share it, since an element's text includes its
    /// descendants'. Emptied when a record ends with no capture open. The
    /// reader's own buffer: it appends the text while a capture is open.
    let text: XMLTextBuffer
    /// The open record's attribute fields, apart from the text so that an
    /// enclosing capture's text is never interleaved with them.
    let attributes = XMLTextBuffer()
    /// The cursor field of the last record, kept as bytes until asked for.
    let lastRecordCursor = XMLTextBuffer()
    @exclusivity(unchecked) var lastRecordHasCursor = false
    @exclusivity(unchecked) var recordCount = 0
    /// Until the first record: every element's name, how often it came and
    /// how shallow, for saying what the body holds when no record matches.
    @exclusivity(unchecked) var seenBeforeRecords: [UInt: (name: String, count: Int, depth: Int, order: Int)] = [:]
    /// The payload's root (the Body's first child) and its namespace.
    @exclusivity(unchecked) var payload: (name: String, namespace: String?)?
    let recordElement: String?
    let headerReader: HeaderValueReader?
    /// Fields taken from an enclosing element: slot, how many levels up to start, which attribute.
    let ancestorFields: [(slot: Int, levels: Int, attribute: XMLName)]
    /// Whether the profile uses ancestors, joins or shared paths: plain flags,
    /// so a profile without them pays no array access per element or record.
    let hasAncestorFields: Bool
    let hasJoins: Bool
    let hasAliases: Bool
    /// Open elements outside records that hold an attribute some ancestor field wants: depth and values.
    @exclusivity(unchecked) var ancestorFrames: [(depth: Int, values: [[UInt8]?])] = []
    /// The header value that is the cursor, under `header:NAME` cursor paging.
    let headerCursor: String?

    var headerHandler: (any XMLEventHandler)? { headerReader }

    /// The profile's header values this response gave.
    var headerValues: [String: String] { headerReader?.values ?? [:] }

    /// - Parameter onRecord: receives each record's fields and its 1-based ordinal.
    init(
        profile: ServiceProfile, names: XMLNameTable, limits: XMLReaderLimits,
        onRecord: @escaping (RecordFields, Int) throws -> Void
    ) {
        recordName = profile.record.map(names.name)
        recordElement = profile.record
        maxCapture = limits.maxTextLength
        maxDepth = limits.maxDepth
        textInterest = names.textInterest
        textInterest.isActive = false
        text = textInterest.buffer
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
        singleStepMatchers = FixedStack(
            ranges.indices.filter { ranges[$0].count == 1 }.map {
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
        let added = profile.fieldTable.extensions.map(\.jsonKey)
        slotCount = RecordExtractor.builtInSlots + added.count
        fields = UnsafeMutablePointer<FieldBytes>.allocate(capacity: slotCount)
        fields.initialize(repeating: .absent, count: slotCount)
        func addedSlot(_ key: String) -> Int { RecordExtractor.builtInSlots + (added.firstIndex(of: key) ?? 0) }
        // In slot order, so the first field of a shared path is always the one the trie fills.
        let mapped =
            (profile.fields.map { (slot: RecordExtractor.slot($0.key), path: $0.value) }
            + profile.addedFields.map { (slot: addedSlot($0.key), path: $0.value) }).sorted { $0.slot < $1.slot }
        let joins =
            (profile.joins.map { (slot: RecordExtractor.slot($0.key), join: $0.value) }
            + profile.addedJoins.map { (slot: addedSlot($0.key), join: $0.value) }).sorted { $0.slot < $1.slot }
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
        hasJoins = !joins.isEmpty
        var parts: [JoinPart] = []
        var targets = distinct
        for (slot, join) in joins {
            for (order, path) in join.paths.enumerated() {
                targets.append((FieldTrie.joinTarget(parts.count), path))
                parts.append(JoinPart(slot: slot, order: order))
            }
        }
        joinParts = parts
        for (rule, reference) in profile.references.enumerated() {
            targets.append((FieldTrie.referenceTarget(rule), reference.element))
        }
        referenceReaders = profile.references.map { rule in
            switch rule.catalog {
            case .attribute(let name):
                ReferenceReader(catalogAttribute: names.name(name), fixedCatalog: [], codeAttribute: rule.codeAttribute.map(names.name))
            case .fixed(let catalog):
                ReferenceReader(catalogAttribute: nil, fixedCatalog: Array(catalog.utf8), codeAttribute: rule.codeAttribute.map(names.name))
            }
        }
        hasReferences = !profile.references.isEmpty
        joinSeparators = joins.map { ($0.slot, Array($0.join.separator.utf8), $0.join.paths.count) }
        trie = FieldTrie(targets, names: names)
        // Document paths must see every element: a chained one each, a one-step one those of its name.
        let oneStepNames = Set(ranges.filter { $0.count == 1 }.map { steps[$0.lowerBound].identity })
        let plainFields = chainedMatchers.isEmpty ? trie.plainTextChildren(of: 0).filter { !oneStepNames.contains($0.name.identity) } : []
        fieldCapture = names.fields
        fieldCapture.setFields(plainFields)
        hasFieldCapture = !plainFields.isEmpty
    }

    deinit {
        singleStepMatchers.deallocate()
        matcherProgress.deallocate()
        nodeStack.deallocate()
        captures.deallocate()
        fields.deallocate()
    }

    /// How many built-in fields a record has; a profile's added fields take the slots after them.
    static let builtInSlots = HotelField.allCases.count

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
            let child =
                parent < 0 ? -1 : trie.hasTests ? trie.child(of: parent, for: element) : trie.child(of: parent, named: element.localName)
            try nodeStack.push(child, maxDepth: maxDepth)
            if child >= 0 { try visit(node: child, element) }
        } else {
            // Outside records only, so a record's elements pay nothing for these.
            if recordCount == 0 { noteBeforeRecords(element) }
            if element.localName == recordName {
                recordDepth = depth
                if hasFieldCapture { fieldCapture.readChildren(of: element) }
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
            fieldCapture.stopReading()
            try emitRecord()
        }
    }

    /// Text the reader delivers rather than collects: only if some other
    /// handler asked for delivery while a capture is open.
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        guard captures.count > 0 else { return }
        text.append(bytes)
        if text.count - captures[0].start > maxCapture {
            throw XMLReaderError.limitExceeded(.textLength(maxCapture), at: XMLPosition(line: 0, column: 0))
        }
    }
}
