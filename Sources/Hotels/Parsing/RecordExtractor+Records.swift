import SOAP

// A record's fields: what a trie node takes from an element, the text the
// reader collects for it, joined fields, references and ancestors' values,
// and the record handed on when it ends.
extension RecordExtractor {
    /// Takes what a trie node wants from this element: attributes now, text
    /// once the element ends. The first match of a field wins.
    @inline(__always)  // called for most elements of a record: no call frame
    func visit(node: Int, _ element: XMLStartElement) throws {
        let wanted = trie.nodes[node]
        if !wanted.attributes.isEmpty { takeAttributes(wanted.attributes, of: element) }
        let slot = wanted.textSlot
        if slot >= 0, claimed & (1 << slot) == 0 {
            claimed |= 1 << slot
            try openCapture(.field(slot))
        }
        if wanted.referenceRule >= 0 { try takeReference(wanted.referenceRule, element) }
        if wanted.joinPart >= 0 {
            // Every match of a joined part is taken, not just the first.
            try openCapture(.joinPart(wanted.joinPart))
        }
    }

    /// Copies the attribute fields a trie node names out of the start tag.
    func takeAttributes(_ wanted: Range<Int>, of element: XMLStartElement) {
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
    func takeReference(_ rule: Int, _ element: XMLStartElement) throws {
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
            try openCapture(.referenceCode(foundReferences.count))
        }
        foundReferences.append(ReferenceBytes(catalog: catalog, code: code))
    }

    /// Copies bytes into the attribute buffer: where they are now.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> FieldBytes {
        let start = attributes.count
        attributes.append(bytes)
        return FieldBytes(start: start, count: attributes.count - start, source: .attributes)
    }

    /// Out of line: a profile without joins never comes here, and its hot path stays small.
    @inline(never)
    func finish(part: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        found(part: part, inText(bytes))
        stopCapturingIfDone()
    }

    func found(part index: Int, _ bytes: FieldBytes) {
        guard bytes.count > 0 else { return }
        foundParts.append(FoundPart(slot: joinParts[index].slot, order: joinParts[index].order, bytes: bytes))
    }

    /// Builds each joined field from its parts, in path order, each path's
    /// matches in document order, with the separator between them.
    func joinFields() {
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

    func emitRecord() throws {
        // The response is an error (TBO's StatusCode before the payload): what
        // follows is no list, and a streaming reader must not print it.
        guard errorValue == nil else { return }
        recordCount += 1
        if hasFieldCapture { takeReadFields() }
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
        // A field is absent when its count is 0: the rest of each is never read then.
        // The built-in slots by a constant bound, which the compiler unrolls: a bound read from memory cost 43 instructions a record.
        for slot in 0..<RecordExtractor.builtInSlots { fields[slot].count = 0 }
        for slot in RecordExtractor.builtInSlots..<slotCount { fields[slot].count = 0 }
        fieldCapture.reset()
        attributes.count = 0
        if captures.count == 0 { text.count = 0 }
    }

    @inline(__always)  // once per record: no call frame
    func emit(references: UnsafeBufferPointer<ReferenceBytes>) throws {
        let record = RecordFields(ranges: fields, text: text.base, attributes: attributes.base, joined: joined.base, references: references)
        if let cursorField {
            let cursor = record[cursorField]
            lastRecordHasCursor = cursor != nil
            lastRecordCursor.count = 0
            if let cursor { lastRecordCursor.append(cursor) }
        }
        try onRecord(record, recordCount)
    }

    /// Where bytes of the text buffer are.
    @inline(__always)
    func inText(_ bytes: UnsafeBufferPointer<UInt8>) -> FieldBytes {
        FieldBytes(start: bytes.baseAddress.map { $0 - text.base } ?? 0, count: bytes.count, source: .text)
    }

    /// The fields the reader read itself, trimmed, into their slots.
    @inline(__always)  // once per record: no call frame
    func takeReadFields() {
        var read = fieldCapture.read
        while read != 0 {
            let slot = read.trailingZeroBitCount
            let range = fieldCapture.range(of: slot)
            fields[slot] = inText(RecordExtractor.trimmed(UnsafeBufferPointer(start: text.base + range.lowerBound, count: range.count)))
            read &= read - 1
        }
    }

    @inline(__always)  // once per field of every record: no call frame
    func finish(_ capture: Capture) throws {
        let bytes = RecordExtractor.trimmed(text.bytes(from: capture.start))
        switch capture.target {
        case .field(let slot):
            fields[slot] = inText(bytes)
            stopCapturingIfDone()
        case .joinPart(let part):
            finish(part: part, bytes)
        case .referenceCode(let index):
            foundReferences[index].code = inText(bytes)
            stopCapturingIfDone()
        case .document(let index):
            let value = String(decoding: bytes, as: UTF8.self)
            stopCapturingIfDone()
            try found(value, matcher: index)
        }
    }

    /// Starts taking the open element's text. The reader appends it to the
    /// text buffer itself, with no call here per text node.
    @inline(__always)  // once per field of every record: no call frame
    func openCapture(_ target: CaptureTarget) throws {
        if captures.count == 0 { textInterest.collect(from: text.count, atMost: maxCapture) }
        try captures.push(Capture(depth: depth, target: target, start: text.count), maxDepth: maxDepth)
    }

    /// With no capture open, the reader stops delivering text; outside a
    /// record, nothing in the text buffer is wanted any more.
    func stopCapturingIfDone() {
        guard captures.count == 0 else { return }
        textInterest.isActive = false
        if recordDepth == nil { text.count = 0 }
    }

    /// The bytes without surrounding XML white space.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard var first = bytes.baseAddress else { return bytes }
        var end = first + bytes.count
        while first < end, isSpace(first.pointee) { first += 1 }
        while end > first, isSpace((end - 1).pointee) { end -= 1 }
        return UnsafeBufferPointer(start: first, count: end - first)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Remembers an element that encloses records and holds an attribute some ancestor field wants.
    func noteAncestor(_ element: XMLStartElement) {
        // Trimmed once, here: every record below copies the bytes.
        let values = ancestorFields.map { field in element.attributeBytes(field.attribute).map { Array(RecordExtractor.trimmed($0)) } }
        if values.contains(where: { $0 != nil }) { ancestorFrames.append((depth, values)) }
    }

    /// Fills the ancestor fields of a record that starts now: for each, the
    /// nearest enclosing element, from its level up, that has the attribute.
    func takeAncestors() {
        guard let recordDepth else { return }
        for (index, field) in ancestorFields.enumerated() {
            var frame = ancestorFrames.count - 1
            while frame >= 0, ancestorFrames[frame].depth > recordDepth - field.levels || ancestorFrames[frame].values[index] == nil {
                frame -= 1
            }
            guard frame >= 0, let value = ancestorFrames[frame].values[index] else { continue }
            let start = attributes.count
            value.withUnsafeBufferPointer { attributes.append($0) }
            fields[field.slot] = FieldBytes(start: start, count: attributes.count - start, source: .attributes)
            claimed |= 1 << field.slot
        }
    }
}
