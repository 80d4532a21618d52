import CLibXML2

/// Has the reader itself read a record's simple fields: the children of one
/// open element whose names a handler lists (``setFields(_:)``, then
/// ``readChildren(of:)``), each the text of a slot. The
/// reader appends such a child's text to ``XMLTextInterest/buffer`` and
/// notes where it lies (``range(of:)``), and calls no handler for its start
/// tag, its text or its end tag: a record's fields cost no call at all.
///
/// A child is read so only if its start tag has no attributes and declares
/// no namespace, while no handler has text delivered to it. One that turns
/// out to hold an element is handed back before that element: its handler
/// gets its start tag, and then its text so far, as if they had just come.
///
/// The first child of a slot's name gives the slot's text; later ones leave
/// it, with their text going wherever it went before. ``taken`` has a bit
/// per slot that has its text, and a handler reading other slots itself
/// sets their bits too; ``read`` has the bits of those read here.
///
/// Set and read on the parse's one thread, like ``XMLTextInterest``.
public final class XMLFieldCapture {
    /// A field being read: its slot, where its text starts, what the text
    /// interest was before it, and its name, to hand it back by.
    struct OpenField {
        var slot: Int
        /// False for a slot already taken: the field's text then goes where other text goes.
        var takes: Bool
        var start: Int
        var modeBefore: XMLTextInterest.Mode
        var localName: XMLName
        // Interned in the parser's dictionary, like every element and
        // namespace name in libxml2's SAX2: valid until the parse ends.
        var prefix: UnsafePointer<xmlChar>?
        var namespace: UnsafePointer<xmlChar>?
    }

    /// The depth of the fields read (their parent's plus one), or `Int.max`.
    @exclusivity(unchecked) @usableFromInline var depth = Int.max
    @exclusivity(unchecked) @usableFromInline var takenSlots: UInt64 = 0
    @exclusivity(unchecked) @usableFromInline var readSlots: UInt64 = 0
    // The two tables are allocated once, at their fixed sizes, and freed in
    // deinit. No index reaches outside them: slots are checked when set and
    // masked when asked for, and table positions are masked to its size.
    /// Each slot's text, as offsets into the text buffer.
    @usableFromInline let ranges = UnsafeMutablePointer<Range<Int>>.allocate(capacity: XMLFieldCapture.slotLimit)
    /// The field being read, if `isOpen`: kept apart from the flag, so that
    /// ending a field is one store.
    @exclusivity(unchecked) var field = OpenField(
        slot: 0, takes: false, start: 0, modeBefore: .off, localName: XMLName(nil), prefix: nil, namespace: nil)
    @exclusivity(unchecked) var isOpen = false
    /// Names by identity and their slots, probed linearly; 0 is an empty
    /// entry. Its size is fixed, at twice the most slots, so that hashing
    /// shifts by a constant.
    private let table = UnsafeMutablePointer<(name: UInt, slot: Int)>.allocate(capacity: XMLFieldCapture.tableSize)
    private static let tableSize = 2 * slotLimit

    /// Slots are 0 up to this, one bit each of ``taken``.
    @inlinable public static var slotLimit: Int { 64 }

    init() {
        ranges.initialize(repeating: 0..<0, count: XMLFieldCapture.slotLimit)
        table.initialize(repeating: (0, -1), count: XMLFieldCapture.tableSize)
    }

    deinit {
        ranges.deallocate()
        table.deallocate()
    }

    /// Sets the fields: children of these names, each read into its slot
    /// (0 up to ``slotLimit``; others are left to the handler).
    public func setFields(_ fields: [(name: XMLName, slot: Int)]) {
        table.update(repeating: (0, -1), count: XMLFieldCapture.tableSize)
        // One name per slot at most, so the table is at most half full.
        var slots = Set<Int>()
        for field in fields where field.name.identity != 0 && (0..<XMLFieldCapture.slotLimit).contains(field.slot) {
            guard slot(for: field.name) < 0, slots.insert(field.slot).inserted else { continue }
            var index = self.index(of: field.name)
            while table[index].name != 0 { index = (index + 1) & (XMLFieldCapture.tableSize - 1) }
            table[index] = (field.name.identity, field.slot)
        }
    }

    /// From now on, reads the fields among `element`'s children.
    @inlinable public func readChildren(of element: XMLStartElement) {
        depth = element.depth + 1
    }

    /// Reads no more fields.
    @inlinable public func stopReading() {
        depth = .max
    }

    /// A bit per slot taken: read here, or by the handler.
    @inlinable public var taken: UInt64 {
        get { takenSlots }
        set { takenSlots = newValue }
    }

    /// A bit per slot read here, of those ``taken``.
    @inlinable public var read: UInt64 { readSlots }

    /// Clears ``taken`` and ``read``, for the next record.
    @inlinable public func reset() {
        takenSlots = 0
        readSlots = 0
    }

    /// Where the text of a slot read here lies in the text buffer, untrimmed;
    /// meaningful while its bit of ``read`` is set. (A slot past the limit
    /// reads another's, never outside the table.)
    @inlinable public func range(of slot: Int) -> Range<Int> {
        ranges[slot & (XMLFieldCapture.slotLimit - 1)]
    }

    private func index(of name: XMLName) -> Int {
        // Fibonacci hashing: the multiply spreads the address's low bits into the top seven kept.
        Int(truncatingIfNeeded: (name.identity &* 0x9E37_79B9_7F4A_7C15) &>> UInt(UInt.bitWidth - 7))
    }

    /// The slot of a field of this name, or -1.
    @inline(__always)
    private func slot(for name: XMLName) -> Int {
        var index = self.index(of: name)
        while true {
            let entry = table[index]
            if entry.name == name.identity { return entry.slot }
            if entry.name == 0 { return -1 }
            index = (index + 1) & (XMLFieldCapture.tableSize - 1)
        }
    }

    /// At a start tag at the fields' depth, with no attributes and no
    /// namespace declarations: reads it as a field, and says so, or leaves
    /// it to the handlers.
    @inline(__always)
    func start(
        _ localName: XMLName, prefix: UnsafePointer<xmlChar>?, namespace: UnsafePointer<xmlChar>?, interest: XMLTextInterest,
        maxLength: Int
    ) -> Bool {
        guard interest.mode != .deliver else { return false }
        let slot = slot(for: localName)
        guard slot >= 0 else { return false }
        let takes = takenSlots & (1 &<< UInt64(slot)) == 0
        let mode = interest.mode
        field = OpenField(
            slot: slot, takes: takes, start: interest.buffer.count, modeBefore: mode, localName: localName, prefix: prefix,
            namespace: namespace)
        isOpen = true
        // Text already collected for an enclosing element keeps its limit, which covers this one's.
        if takes, mode == .off { interest.collect(from: interest.buffer.count, atMost: maxLength) }
        return true
    }

    /// At the end tag of the field being read: ends it.
    @inline(__always)
    func end(interest: XMLTextInterest) {
        isOpen = false
        if field.takes {
            // No handler ran since the field began, so nothing emptied the buffer: its count is at least the start.
            ranges[field.slot] = Range(uncheckedBounds: (field.start, interest.buffer.count))
            let bit: UInt64 = 1 &<< UInt64(field.slot)
            takenSlots |= bit
            readSlots |= bit
        }
        interest.mode = field.modeBefore
    }
}
