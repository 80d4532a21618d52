import SOAP

/// A stack of plain values in memory allocated once, for the parse's hot
/// path: no uniqueness checks, no retains. Its owner sizes it from the
/// reader's depth limit and deallocates it.
struct FixedStack<Element: BitwiseCopyable> {
    private let base: UnsafeMutablePointer<Element>
    private let capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    /// A stack holding these elements, with room for `capacity` in all.
    init(_ elements: [Element], capacity: Int? = nil) {
        self.init(capacity: max(capacity ?? elements.count, elements.count))
        base.initialize(from: elements, count: elements.count)
        count = elements.count
    }

    func deallocate() { base.deallocate() }

    var top: Element { base[count - 1] }

    subscript(_ index: Int) -> Element { base[index] }

    /// Pushes `element`; a full stack means the document is deeper than
    /// the reader allows, which its own check reports first.
    mutating func push(_ element: Element, maxDepth: Int) throws {
        guard count < capacity else {
            throw XMLReaderError.limitExceeded(.depth(maxDepth), at: XMLPosition(line: 0, column: 0))
        }
        (base + count).initialize(to: element)
        count += 1
    }

    mutating func pop() -> Element {
        count -= 1
        return base[count]
    }

    mutating func pop(_ elements: Int) {
        count -= elements
    }
}
