import SOAP

/// A profile's field paths as a trie rooted at the record element, frozen
/// into flat arrays after it is built.
///
/// A child is found through one open-addressing table keyed by (node, name
/// identity), half empty, so an element costs one or two probes whether or
/// not a path goes through it: a record's elements come in no fixed order,
/// and most are ones no path names.
struct FieldTrie {
    struct Node {
        var attributes: Range<Int> = 0..<0
        /// The slot this element's text fills, or -1.
        var textSlot = -1
        /// The joined part this element's text is, or -1.
        var joinPart = -1
        /// The reference rule whose element this is, or -1.
        var referenceRule = -1
    }

    /// Targets from this value on are joined parts, not slots.
    private static let firstJoinTarget = 1 << 16

    /// Targets from this value on are reference rules' elements.
    private static let firstReferenceTarget = 1 << 20

    static func joinTarget(_ part: Int) -> Int { firstJoinTarget + part }

    static func referenceTarget(_ rule: Int) -> Int { firstReferenceTarget + rule }

    /// The joined part a target names, or nil for a field's slot or a reference rule.
    @inline(__always)
    static func joinPart(of target: Int) -> Int? {
        target >= firstJoinTarget && target < firstReferenceTarget ? target - firstJoinTarget : nil
    }

    static func referenceRule(of target: Int) -> Int? { target >= firstReferenceTarget ? target - firstReferenceTarget : nil }

    private struct Edge {
        var parent = -1
        var name: XMLName?
        var child = -1
        /// The attribute test an element must pass to take this edge (an index into ``tests``), or -1.
        var test = -1
    }

    private(set) var nodes: [Node] = []
    private(set) var attributes: [(name: XMLName, slot: Int)] = []
    private let edges: [Edge]
    /// `[@Name='Address']` steps' tests.
    private let tests: [(name: XMLName, value: String)]
    /// Whether any step tests an attribute: without one, an element is looked up by its name alone.
    let hasTests: Bool
    private let shift: Int

    init(_ paths: [(slot: Int, path: FieldPath)], names: XMLNameTable) {
        // Built as nested arrays first, one node per path prefix (a step's test is part of it).
        var children: [[(name: XMLName, test: FieldPath.AttributeTest?, node: Int)]] = [[]]
        var attributesByNode: [[(name: XMLName, slot: Int)]] = [[]]
        var textSlots = [-1]
        var joinParts = [-1]
        var referenceRules = [-1]
        for (slot, path) in paths {
            var node = 0
            for (step, test) in zip(path.elements, path.tests) {
                let name = names.name(step)
                if let existing = children[node].first(where: { $0.name == name && $0.test == test }) {
                    node = existing.node
                } else {
                    children.append([])
                    attributesByNode.append([])
                    textSlots.append(-1)
                    joinParts.append(-1)
                    referenceRules.append(-1)
                    children[node].append((name, test, children.count - 1))
                    node = children.count - 1
                }
            }
            if let rule = FieldTrie.referenceRule(of: slot) {
                referenceRules[node] = rule
            } else if let attribute = path.attribute {
                attributesByNode[node].append((names.name(attribute), slot))
            } else if let part = FieldTrie.joinPart(of: slot) {
                joinParts[node] = part
            } else {
                textSlots[node] = slot
            }
        }
        for node in children.indices {
            nodes.append(
                Node(
                    attributes: attributes.count..<(attributes.count + attributesByNode[node].count),
                    textSlot: textSlots[node], joinPart: joinParts[node], referenceRule: referenceRules[node]))
            attributes += attributesByNode[node]
        }
        var bits = 3
        while 1 << bits < 2 * (children.count + 1) { bits += 1 }
        shift = UInt.bitWidth - bits
        var edges = Array(repeating: Edge(), count: 1 << bits)
        var tests: [(name: XMLName, value: String)] = []
        for (parent, list) in children.enumerated() {
            // Tested edges first: a probe meets them before the untested edge of the same name.
            for (name, test, child) in list.filter({ $0.test != nil }) + list.filter({ $0.test == nil }) {
                var index = FieldTrie.hash(parent, name, shift: shift)
                while edges[index].name != nil { index = (index + 1) & (edges.count - 1) }
                edges[index] = Edge(parent: parent, name: name, child: child, test: test.map { _ in tests.count } ?? -1)
                if let test { tests.append((names.name(test.name), test.value)) }
            }
        }
        self.edges = edges
        self.tests = tests
        hasTests = !tests.isEmpty
    }

    /// The children of `node` that are a slot's text and nothing else,
    /// whatever their attributes: no attribute wanted, no test, no join, no
    /// reference, and no path going on below them. A reader can read these
    /// itself (``XMLFieldCapture``).
    func plainTextChildren(of node: Int) -> [(name: XMLName, slot: Int)] {
        let parents = Set(edges.map(\.parent))
        let tested = Set(edges.filter { $0.parent == node && $0.test >= 0 }.compactMap(\.name))
        return edges.compactMap { edge in
            guard edge.parent == node, edge.test < 0, let name = edge.name, !tested.contains(name), !parents.contains(edge.child)
            else { return nil }
            let wanted = nodes[edge.child]
            guard wanted.textSlot >= 0, wanted.attributes.isEmpty, wanted.joinPart < 0, wanted.referenceRule < 0 else { return nil }
            return (name, wanted.textSlot)
        }
    }

    /// Fibonacci hashing of the pair: the multiply spreads the low bits of
    /// the name's address into the high bits kept.
    @inline(__always)  // once per element; out of line it cost parse-count 0.5% more instructions
    private static func hash(_ node: Int, _ name: XMLName, shift: Int) -> Int {
        Int(truncatingIfNeeded: ((name.identity &+ UInt(bitPattern: node)) &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
    }

    /// The child of `node` for an element of this name, or -1: for a trie
    /// without tests.
    @inline(__always)  // once per element of every record: no call frame
    func child(of node: Int, named name: XMLName) -> Int {
        var index = FieldTrie.hash(node, name, shift: shift)
        while true {
            let edge = edges[index]
            guard let edgeName = edge.name else { return -1 }
            if edgeName == name, edge.parent == node { return edge.child }
            index = (index + 1) & (edges.count - 1)
        }
    }

    /// The child of `node` for this element, or -1: the first edge of its
    /// name whose test it passes, else the untested one. Kept apart from
    /// ``child(of:named:)``: passing the whole element cost every parse
    /// 0.6% more instructions, tests or not.
    @inline(never)
    func child(of node: Int, for element: XMLStartElement) -> Int {
        let name = element.localName
        var index = FieldTrie.hash(node, name, shift: shift)
        while true {
            let edge = edges[index]
            guard let edgeName = edge.name else { return -1 }
            if edgeName == name, edge.parent == node,
                edge.test < 0 || element.attribute(tests[edge.test].name) == tests[edge.test].value
            {
                return edge.child
            }
            index = (index + 1) & (edges.count - 1)
        }
    }
}
