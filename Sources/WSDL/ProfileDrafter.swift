import Foundation
import Hotels
import SOAP

/// A profile written from a WSDL operation: its JSON, the profile that JSON
/// loads as, and the endpoint the WSDL names.
public struct ProfileDraft: Sendable {
    /// The profile file's text, in the format of the Hotels documentation's *Service Profiles* article.
    public var json: String
    /// The same, loaded and checked by ``/Hotels/ServiceProfile/init(json:source:fields:)``.
    public var profile: ServiceProfile
    /// The endpoint the WSDL gives the operation's port, if any.
    public var endpoint: String?
}

/// Turns one operation of a ``ServiceDescription`` into a profile.
///
/// ```swift
/// let description = ServiceDescription(try await WSDLLoader().load("http://127.0.0.1:8080/soap?wsdl"))
/// let draft = try ProfileDrafter(description: description).draft(operation: "QueryHotels")
/// try draft.json.write(toFile: "sample.json", atomically: true, encoding: .utf8)
/// ```
///
/// Everything it guesses is written into the profile's `notes` with its reason:
/// - the request body from the input schema: required elements and
///   attributes filled (placeholders where names suggest them: `{city}`,
///   `{pageSize}`, `{page}`, `{cursor}`, `{keyword}`, check-in dates as
///   `{today+30}`), optional ones left out and listed, enumerations listed,
///   choices noted;
/// - SOAP header blocks the binding declares, with credentials as `{env:…}`;
///   a WS-Security UsernameToken and WS-Addressing when the policies ask;
/// - the record and its fields from the output schema (or from a recorded
///   response, which is the only way when the schema says `anyType`): the
///   code, name, position, street lines, logo and time, and the hotel's
///   city (`CityName`, `City`, `Town`), postal code (`PostalCode`, `Zip`…),
///   country (`CountryCode`, `CountryName/@Code`, a country's name), chain
///   (`ChainCode`, `Chain`, `BrandCode`), voice number (`PhoneNumber`,
///   OpenTravel's `ContactNumber[@PhoneTechType='1']/@PhoneNumber`) and
///   rating (`Rating`, `StarRating`, `Stars`, `Category`, `Award/@Rating`),
///   each its own field rather than a part of the address; catalogue
///   references as the profile's `references` (`PropertyReference`, a `GiataId`);
/// - paging from tokens, flags and page numbers in the request and response.
public struct ProfileDrafter: Sendable {
    public var description: ServiceDescription

    public init(description: ServiceDescription) {
        self.description = description
    }

    /// The input's element with nothing in it, when its schema is one of the set's missing files (Amadeus ships
    /// each message's schema apart from the WSDL): a profile to fill in beats no profile. Nil when nothing is missing.
    private func rootAlone(of operation: ServiceDescription.Operation, notes: inout [String]) -> ElementShape? {
        guard operation.style != "rpc", let element = operation.input.first?.element, !description.missing.isEmpty else { return nil }
        let holding = description.missing.filter { $0.namespace == element.namespace }
        let files = (holding.isEmpty ? description.missing : holding).map { "\($0.location) (← \($0.referrer))" }.joined(separator: ", ")
        notes.append(
            "request: the body is <\(element.name)> alone, in \(element.namespace.isEmpty ? "no namespace" : element.namespace): "
                + "its schema is not here (\(files)), so its content is unknown; add the file and run again, or fill the body in "
                + "from the vendor's documentation")
        return ElementShape(name: element.name, namespace: element.namespace)
    }

    /// A profile for `operation`, in the SOAP version's binding (the SOAP
    /// 1.1 one when nil and both exist). `sample` is a recorded response to
    /// guess the record and fields from instead of the schema.
    public func draft(operation name: String, version: SOAPVersion? = nil, sample: [UInt8]? = nil, profileName: String? = nil)
        throws -> ProfileDraft
    {
        let operation = try description.operation(named: name, version: version)
        var notes: [String] = []
        let endpoint = description.endpoint(of: operation.binding)
        let serviceName = description.services.first?.name ?? (description.name.isEmpty ? operation.binding : description.name)
        let prefix = String(NameGuesses.fold(serviceName).uppercased().prefix(24)).ifEmpty("SERVICE")
        notes.append(
            "Written by hotels profile init from operation \(operation.name) of binding \(operation.binding) "
                + "(SOAP \(operation.soapVersion.rawValue), \(operation.style)/\(operation.use)). Every guess below says why; review them.")
        notes.append(endpoint.map { "endpoint: \($0) (give it as --endpoint)" } ?? "endpoint: the WSDL names none; ask the vendor")
        if let problem = description.bindings.first(where: { $0.name == operation.binding })?.problem { notes.append("wsdl: " + problem) }
        if !description.missing.isEmpty {
            notes.append(
                "wsdl: missing " + description.missing.map { "\($0.location) (← \($0.referrer))" }.joined(separator: ", ")
                    + ": the types they hold are unknown, so the body and fields below may lack them; add the files and run again")
        }
        if operation.use == "encoded" {
            notes.append("the binding is SOAP-encoded (RPC/encoded): the body below has no xsi:type attributes, which some servers need")
        }

        guard let input = description.bodyShape(of: operation, output: false) ?? rootAlone(of: operation, notes: &notes) else {
            throw WSDLError.unresolved(what: "the input message's element", in: "operation \(operation.name)")
        }
        var writer = BodyWriter(credentialPrefix: prefix, guessesCredentials: true)
        let body = writer.write(input)
        notes += writer.notes.map { "request: " + $0 }

        var document: [(String, JSONText)] = [
            ("name", .string(profileName ?? Self.profileName(service: serviceName, operation: operation.name))),
            ("soapVersion", .string(operation.soapVersion.rawValue)),
            ("soapAction", .string(operation.soapAction)),
            ("body", .string(body)),
        ]
        if operation.soapAction.isEmpty { notes.append("soapAction: the binding gives none; sent empty") }

        // Header blocks the binding declares, WS-Security and WS-Addressing.
        let usesSecurity = description.policies.usernameToken || operation.inputHeaders.contains { $0.name == "Security" }
        var headerWriter = BodyWriter(credentialPrefix: prefix, guessesCredentials: true)
        var headerXML = ""
        for header in operation.inputHeaders where header.name != "Security" {
            guard let shape = description.headerShape(header) else {
                notes.append("soapHeader: <\(header.name)> is declared but not described; left out")
                continue
            }
            headerXML += headerWriter.write(shape)
        }
        if !headerXML.isEmpty {
            document.append(("soapHeader", .string(headerXML)))
            notes += headerWriter.notes.map { "soapHeader: " + $0 }
        }
        if usesSecurity {
            document.append(
                (
                    "security",
                    .object([
                        ("username", .string("{env:\(prefix)_USERNAME}")),
                        ("password", .string("{env:\(prefix)_PASSWORD}")),
                    ])
                ))
            notes.append(
                "security: the WSDL asks for a WS-Security UsernameToken; export \(prefix)_USERNAME and \(prefix)_PASSWORD "
                    + "(the password is sent as text; set \"passwordType\": \"digest\" if the vendor wants a digest)")
        }
        if description.policies.messageSecurity {
            notes.append("security: the policy also asks for signing or encryption with certificates, which a profile cannot do")
        }
        if description.policies.binaryEncoding {
            notes.append(
                "encoding: the policy asks for WCF's binary message encoding, which no client but WCF sends; "
                    + "ask the vendor for an endpoint with text encoding (basicHttpBinding or wsHttpBinding)")
        }
        if description.policies.addressing {
            var addressing: [(String, JSONText)] = [("version", .string("1.0"))]
            if let action = operation.addressingAction, action != operation.soapAction {
                addressing.append(("action", .string(action)))
            }
            document.append(("addressing", .object(addressing)))
            notes.append("addressing: the WSDL uses WS-Addressing; MessageID, Action, To and ReplyTo are sent with each request")
        }

        // The response: the record, its fields, errors and paging.
        let output: ElementShape?
        if let sample {
            let (shape, bare) = try Self.sampleShape(sample)
            output = shape
            notes.append("record and fields: guessed from the recorded response, not the schema")
            if bare {
                document.insert(("envelope", .string("auto")), at: 1)
                notes.append("envelope: the recorded response has no SOAP envelope, so the profile reads either")
            }
        } else {
            output = description.bodyShape(of: operation, output: true)
        }
        let guess = output.flatMap { RecordGuess.best(in: $0) }
        if let guess, let output {
            document.append(("record", .string(guess.record)))
            var fields: [(String, JSONText)] = []
            for (field, path, reason) in guess.fields {
                if field == "address", let parts = guess.addressJoin {
                    fields.append((field, .object([("join", .array(parts.map(JSONText.string)))])))
                } else {
                    fields.append((field, .string(path)))
                }
                notes.append("fields.\(field) = \(path): \(reason)")
            }
            document.append(("fields", .object(fields)))
            let references = guess.references.map { reference in
                JSONText.object(
                    [("path", .string(reference.path)), ("catalog", .string(reference.catalog))]
                        + (reference.code.map { [("code", JSONText.string($0))] } ?? []))
            }
            if !references.isEmpty { document.append(("references", references.count == 1 ? references[0] : .array(references))) }
            for reference in guess.references {
                notes.append(
                    "references: \(reference.path), catalogue \(reference.catalog), code \(reference.code ?? "its text"): \(reference.reason)"
                )
            }
            notes.append("record = \(guess.record): the repeating element at \(guess.location) with the most hotel-like values")
            // References are the profile's own key, not a field.
            let missing = HotelField.allCases.filter { $0 != .references }.map(\.rawValue)
                .filter { field in !guess.fields.contains { $0.field == field } }
            if !missing.isEmpty { notes.append("fields not found: " + missing.joined(separator: ", ")) }
            if guess.references.isEmpty {
                notes.append("references: none found (a repeated element naming a catalogue and a code, as OpenTravel's PropertyReference)")
            }
            if let error = ResponseMarkers.errorPath(in: output) {
                document.append(("error", .string(error)))
                notes.append("error = \(error): OpenTravel's <Errors> element")
            }
            let (paging, pagingNotes) = Self.paging(input: writer.placeholders, output: output, record: guess)
            notes += pagingNotes
            if let paging { document.append(("paging", paging)) }
        } else if let output, !Self.isOpen(output), description.missing.isEmpty, sample == nil {
            // A reply whose whole schema is known and repeats nothing (a boolean, a status) holds no hotels.
            notes.append(
                "record and fields: left out: nothing in the response schema repeats, so this operation returns no hotels "
                    + "(a login, a logout; hotels call sends it). If it does return hotels, run again with --sample RESPONSE.xml")
        } else {
            document.append(("record", .string("REPLACE_ME")))
            document.append(("fields", .object([("code", .string("REPLACE_ME"))])))
            notes.append(
                "record and fields: nothing in the response " + (output.map(Self.isOpen) == true ? "schema (it says anyType) " : "")
                    + "repeats with a code; run again with --sample RESPONSE.xml, or set them by hand")
        }
        document.insert(("notes", .array(notes.map(JSONText.string))), at: 1)

        let json = JSONText.object(document).rendered() + "\n"
        let profile: ServiceProfile
        do {
            profile = try ServiceProfile(json: Data(json.utf8), source: "the written profile")
        } catch {
            // A draft that does not load is HotelKit's bug, not the user's: say so with the reason.
            throw WSDLError.unresolved(what: "a loadable profile (\(error.reason))", in: "operation \(operation.name)")
        }
        return ProfileDraft(json: json, profile: profile, endpoint: endpoint)
    }

    /// Whether the schema leaves any part of the shape unsaid (anyType, xs:any).
    static func isOpen(_ shape: ElementShape) -> Bool {
        shape.isOpen || shape.children.contains(where: isOpen)
    }

    static func profileName(service: String, operation: String) -> String {
        let words = (service + "-" + operation).map { $0.isLetter || $0.isNumber ? Character($0.lowercased()) : "-" }
        return String(words).split(separator: "-").joined(separator: "-")
    }

    /// The paging the request and response suggest, and why.
    static func paging(input: Set<String>, output: ElementShape, record: RecordGuess) -> (JSONText?, [String]) {
        let markers = ResponseMarkers(body: output, skippingRecord: record.record)
        if input.contains("{cursor}") {
            if let token = markers.first(in: NameGuesses.nextTokenNames) {
                return (
                    .object([("style", .string("cursor")), ("next", .string(token))]),
                    ["paging: cursor, the next page's token at \(token) goes back as {cursor}"]
                )
            }
            // OpenTravel's MoreIndicator holds where the next block begins, to send back as MoreDataEchoToken.
            if let token = markers.first(in: ["moreindicator"]) {
                return (
                    .object([("style", .string("cursor")), ("next", .string(token))]),
                    ["paging: cursor, OpenTravel's \(token) says where the next block begins and goes back as {cursor}"]
                )
            }
            // A position in the list (`before`, `since`) is the last record's sort key: its time field.
            if record.fields.contains(where: { $0.field == "addtime" }) {
                var paging: [(String, JSONText)] = [("style", .string("cursor")), ("next", .string("field:addtime"))]
                var notes = [
                    "paging: cursor, the last record's addtime goes back as {cursor} (the request has a position in the list, "
                        + "and the records carry a time)"
                ]
                if let last = markers.endMarker(for: "addtime") {
                    paging.append(("last", .string(last)))
                    notes.append("paging.last = \(last): the list's final addtime, so no empty page is asked for")
                }
                return (.object(paging), notes)
            }
            return (nil, ["paging: none; the request has {cursor} but the response has no token to send back: set \"paging\" by hand"])
        }
        if input.contains("{page}") {
            return (
                .object([("style", .string("page")), ("first", .number(1))]),
                ["paging: numbered pages from 1 (check whether the service counts from 0); a short page ends the list"]
            )
        }
        if let flag = markers.first(in: NameGuesses.moreNames) {
            if input.contains("{more}") {
                return (.object([("style", .string("flag")), ("more", .string(flag))]), ["paging: flag, \(flag) says more rows follow"])
            }
            return (nil, ["paging: none; the response has a more-rows flag (\(flag)) but the request has no way to ask for the rest"])
        }
        return (nil, ["paging: none; nothing in the request or response pages (a one-shot operation)"])
    }

    /// The shape of a recorded response's payload, and whether it was bare (no envelope).
    static func sampleShape(_ bytes: [UInt8]) throws -> (ElementShape, bare: Bool) {
        let root: XMLTreeElement
        do {
            root = try XMLTreeElement.parse(bytes, limits: XMLReaderLimits())
        } catch {
            throw WSDLError.xml(document: "--sample", referrer: nil, error)
        }
        if root.localName == "Envelope" {
            guard let body = root.children.first(where: { $0.localName == "Body" }), let payload = body.children.first else {
                throw WSDLError.notWSDL(document: "--sample", root: "Envelope", hint: "the recorded response's Body is empty")
            }
            if payload.localName == "Fault" {
                throw WSDLError.notWSDL(
                    document: "--sample", root: "Fault", hint: "the recorded response is a fault; record a successful one")
            }
            return (ElementShape(sampleOf: [payload]), false)
        }
        return (ElementShape(sampleOf: [root]), true)
    }
}

extension ElementShape {
    /// The shape of recorded elements of one name: their attributes and
    /// children merged, a child that occurs more than once in one of them repeating.
    init(sampleOf elements: [XMLTreeElement]) {
        let first = elements[0]
        self.init(name: first.localName, namespace: first.namespaceURI)
        var attributeNames: [String] = []
        var childNames: [String] = []
        var childrenByName: [String: [XMLTreeElement]] = [:]
        var repeating: Set<String> = []
        for element in elements {
            for name in element.attributes.keys.sorted() where !attributeNames.contains(name) && !name.hasPrefix("xmlns") {
                attributeNames.append(name)
            }
            var counts: [String: Int] = [:]
            for child in element.children {
                counts[child.localName, default: 0] += 1
                if !childNames.contains(child.localName) { childNames.append(child.localName) }
                childrenByName[child.localName, default: []].append(child)
            }
            repeating.formUnion(counts.filter { $0.value > 1 }.keys)
        }
        attributes = attributeNames.map { AttributeShape(name: $0, isRequired: false, type: "string") }
        children = childNames.map { name in
            var child = ElementShape(sampleOf: childrenByName[name] ?? [])
            child.maxOccurs = repeating.contains(name) ? nil : 1
            return child
        }
        if children.isEmpty { type = "string" }
    }
}

extension String {
    fileprivate func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}

/// JSON written in a fixed key order, two spaces deep, so a person reads
/// a profile top down: name, notes, the request, the response.
enum JSONText {
    case string(String)
    case number(Int)
    case array([JSONText])
    case object([(String, JSONText)])

    func rendered(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .string(let text): return Self.quoted(text)
        case .number(let number): return String(number)
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let pairs):
            guard !pairs.isEmpty else { return "{}" }
            return "{\n" + pairs.map { inner + Self.quoted($0.0) + ": " + $0.1.rendered(indent: inner) }.joined(separator: ",\n")
                + "\n\(indent)}"
        }
    }

    /// A JSON string literal, as JSONEncoder writes one (slashes left alone, so URLs stay readable).
    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding a String cannot fail; the fallback is never taken.
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
