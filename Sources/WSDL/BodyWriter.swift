import SOAP

/// Writes a request's XML skeleton from an element's shape: required
/// elements and attributes with well-chosen values, optional ones only when
/// their name suggests a placeholder, and a note for every choice made.
struct BodyWriter {
    /// Where `{env:…}` names start: the service's name, upper case.
    let credentialPrefix: String
    /// Credentials are guessed in SOAP headers always, in a body when asked.
    let guessesCredentials: Bool
    private(set) var notes: [String] = []
    private(set) var placeholders: Set<String> = []
    private var prefixes: [String: String] = [:]

    init(credentialPrefix: String, guessesCredentials: Bool) {
        self.credentialPrefix = credentialPrefix
        self.guessesCredentials = guessesCredentials
    }

    /// The element and what it holds, as XML; the root declares its namespace.
    mutating func write(_ shape: ElementShape) -> String {
        prefixes = [:]
        return element(shape, path: shape.name, declared: [:])
    }

    private mutating func element(_ shape: ElementShape, path: String, declared: [String: String]) -> String {
        var declared = declared
        var tag = shape.name
        var declarations = ""
        if !shape.namespace.isEmpty {
            let prefix = prefixes[shape.namespace] ?? "n\(prefixes.count + 1)"
            prefixes[shape.namespace] = prefix
            tag = "\(prefix):\(shape.name)"
            if declared[prefix] != shape.namespace {
                declarations = " xmlns:\(prefix)=\"\(XMLEscaping.escape(shape.namespace))\""
                declared[prefix] = shape.namespace
            }
        }
        var attributes = ""
        var omittedAttributes: [String] = []
        for attribute in shape.attributes {
            if let value = value(name: attribute.name, type: attribute.type, enumeration: attribute.enumeration,
                                 required: attribute.isRequired, path: "\(path)/@\(attribute.name)") {
                attributes += " \(attribute.name)=\"\(value)\""
            } else {
                omittedAttributes.append("@" + attribute.name)
            }
        }
        var content = ""
        var omitted: [String] = omittedAttributes
        if shape.children.isEmpty {
            if shape.isOpen {
                notes.append("\(path): the schema says nothing of its content (anyType or xs:any); fill it from the vendor's documentation")
            }
        } else {
            let chosen = chosenBranches(shape.children, path: path)
            for child in shape.children {
                let childPath = "\(path)/\(child.name)"
                if let choice = child.choice, chosen[choice.group] != choice.branch { continue }
                if child.children.isEmpty && child.attributes.isEmpty {
                    if let value = value(name: child.name, type: child.type, enumeration: child.enumeration,
                                         required: child.minOccurs > 0, path: childPath) {
                        content += "<\(qualified(child))>\(value)</\(qualified(child))>"
                        continue
                    }
                } else if child.minOccurs > 0 || hasGuess(child) {
                    if child.minOccurs == 0 { notes.append("\(childPath): optional, written because it holds a guessed placeholder") }
                    content += element(child, path: childPath, declared: declared)
                    continue
                }
                omitted.append(child.name)
            }
        }
        if !omitted.isEmpty {
            notes.append("\(path): optional, left out: " + omitted.prefix(24).joined(separator: ", ")
                + (omitted.count > 24 ? " and \(omitted.count - 24) more" : ""))
        }
        return "<\(tag)\(declarations)\(attributes)>\(content)</\(tag)>"
    }

    private func qualified(_ shape: ElementShape) -> String {
        shape.namespace.isEmpty ? shape.name : "\(prefixes[shape.namespace] ?? "n1"):\(shape.name)"
    }

    /// For each choice among `children`, the branch to write: the one that
    /// holds a guessed placeholder, else the first, noted with the others.
    private mutating func chosenBranches(_ children: [ElementShape], path: String) -> [Int: Int] {
        var chosen: [Int: Int] = [:]
        let groups = Dictionary(grouping: children.filter { $0.choice != nil }, by: { $0.choice!.group })
        for (group, members) in groups.sorted(by: { $0.key < $1.key }) {
            let withGuess = members.first { hasGuess($0) }
            guard let pick = withGuess ?? (members.contains { $0.minOccurs > 0 } ? members.first : nil), let branch = pick.choice?.branch else { continue }
            chosen[group] = branch
            let others = members.filter { $0.choice?.branch != branch }.map(\.name)
            if !others.isEmpty {
                notes.append("\(path): a choice; wrote <\(pick.name)>" + (withGuess != nil ? " (it holds a guessed placeholder)" : " (the first)")
                    + ", the others are " + others.joined(separator: ", "))
            }
        }
        return chosen
    }

    private func hasGuess(_ shape: ElementShape) -> Bool {
        if NameGuesses.placeholder(for: shape.name, type: shape.type) != nil && shape.children.isEmpty { return true }
        if guessesCredentials, NameGuesses.credential(for: shape.name) != nil, shape.children.isEmpty { return true }
        if shape.attributes.contains(where: { NameGuesses.placeholder(for: $0.name, type: $0.type) != nil }) { return true }
        return shape.children.contains(where: hasGuess)
    }

    /// A value's text: a placeholder its name suggests, or, when it is
    /// required, a value of its type; nil leaves an optional one out.
    private mutating func value(name: String, type: String?, enumeration: [String], required: Bool, path: String) -> String? {
        if let (placeholder, reason) = NameGuesses.placeholder(for: name, type: type) {
            placeholders.insert(placeholder)
            notes.append("\(path) = \(placeholder): \(reason)")
            return placeholder
        }
        if guessesCredentials, let suffix = NameGuesses.credential(for: name) {
            let variable = "{env:\(credentialPrefix)_\(suffix)}"
            notes.append("\(path) = \(variable): a credential; export \(credentialPrefix)_\(suffix) or put it in a --credentials file")
            return variable
        }
        guard required else { return nil }
        if let first = enumeration.first {
            notes.append("\(path) = \(first): required, one of " + enumeration.prefix(12).joined(separator: ", ")
                + (enumeration.count > 12 ? " and \(enumeration.count - 12) more" : ""))
            return XMLEscaping.escape(first)
        }
        switch type ?? "string" {
        case "boolean":
            notes.append("\(path) = false: required boolean")
            return "false"
        case "int", "integer", "long", "short", "byte", "decimal", "double", "float", "positiveInteger", "unsignedInt",
             "unsignedLong", "unsignedShort", "unsignedByte", "nonNegativeInteger":
            notes.append("\(path) = 1: required number; check what the service expects")
            return "1"
        case "date":
            notes.append("\(path) = {today}: required date")
            return "{today}"
        case "dateTime":
            notes.append("\(path) = {now}: required date and time")
            return "{now}"
        default:
            notes.append("\(path): required \(type ?? "text"), left empty: fill it in")
            return ""
        }
    }
}
