import SOAP

/// Writes a request's XML skeleton from an element's shape: required
/// elements and attributes with well-chosen values, optional ones only when
/// they hold a placeholder, and a note for every choice made.
///
/// Each placeholder goes to one place: of the values whose names suggest it,
/// the best-named, then the shallowest. A real OpenTravel request has a
/// dozen city-like values (a hotel's city, a customer's address, a phone's
/// area code); the search's city is one of them.
struct BodyWriter {
    /// Where `{env:…}` names start: the service's name, upper case.
    let credentialPrefix: String
    /// Credentials are guessed in SOAP headers always, in a body when asked.
    let guessesCredentials: Bool
    private(set) var notes: [String] = []
    private(set) var placeholders: Set<String> = []
    private var prefixes: [String: String] = [:]
    /// The one path (`A/B/@c` or `A/B/c`) chosen for each placeholder.
    private var sites: [String: String] = [:]

    init(credentialPrefix: String, guessesCredentials: Bool) {
        self.credentialPrefix = credentialPrefix
        self.guessesCredentials = guessesCredentials
    }

    /// The element and what it holds, as XML; the root declares its namespace.
    mutating func write(_ shape: ElementShape) -> String {
        prefixes = [:]
        sites = Self.sites(in: shape)
        return element(shape, path: shape.name, declared: [:])
    }

    /// For each placeholder, the path of the value that gets it.
    private static func sites(in root: ElementShape) -> [String: String] {
        var best: [String: (rank: Int, depth: Int, path: String)] = [:]
        func consider(_ name: String, _ type: String?, path: String, depth: Int) {
            guard let guess = NameGuesses.placeholder(for: name, type: type) else { return }
            let candidate = (guess.rank, depth, path)
            if let current = best[guess.placeholder], (current.rank, current.depth) <= (candidate.0, candidate.1) { return }
            best[guess.placeholder] = candidate
        }
        func walk(_ shape: ElementShape, path: String, depth: Int) {
            for attribute in shape.attributes { consider(attribute.name, attribute.type, path: "\(path)/@\(attribute.name)", depth: depth) }
            for child in shape.children {
                let childPath = "\(path)/\(child.name)"
                if child.children.isEmpty && child.attributes.isEmpty {
                    consider(child.name, child.type, path: childPath, depth: depth + 1)
                } else {
                    walk(child, path: childPath, depth: depth + 1)
                }
            }
        }
        walk(root, path: root.name, depth: 0)
        return best.mapValues(\.path)
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
            if let value = value(
                name: attribute.name, type: attribute.type, enumeration: attribute.enumeration,
                required: attribute.isRequired, path: "\(path)/@\(attribute.name)")
            {
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
                if child.isOpen && child.children.isEmpty && child.attributes.isEmpty {
                    if child.minOccurs > 0 {
                        notes.append(
                            "\(childPath): the schema says nothing of its content (anyType, or Axis's Element); fill it from the vendor's documentation"
                        )
                        content += "<\(qualified(child))></\(qualified(child))>"
                        continue
                    }
                } else if child.children.isEmpty && child.attributes.isEmpty {
                    if let value = value(
                        name: child.name, type: child.type, enumeration: child.enumeration,
                        required: child.minOccurs > 0, path: childPath)
                    {
                        content += "<\(qualified(child))>\(value)</\(qualified(child))>"
                        continue
                    }
                } else if child.minOccurs > 0 || hasGuess(child, path: childPath) {
                    if child.minOccurs == 0 { notes.append("\(childPath): optional, written because it holds a guessed placeholder") }
                    content += element(child, path: childPath, declared: declared)
                    continue
                }
                omitted.append(child.name)
            }
        }
        if !omitted.isEmpty {
            notes.append(
                "\(path): optional, left out: " + omitted.prefix(24).joined(separator: ", ")
                    + (omitted.count > 24 ? " and \(omitted.count - 24) more" : ""))
        }
        return "<\(tag)\(declarations)\(attributes)>\(content)</\(tag)>"
    }

    private func qualified(_ shape: ElementShape) -> String {
        shape.namespace.isEmpty ? shape.name : "\(prefixes[shape.namespace] ?? "n1"):\(shape.name)"
    }

    /// For each choice among `children`, the branch to write: the one that
    /// holds a guessed placeholder; else, when one branch is all optional,
    /// that one (nothing is written); else the first. Noted with the others.
    private mutating func chosenBranches(_ children: [ElementShape], path: String) -> [Int: Int] {
        var chosen: [Int: Int] = [:]
        let alternatives = children.compactMap { child in child.choice.map { (choice: $0, member: child) } }
        let groups = Dictionary(grouping: alternatives, by: \.choice.group)
        for (group, members) in groups.sorted(by: { $0.key < $1.key }) {
            let branches = Dictionary(grouping: members, by: \.choice.branch)
            let names = { (branch: Int) in (branches[branch] ?? []).map(\.member.name).joined(separator: ", ") }
            let others = { (branch: Int) in branches.keys.sorted().filter { $0 != branch }.map(names).joined(separator: "; ") }
            if let guess = members.first(where: { hasGuess($0.member, path: "\(path)/\($0.member.name)") }) {
                chosen[group] = guess.choice.branch
                if branches.count > 1 {
                    notes.append(
                        "\(path): a choice; wrote <\(guess.member.name)> (it holds a guessed placeholder), the others are \(others(guess.choice.branch))"
                    )
                }
            } else if let optional = branches.keys.sorted().first(where: { branches[$0]?.allSatisfy { $0.member.minOccurs == 0 } == true })
            {
                chosen[group] = optional
                if branches.count > 1, members.contains(where: { $0.member.minOccurs > 0 }) {
                    notes.append(
                        "\(path): a choice; wrote none of it, since \(names(optional)) may all be left out; the others are \(others(optional))"
                    )
                }
            } else if let first = branches.keys.min() {
                chosen[group] = first
                if branches.count > 1 {
                    notes.append("\(path): a choice; wrote \(names(first)) (the first), the others are \(others(first))")
                }
            }
        }
        return chosen
    }

    /// Whether the element at `path` is, or holds, a placeholder's site or a credential.
    private func hasGuess(_ shape: ElementShape, path: String) -> Bool {
        if guessesCredentials, NameGuesses.credential(for: shape.name) != nil, shape.children.isEmpty { return true }
        return sites.values.contains { $0 == path || $0.hasPrefix(path + "/") }
    }

    /// A value's text: a placeholder its name suggests, or, when it is
    /// required, a value of its type; nil leaves an optional one out.
    private mutating func value(name: String, type: String?, enumeration: [String], required: Bool, path: String) -> String? {
        if let guess = NameGuesses.placeholder(for: name, type: type) {
            if sites[guess.placeholder] == path {
                placeholders.insert(guess.placeholder)
                notes.append("\(path) = \(guess.placeholder): \(guess.reason)")
                return guess.placeholder
            }
            if required, let site = sites[guess.placeholder] {
                notes.append("\(path): its name suggests \(guess.placeholder) too, which went to \(site)")
            }
        }
        if guessesCredentials, let suffix = NameGuesses.credential(for: name) {
            let variable = "{env:\(credentialPrefix)_\(suffix)}"
            notes.append("\(path) = \(variable): a credential; export \(credentialPrefix)_\(suffix) or put it in a --credentials file")
            return variable
        }
        guard required else { return nil }
        if let first = enumeration.first {
            notes.append(
                "\(path) = \(first): required, one of " + enumeration.prefix(12).joined(separator: ", ")
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
