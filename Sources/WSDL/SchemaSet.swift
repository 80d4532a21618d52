/// The global declarations of every schema in a WSDL set, by qualified name.
public struct SchemaSet: Sendable {
    /// A global declaration with what its schema says about names.
    struct Declaration: Sendable {
        var node: XMLTreeElement
        var targetNamespace: String
        var qualifiedElements: Bool
        var qualifiedAttributes: Bool
    }

    enum Kind: String, Sendable, CaseIterable {
        case element, complexType, simpleType, group, attributeGroup, attribute
    }

    private var declarations: [Kind: [QualifiedName: Declaration]] = [:]
    /// For schemas whose namespace a lookup gets wrong (a chameleon include
    /// takes its includer's namespace): the declarations by local name alone.
    private var byLocalName: [Kind: [String: [Declaration]]] = [:]

    init(schemas: [XMLTreeElement]) {
        for schema in schemas {
            let target = schema.attributes["targetNamespace"] ?? ""
            let qualifiedElements = schema.attributes["elementFormDefault"] == "qualified"
            let qualifiedAttributes = schema.attributes["attributeFormDefault"] == "qualified"
            for node in Self.topLevel(schema) {
                guard let kind = Kind(rawValue: node.localName), let name = node.attributes["name"] else { continue }
                let declaration = Declaration(
                    node: node, targetNamespace: target, qualifiedElements: qualifiedElements,
                    qualifiedAttributes: qualifiedAttributes)
                let qualified = QualifiedName(namespace: target, name: name)
                // The first declaration wins, as it does in a schema processor reading the set in order.
                if declarations[kind]?[qualified] == nil { declarations[kind, default: [:]][qualified] = declaration }
                byLocalName[kind, default: [:]][name, default: []].append(declaration)
            }
        }
    }

    /// A schema's declarations, with those of `redefine` blocks.
    private static func topLevel(_ schema: XMLTreeElement) -> [XMLTreeElement] {
        schema.children.filter { $0.namespaceURI == Namespaces.xsd }.flatMap { node in
            node.localName == "redefine" ? node.children.filter { $0.namespaceURI == Namespaces.xsd } : [node]
        }
    }

    func find(_ kind: Kind, _ name: QualifiedName) -> Declaration? {
        if let exact = declarations[kind]?[name] { return exact }
        guard let candidates = byLocalName[kind]?[name.name], candidates.count == 1 else { return nil }
        return candidates[0]
    }

    /// Every global element's name, sorted.
    public var elementNames: [QualifiedName] { (declarations[.element] ?? [:]).keys.sorted() }

    /// How many global declarations of each kind the set holds.
    public var counts: [String: Int] {
        Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0.rawValue, declarations[$0]?.count ?? 0) })
    }
}

/// What the schema says an element holds, expanded into a tree: the shape
/// a request body is built from and a response's records are guessed from.
public struct ElementShape: Sendable, Equatable {
    public var name: String
    /// Empty when the element is unqualified (a local element of a schema
    /// without `elementFormDefault="qualified"`).
    public var namespace: String
    public var minOccurs: Int
    /// Nil: unbounded.
    public var maxOccurs: Int?
    public var nillable = false
    /// The built-in simple type of its text (`string`, `int`, `date`), if it holds text.
    public var type: String?
    public var enumeration: [String] = []
    public var attributes: [AttributeShape] = []
    public var children: [ElementShape] = []
    /// Set on the alternatives of a `choice`: which choice, and which branch of it.
    public var choice: Choice?
    public var documentation = ""
    /// The schema says nothing of the content: `anyType` or `xs:any`.
    public var isOpen = false
    /// A recursive type, cut here.
    public var isRecursive = false

    public struct Choice: Sendable, Equatable, Hashable {
        public var group: Int
        public var branch: Int
    }

    public init(name: String, namespace: String, minOccurs: Int = 1, maxOccurs: Int? = 1) {
        self.name = name
        self.namespace = namespace
        self.minOccurs = minOccurs
        self.maxOccurs = maxOccurs
    }

    /// Whether the element may appear more than once.
    public var repeats: Bool { maxOccurs.map { $0 > 1 } ?? true }
    public var isRequired: Bool { minOccurs > 0 && choice == nil }
}

/// One attribute of an ``ElementShape``.
public struct AttributeShape: Sendable, Equatable {
    public var name: String
    public var isRequired: Bool
    public var type: String?
    public var enumeration: [String] = []
}

/// Expands declarations into ``ElementShape`` trees, with caps: recursive
/// types are cut where they recur, and depth and size are bounded, so a
/// hostile or enormous schema gives a partial shape, not a hang.
struct ShapeExpander {
    let schemas: SchemaSet
    var maxDepth = 14
    var maxNodes = 20_000
    private var nodes = 0
    private var choices = 0
    private var typePath: [QualifiedName] = []

    init(schemas: SchemaSet) {
        self.schemas = schemas
    }

    /// The global element `name`, expanded; nil when it is not declared.
    mutating func element(_ name: QualifiedName) -> ElementShape? {
        guard let declaration = schemas.find(.element, name) else { return nil }
        return element(declaration.node, in: declaration, global: true, depth: 0)
    }

    /// An element of a named type (an RPC part, say), expanded.
    mutating func element(named name: String, namespace: String, type: QualifiedName) -> ElementShape {
        var shape = ElementShape(name: name, namespace: namespace)
        fill(&shape, typeName: type, depth: 0)
        return shape
    }

    private mutating func element(_ node: XMLTreeElement, in declaration: SchemaSet.Declaration, global: Bool, depth: Int) -> ElementShape?
    {
        nodes += 1
        var source = node
        var context = declaration
        if let reference = node.qualifiedName("ref") {
            guard let target = schemas.find(.element, reference) else {
                return ElementShape(name: reference.name, namespace: reference.namespace)
            }
            source = target.node
            context = target
        }
        let name = source.attributes["name"] ?? "element"
        // Global and referenced elements are always in their schema's namespace; a local one only when its form says so.
        let qualified =
            global || node.qualifiedName("ref") != nil
            || (source.attributes["form"].map { $0 == "qualified" } ?? context.qualifiedElements)
        var shape = ElementShape(
            name: name, namespace: qualified ? context.targetNamespace : "",
            minOccurs: Int(node.attributes["minOccurs"] ?? "1") ?? 1,
            maxOccurs: Self.maxOccurs(node.attributes["maxOccurs"]))
        shape.nillable = source.attributes["nillable"] == "true"
        shape.documentation = Self.documentation(of: source)
        guard depth < maxDepth, nodes < maxNodes else {
            shape.isRecursive = true
            return shape
        }
        if let type = source.qualifiedName("type") {
            fill(&shape, typeName: type, depth: depth)
        } else if let complex = source.child("complexType", in: Namespaces.xsd) {
            complexContent(complex, in: context, into: &shape, depth: depth)
        } else if let simple = source.child("simpleType", in: Namespaces.xsd) {
            simpleContent(simple, in: context, into: &shape)
        } else {
            shape.isOpen = true
        }
        return shape
    }

    private mutating func fill(_ shape: inout ElementShape, typeName: QualifiedName, depth: Int) {
        if typeName.namespace == Namespaces.xsd {
            if typeName.name == "anyType" { shape.isOpen = true } else { shape.type = typeName.name }
            return
        }
        // Axis's DOM types: any XML at all, as open as anyType.
        if typeName.namespace == Namespaces.apacheSOAP, ["Element", "Document"].contains(typeName.name) {
            shape.isOpen = true
            return
        }
        if typePath.contains(typeName) {
            shape.isRecursive = true
            return
        }
        if let complex = schemas.find(.complexType, typeName) {
            typePath.append(typeName)
            complexContent(complex.node, in: complex, into: &shape, depth: depth)
            typePath.removeLast()
        } else if let simple = schemas.find(.simpleType, typeName) {
            simpleContent(simple.node, in: simple, into: &shape)
        } else {
            // An undeclared type (a missing import the set could not name): its text, as a string.
            shape.type = "string"
        }
    }

    private mutating func complexContent(
        _ complex: XMLTreeElement, in context: SchemaSet.Declaration, into shape: inout ElementShape, depth: Int
    ) {
        for child in complex.children where child.namespaceURI == Namespaces.xsd {
            switch child.localName {
            case "sequence", "all", "choice", "group":
                particles(child, in: context, into: &shape, depth: depth, repeated: false, choice: nil)
            case "attribute", "attributeGroup":
                attributes(child, in: context, into: &shape)
            case "complexContent", "simpleContent":
                guard let derivation = child.children.first(where: { $0.localName == "extension" || $0.localName == "restriction" }) else {
                    continue
                }
                if let base = derivation.qualifiedName("base") {
                    if derivation.localName == "extension" || child.localName == "simpleContent" {
                        fill(&shape, typeName: base, depth: depth)
                    }
                }
                if derivation.localName == "restriction", child.localName == "simpleContent" {
                    shape.enumeration = Self.enumeration(derivation)
                }
                complexContent(derivation, in: context, into: &shape, depth: depth)
            default:
                continue
            }
        }
        if complex.attributes["mixed"] == "true", shape.children.isEmpty { shape.type = shape.type ?? "string" }
    }

    private mutating func particles(
        _ group: XMLTreeElement, in context: SchemaSet.Declaration, into shape: inout ElementShape, depth: Int,
        repeated: Bool, choice: ElementShape.Choice?
    ) {
        guard nodes < maxNodes else { return }
        var node = group
        var context = context
        let groupRepeats = repeated || Self.maxOccurs(group.attributes["maxOccurs"]).map { $0 > 1 } ?? true
        let groupOptional = group.attributes["minOccurs"] == "0"
        if group.localName == "group" {
            guard let reference = group.qualifiedName("ref"), let target = schemas.find(.group, reference),
                let model = target.node.children.first(where: { ["sequence", "choice", "all"].contains($0.localName) })
            else { return }
            node = model
            context = target
        }
        let isChoice = node.localName == "choice"
        if isChoice { choices += 1 }
        let choiceGroup = choices
        for (index, child) in node.children.enumerated() where child.namespaceURI == Namespaces.xsd {
            let branch = isChoice ? ElementShape.Choice(group: choiceGroup, branch: index) : choice
            switch child.localName {
            case "element":
                guard var element = element(child, in: context, global: false, depth: depth + 1) else { continue }
                if groupRepeats { element.maxOccurs = nil }
                if groupOptional { element.minOccurs = 0 }
                element.choice = branch
                shape.children.append(element)
            case "sequence", "choice", "all", "group":
                particles(child, in: context, into: &shape, depth: depth, repeated: groupRepeats, choice: branch)
            case "any":
                shape.isOpen = true
            default:
                continue
            }
        }
    }

    private func attributes(_ node: XMLTreeElement, in context: SchemaSet.Declaration, into shape: inout ElementShape) {
        if node.localName == "attributeGroup" {
            guard let reference = node.qualifiedName("ref"), let group = schemas.find(.attributeGroup, reference) else { return }
            for child in group.node.children where child.localName == "attribute" || child.localName == "attributeGroup" {
                attributes(child, in: group, into: &shape)
            }
            return
        }
        var source = node
        if let reference = node.qualifiedName("ref") {
            guard let target = schemas.find(.attribute, reference) else {
                shape.attributes.append(AttributeShape(name: reference.name, isRequired: node.attributes["use"] == "required"))
                return
            }
            source = target.node
        }
        guard let name = source.attributes["name"], node.attributes["use"] != "prohibited" else { return }
        var attribute = AttributeShape(name: name, isRequired: node.attributes["use"] == "required")
        if let type = source.qualifiedName("type") {
            if type.namespace == Namespaces.xsd {
                attribute.type = type.name
            } else if let simple = schemas.find(.simpleType, type) {
                var scratch = ElementShape(name: name, namespace: "")
                simpleContent(simple.node, in: simple, into: &scratch)
                attribute.type = scratch.type
                attribute.enumeration = scratch.enumeration
            }
        } else if let simple = source.child("simpleType", in: Namespaces.xsd) {
            var scratch = ElementShape(name: name, namespace: "")
            simpleContent(simple, in: context, into: &scratch)
            attribute.type = scratch.type
            attribute.enumeration = scratch.enumeration
        }
        shape.attributes.append(attribute)
    }

    /// A simple type's built-in base and enumeration, through named restrictions.
    private func simpleContent(_ simple: XMLTreeElement, in context: SchemaSet.Declaration, into shape: inout ElementShape, depth: Int = 0)
    {
        guard depth < 16 else { return }
        guard let restriction = simple.child("restriction", in: Namespaces.xsd) else {
            shape.type = "string"  // a list or a union: its text, as written
            return
        }
        if shape.enumeration.isEmpty { shape.enumeration = Self.enumeration(restriction) }
        guard let base = restriction.qualifiedName("base") else {
            shape.type = shape.type ?? "string"
            return
        }
        if base.namespace == Namespaces.xsd {
            shape.type = base.name
        } else if let named = schemas.find(.simpleType, base) {
            simpleContent(named.node, in: named, into: &shape, depth: depth + 1)
        } else {
            shape.type = "string"
        }
    }

    static func enumeration(_ restriction: XMLTreeElement) -> [String] {
        restriction.children(("enumeration"), in: Namespaces.xsd).compactMap { $0.attributes["value"] }
    }

    static func maxOccurs(_ text: String?) -> Int? {
        guard let text else { return 1 }
        return text == "unbounded" ? nil : Int(text) ?? 1
    }

    static func documentation(of node: XMLTreeElement) -> String {
        node.child("annotation", in: Namespaces.xsd)?.children(("documentation"), in: Namespaces.xsd)
            .map(\.text).joined(separator: " ").foldingWhitespace() ?? ""
    }
}
