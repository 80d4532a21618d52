/// The guessed mapping of a response onto records: the repeating element,
/// its fields, where the list's paging token or flag is, and how the
/// response reports errors. Each guess comes with its reason.
struct RecordGuess {
    var record: String
    /// Where the record is, from the body's root, for the notes.
    var location: String
    var fields: [(field: String, path: String, reason: String)] = []
    var addressJoin: [String]?
    var score = 0

    /// The best record of a response's shape, or nil when nothing repeats that has a code.
    static func best(in body: ElementShape) -> RecordGuess? {
        var candidates: [RecordGuess] = []
        func walk(_ shape: ElementShape, path: [String]) {
            let here = path + [shape.name]
            if shape.repeats || path.isEmpty, var guess = fields(of: shape) {
                guess.location = here.joined(separator: "/")
                guess.score += NameGuesses.isHotelLike(shape.name) ? 3 : 0
                guess.score += shape.repeats ? 2 : 0
                candidates.append(guess)
            }
            for child in shape.children { walk(child, path: here) }
        }
        walk(body, path: [])
        // The highest score; among equals, the shallowest (the record, not a part of it).
        return candidates.enumerated().max { lhs, rhs in
            lhs.element.score != rhs.element.score ? lhs.element.score < rhs.element.score
                : lhs.element.location.count > rhs.element.location.count
        }?.element
    }

    /// A code is also any identifier-like name (`customerId`, `PropertyKey`), after the known names.
    private static func fallbackRank(_ field: String, _ folded: String) -> Int? {
        guard field == "code", ["id", "code", "key"].contains(where: folded.hasSuffix) else { return nil }
        return NameGuesses.fieldNames.count + 100
    }

    /// The fields found under a record candidate; nil without a code.
    private static func fields(of record: ElementShape) -> RecordGuess? {
        // Every value under the record, to three levels, not inside a repeating child (a list of its own).
        var values: [(path: [String], name: String, isAttribute: Bool, inImage: Bool, shape: ElementShape?)] = []
        func collect(_ shape: ElementShape, path: [String], inImage: Bool, depth: Int) {
            for attribute in shape.attributes {
                values.append((path, attribute.name, true, inImage, nil))
            }
            guard depth < 3 else { return }
            for child in shape.children where !child.repeats || child.type != nil {
                let childPath = path + [child.name]
                values.append((childPath, child.name, false, inImage || NameGuesses.isImageContext(child.name), child))
                if !child.repeats { collect(child, path: childPath, inImage: inImage || NameGuesses.isImageContext(child.name), depth: depth + 1) }
            }
        }
        collect(record, path: [], inImage: NameGuesses.isImageContext(record.name), depth: 0)
        var guess = RecordGuess(record: record.name, location: "")
        var used: Set<String> = []
        for (field, names) in NameGuesses.fieldNames {
            var best: (known: Int, owner: Int, rank: Int, depth: Int, path: String, name: String, shape: ElementShape?)?
            for value in values {
                let folded = NameGuesses.fold(value.name)
                guard let rank = names.firstIndex(of: folded) ?? fallbackRank(field, folded) else { continue }
                // A bare `url` is a picture only under an image-like element.
                if field == "logoURL", ["url", "uri"].contains(folded), !value.inImage { continue }
                // A picture under something that is neither the hotel nor an image is another thing's (a discount's, a room's).
                let ancestors = value.isAttribute ? value.path : Array(value.path.dropLast())
                if field == "logoURL", !ancestors.isEmpty,
                   !ancestors.contains(where: { NameGuesses.isHotelLike($0) || NameGuesses.isImageContext($0) }) { continue }
                // A value with children is not a code, a name or a coordinate; an address may be one (its parts are joined).
                if !value.isAttribute, let shape = value.shape, !shape.children.isEmpty, field != "address" { continue }
                let path = value.isAttribute ? (value.path + ["@" + value.name]).joined(separator: "/") : value.path.joined(separator: "/")
                guard !used.contains(path) else { continue }
                let depth = value.path.count
                // A known name beats an identifier-like one wherever it sits (HotelCode under a child before MarketCode).
                let known = rank < NameGuesses.fieldNames.count + 100 ? 0 : 1
                // Then a code or name of the hotel beats another thing's, however shallow (HotelBeds' Currency/@code
                // before HotelInfo/Code).
                let owner = NameGuesses.owner(of: ancestors)
                if best.map({ (known, owner, depth, rank) < ($0.known, $0.owner, $0.depth, $0.rank) }) ?? true {
                    best = (known, owner, rank, depth, path, value.name, value.shape)
                }
            }
            guard let best else { continue }
            if field == "address", let shape = best.shape, !shape.children.isEmpty {
                let parts = NameGuesses.addressParts.flatMap { part in
                    shape.children.filter { NameGuesses.fold($0.name) == part }.map { best.path + "/" + $0.name }
                }
                guard !parts.isEmpty else { continue }
                guess.addressJoin = parts
                guess.fields.append((field, parts.joined(separator: ", "), "the parts of <\(best.name)>, joined"))
            } else {
                guess.fields.append((field, best.path, "named “\(best.name)”"))
            }
            used.insert(best.path)
        }
        guard guess.fields.contains(where: { $0.field == "code" }) else { return nil }
        guess.score = guess.fields.count * 2
        return guess
    }
}

/// Values in a response outside its records: paging tokens, flags, end markers, errors.
struct ResponseMarkers {
    /// `//Parent/@Name` or `//Name` of each value, with its folded name.
    var values: [(path: String, folded: String)] = []

    init(body: ElementShape, skippingRecord record: String) {
        func walk(_ shape: ElementShape, parent: String?) {
            guard shape.name != record else { return }
            for attribute in shape.attributes {
                values.append(("//\(shape.name)/@\(attribute.name)", NameGuesses.fold(attribute.name)))
            }
            if shape.children.isEmpty || shape.type != nil {
                values.append(("//\(shape.name)", NameGuesses.fold(shape.name)))
            }
            for child in shape.children { walk(child, parent: shape.name) }
        }
        walk(body, parent: nil)
    }

    func first(in names: some Collection<String>) -> String? {
        values.first { names.contains($0.folded) }?.path
    }

    /// `lastAddTime` for the field `addtime`: the list's final cursor.
    func endMarker(for field: String) -> String? {
        let wanted = "last" + NameGuesses.fold(field)
        return values.first { $0.folded == wanted }?.path
    }

    /// OpenTravel's `Errors/Error/@ShortText`, the one error convention a schema names reliably.
    static func errorPath(in body: ElementShape) -> String? {
        guard let errors = body.children.first(where: { $0.name == "Errors" }),
              let error = errors.children.first(where: { $0.name == "Error" }) else { return nil }
        return error.attributes.contains { $0.name == "ShortText" } ? "//Errors/Error/@ShortText" : "//Errors/Error"
    }
}
