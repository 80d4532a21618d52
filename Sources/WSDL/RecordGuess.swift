/// The guessed mapping of a response onto records: the repeating element,
/// its fields, where the list's paging token or flag is, and how the
/// response reports errors. Each guess comes with its reason.
struct RecordGuess {
    var record: String
    /// Where the record is, from the body's root, for the notes.
    var location: String
    var fields: [(field: String, path: String, reason: String)] = []
    /// The street parts an address joins (every match of each), when it is a join.
    var addressJoin: [String]?
    /// The record's catalogue references, for the profile's `references` key.
    var references: [Reference] = []
    var score = 0

    /// A repeated element that gives a catalogue and a code.
    struct Reference: Equatable {
        var path: String
        /// `@Attribute`, or a catalogue's name.
        var catalog: String
        /// `@Attribute`; nil: the element's text.
        var code: String?
        var reason: String
    }

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
            lhs.element.score != rhs.element.score
                ? lhs.element.score < rhs.element.score
                : lhs.element.location.count > rhs.element.location.count
        }?.element
    }

    /// A code is also any identifier-like name (`customerId`, `PropertyKey`), after the known names.
    private static func fallbackRank(_ field: String, _ folded: String) -> Int? {
        guard field == "code", ["id", "code", "key"].contains(where: folded.hasSuffix) else { return nil }
        return NameGuesses.fieldNames.count + 100
    }

    /// One value under a record: an attribute, or an element (which may hold text).
    private struct Value {
        /// The elements from the record to the value (for an attribute, to its element).
        var path: [String]
        var name: String
        var isAttribute: Bool
        var inImage: Bool
        var shape: ElementShape?
        /// Inside an element that repeats and is more than text: a list of its own.
        var inList: Bool
        /// The attributes of the element the value is in (for an element's text, its own).
        var holderAttributes: [String]
    }

    /// The fields found under a record candidate; nil without a code.
    private static func fields(of record: ElementShape) -> RecordGuess? {
        // Every value under the record, to three levels. One inside a repeating child (a list of its own)
        // is marked: only the fields of `firstOfListFields` take the first of a list.
        var values: [Value] = []
        func collect(_ shape: ElementShape, path: [String], inImage: Bool, inList: Bool, depth: Int) {
            let names = shape.attributes.map(\.name)
            for attribute in shape.attributes {
                values.append(
                    Value(
                        path: path, name: attribute.name, isAttribute: true, inImage: inImage, shape: nil, inList: inList,
                        holderAttributes: names))
            }
            guard depth < 3 else { return }
            for child in shape.children {
                let childPath = path + [child.name]
                let image = inImage || NameGuesses.isImageContext(child.name)
                // A repeating element of text is a value like any other; one with content is a list.
                let list = inList || (child.repeats && child.type == nil)
                values.append(
                    Value(
                        path: childPath, name: child.name, isAttribute: false, inImage: image, shape: child, inList: list,
                        holderAttributes: child.attributes.map(\.name)))
                collect(child, path: childPath, inImage: image, inList: inList || child.repeats, depth: depth + 1)
            }
        }
        collect(record, path: [], inImage: NameGuesses.isImageContext(record.name), inList: false, depth: 0)
        var guess = RecordGuess(record: record.name, location: "")
        var used: Set<String> = []
        for (field, names) in NameGuesses.fieldNames {
            let takesLists = NameGuesses.firstOfListFields.contains(field)
            var best: (key: (known: Int, owner: Int, list: Int, depth: Int, rank: Int), value: Value, path: String, reason: String)?
            for value in values {
                if value.inList, !takesLists { continue }
                let folded = NameGuesses.fold(value.name)
                // `CountryName/@Code`, `Country/code`: a value named by its element too.
                let parent = value.isAttribute ? value.path.last : value.path.dropLast().last
                let qualifiedRank = parent.flatMap {
                    names.firstIndex(of: NameGuesses.fold($0) + (value.isAttribute ? "/@" : "/") + folded)
                }
                let plainRank = names.firstIndex(of: folded) ?? fallbackRank(field, folded)
                guard let rank = [plainRank, qualifiedRank].compactMap({ $0 }).min() else { continue }
                let qualified = plainRank.map { $0 > rank } ?? true
                // A bare `url` is a picture only under an image-like element.
                if field == "logoURL", ["url", "uri"].contains(folded), !value.inImage { continue }
                // A picture under something that is neither the hotel nor an image is another thing's (a discount's, a room's).
                var ancestors = value.isAttribute ? value.path : Array(value.path.dropLast())
                if field == "logoURL", !ancestors.isEmpty,
                    !ancestors.contains(where: { NameGuesses.isHotelLike($0) || NameGuesses.isImageContext($0) })
                {
                    continue
                }
                // A value with children is not a code, a name or a coordinate; an address may be one (its parts are joined).
                if !value.isAttribute, let shape = value.shape, !shape.children.isEmpty, field != "address" { continue }
                // An element of attributes alone holds no text (OpenTravel's Telephone, whose number is @PhoneNumber).
                if takesLists, !value.isAttribute, let shape = value.shape, shape.type == nil, !shape.attributes.isEmpty { continue }
                // The voice line, where the element says what kind of line it is.
                let voiceTest = field == "phone" ? value.holderAttributes.first { NameGuesses.fold($0) == "phonetechtype" } : nil
                var steps = value.path
                if let voiceTest, !steps.isEmpty {
                    steps[steps.count - 1] += "[@\(voiceTest)='\(NameGuesses.voicePhoneTechType)']"
                }
                let path = value.isAttribute ? (steps + ["@" + value.name]).joined(separator: "/") : steps.joined(separator: "/")
                guard !used.contains(path) else { continue }
                // A known name beats an identifier-like one wherever it sits (HotelCode under a child before MarketCode).
                let known = rank < NameGuesses.fieldNames.count + 100 ? 0 : 1
                // Then a code or name of the hotel beats another thing's, however shallow (HotelBeds' Currency/@code
                // before HotelInfo/Code). `CountryName/@Code` is the country's own: its element says whose it is.
                if qualified { ancestors.removeLast() }
                let owner = NameGuesses.owner(of: ancestors)
                // Then a single value before the first of a list.
                let key = (known, owner, value.inList ? 1 : 0, value.path.count, rank)
                if best.map({ key < $0.key }) ?? true {
                    var reason = "named “\(value.name)”" + (qualified ? " in <\(parent ?? "")>" : "")
                    if let voiceTest {
                        reason +=
                            ", of the <\(value.path.last ?? "")> whose \(voiceTest) is \(NameGuesses.voicePhoneTechType) "
                            + "(1 is Voice in OpenTravel's PTT list, 3 Fax)"
                    } else if field == "countryCode", !qualified, folded.hasPrefix("countryname") || folded == "country" {
                        reason += " (a country's name, which HotelKit maps to its code when one country has it)"
                    } else if value.inList {
                        reason += " (its element repeats: the first is taken)"
                    }
                    best = (key, value, path, reason)
                }
            }
            guard let best else { continue }
            if field == "address", let shape = best.value.shape, !shape.children.isEmpty {
                let parts = NameGuesses.addressParts.flatMap { part in shape.children.filter { NameGuesses.fold($0.name) == part } }
                guard let first = parts.first else { continue }
                let paths = parts.map { best.path + "/" + $0.name }
                // A join takes every match, so one repeating part (OTA's AddressLine ×5) is a join too.
                if parts.count > 1 || first.repeats {
                    guess.addressJoin = paths
                    guess.fields.append((field, paths.joined(separator: ", "), "the street parts of <\(best.value.name)>, joined"))
                } else {
                    guess.fields.append((field, paths[0], "the street part of <\(best.value.name)>"))
                }
            } else {
                guess.fields.append((field, best.path, best.reason))
            }
            used.insert(best.path)
        }
        guard guess.fields.contains(where: { $0.field == "code" }) else { return nil }
        guess.references = references(in: record)
        guess.score = guess.fields.count * 2
        return guess
    }

    /// The catalogue references under a record, to three levels: each element of a reference-like
    /// name whose attribute names the catalogue, and each element whose text is a GIATA id.
    static func references(in record: ElementShape) -> [Reference] {
        var found: [Reference] = []
        func walk(_ shape: ElementShape, path: [String], depth: Int) {
            for child in shape.children {
                let childPath = path + [child.name]
                let folded = NameGuesses.fold(child.name)
                let holdsText = child.type != nil && child.children.isEmpty
                let path = childPath.joined(separator: "/")
                if NameGuesses.referenceElementNames.contains(folded) {
                    func attribute(in names: [String]) -> String? {
                        names.lazy.compactMap { name in child.attributes.first { NameGuesses.fold($0.name) == name }?.name }.first
                    }
                    // The code is an attribute, or the element's text.
                    if let catalog = attribute(in: NameGuesses.referenceCatalogNames) {
                        let code = attribute(in: NameGuesses.referenceCodeNames)
                        if code != nil || holdsText {
                            found.append(
                                Reference(
                                    path: path, catalog: "@" + catalog, code: code.map { "@" + $0 },
                                    reason: "a <\(child.name)> whose \(catalog) names the catalogue, and whose "
                                        + (code.map { "\($0) is the code" } ?? "text is the code")))
                        }
                    }
                } else if let catalog = NameGuesses.fixedCatalogs[folded], holdsText {
                    found.append(Reference(path: path, catalog: catalog, code: nil, reason: "<\(child.name)>'s text is a \(catalog) id"))
                }
                if depth < 2 { walk(child, path: childPath, depth: depth + 1) }
            }
        }
        walk(record, path: [], depth: 0)
        return found
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
            let error = errors.children.first(where: { $0.name == "Error" })
        else { return nil }
        return error.attributes.contains { $0.name == "ShortText" } ? "//Errors/Error/@ShortText" : "//Errors/Error"
    }
}
