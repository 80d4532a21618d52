import Foundation
import HTTP
import SOAP

/// Maps one hotel SOAP service onto ``Hotel`` records: how to ask, where the
/// records are, and how to page. Profiles are JSON, so a new vendor needs no code:
///
/// ```json
/// {
///   "name": "acme",
///   "soapVersion": "1.2",
///   "soapAction": "urn:acme:SearchHotels",
///   "body": "<a:SearchHotels xmlns:a=\"urn:acme:hotels\"><a:City>{city}</a:City></a:SearchHotels>",
///   "record": "Item",
///   "fields": {"code": "@id", "name": "Title", "latitude": "Location/@lat"},
///   "error": "//Errors/Error/@ShortText",
///   "coordinateScale": 1,
///   "paging": {"style": "cursor", "next": "field:addtime"}
/// }
/// ```
public struct ServiceProfile: Sendable, Equatable {
    public var name: String
    /// SOAP (the default), plain XML (`none`), or either in responses (`auto`).
    public var envelope: MessageEnvelope = .soap
    /// 1.1 unless the profile says otherwise.
    public var soapVersion: SOAPVersion
    public var soapAction: String
    /// The XML of the Body's child, with placeholders.
    public var body: RequestTemplate
    /// The local name of the repeating record element; nil for an operation
    /// that returns no hotels (a login, a cancellation), which has no `fields` either.
    public var record: String?
    /// Where each field is, relative to the record: the first match wins.
    public var fields: [HotelField: FieldPath]
    /// Fields made of several parts: every match of each path, joined.
    public var joins: [HotelField: FieldJoin] = [:]
    /// The fields `fields` may map; a parse keeps the values of those it adds in ``Hotel/extensions``.
    public var fieldTable = HotelFieldTable.standard
    /// Where each of the table's added fields is, by JSON key, and the ones made of parts.
    public var addedFields: [String: FieldPath] = [:]
    public var addedJoins: [String: FieldJoin] = [:]
    /// Where the record's catalogue references are (``Hotel/references``).
    public var references: [ReferenceRule] = []
    /// How the service says, in a normal response, that it failed.
    public var error: ErrorRule?
    /// Coordinates are divided by this (some services send degrees × 100000).
    public var coordinateScale: Double
    /// Fault codes (local names, e.g. `Server.Busy`) that a retry may cure.
    /// Any other SOAP fault is final: the service answered, and asking again
    /// gets the same answer.
    public var transientFaults: Set<String> = []
    public var paging: Paging
    /// Under cursor paging, where the response says what the list's final
    /// cursor is (`//lastAddTime`): a page whose cursor equals it is the last.
    public var endMarker: DocumentPath?
    /// Named values read from the SOAP Header (`"token": "//BinarySecurityToken"`):
    /// part of each page's metadata, for paging and sessions.
    public var header: [String: DocumentPath] = [:]
    /// Under cursor paging from a document path to an element, the attributes
    /// of that element that travel back with it (`{cursor.ProviderCode}`).
    public var cursorAttributes: [String] = []

    // MARK: The request side

    /// Authentication, extra headers and the Content-Type.
    public var http = HTTPOptions()
    /// XML inside every request's SOAP Header, with placeholders.
    public var soapHeader: RequestTemplate?
    /// A WS-Security UsernameToken in the SOAP Header.
    public var security: UsernameTokenOptions?
    /// WS-Addressing headers.
    public var addressing: AddressingOptions?
    /// A stateful service's session.
    public var session: SessionOptions?
    /// The profile's notes for people: what it needs from the user, what was guessed.
    public var notes: [String] = []
    /// What the profile says that has no effect (a `soapVersion` for a
    /// plain-XML service): loaded anyway, and said once by ``HotelClient``
    /// and `hotels profile check`.
    public var warnings: [String] = []

    /// How "load more" asks for the next page.
    public enum Paging: Sendable, Equatable {
        /// Numbered pages from `first` (0 or 1); a short or empty page is the last.
        case page(first: Int)
        /// The next request carries a token taken from this response; no token,
        /// or a repeated one, is the end.
        case cursor(CursorSource)
        /// The response says whether more rows follow (`true`, `1`, `Y`), at this
        /// path (Sabre's `//AdditionalAvail/@Ind`); the next request sets `{more}`.
        case flag(DocumentPath)
        /// A one-shot operation (descriptive info, a booking): one request, one response.
        case none
    }

    /// Where a cursor comes from.
    public enum CursorSource: Sendable, Equatable {
        /// A value anywhere in the Body (`//Properties/@MoreDataEchoToken`).
        case document(DocumentPath)
        /// A field of the last record (`field:addtime`), as the service wrote it.
        case field(HotelField)
        /// One of the profile's ``ServiceProfile/header`` values (`header:token`).
        case header(String)
    }
}

/// How a service reports an error inside a normal response.
///
/// - Presence: `//Errors/Error/@ShortText` anywhere means failure (OTA `<Errors>`).
/// - A value: `//Status/StatusCode` unless it is `01` (TBO).
///
/// The message is the matched value, or the values of ``message`` joined by
/// a space (`@Code` and `@ShortText`: "322 No availability"). Only the first
/// error is the error; the others are counted.
public struct ErrorRule: Sendable, Equatable, CustomStringConvertible {
    public var path: DocumentPath
    /// The value at ``path`` that means success; nil: its presence is the error.
    public var unless: String?
    /// Paths whose values make the message, in order; empty: the value at ``path``.
    public var message: [DocumentPath]
    /// Values at ``path`` that mean the service refused the credentials
    /// (TBO's login failure, `02`): the error is then an authentication error.
    public var authentication: Set<String>

    public init(path: DocumentPath, unless: String? = nil, message: [DocumentPath] = [], authentication: Set<String> = []) {
        self.path = path
        self.unless = unless
        self.message = message
        self.authentication = authentication
    }

    public var description: String { path.description }
}

/// A field made of parts: every match of each path, in the order of the
/// paths (each path's matches in document order), the non-empty ones joined
/// by the separator. An address split over `AddressLine` ×2, `CityName` and
/// `CountryName/@Code` is one joined field; so is Travelport's three
/// `PropertyAddress/Address` elements.
public struct FieldJoin: Sendable, Equatable {
    public var paths: [FieldPath]
    public var separator: String

    public init(paths: [FieldPath], separator: String = ", ") {
        self.paths = paths
        self.separator = separator
    }
}

/// The fields of a ``Hotel``, as profiles name them, in ``HotelFields`` order.
public enum HotelField: String, Sendable, Hashable, CaseIterable, Codable {
    case code, name, address, latitude, longitude, logoURL, addtime
    case phone, chainCode, rating, postalCode, city, countryCode
    /// Mapped by the profile's `references` key, not by `fields`: each match is a pair.
    case references
}

/// A repeated element that gives a record's catalogue references, a name and
/// a code each: OpenTravel's
/// `TPA_Extensions/TPA_PropertyReferenceInfo/PropertyReference` with
/// `@ReferenceCatalogName` and `@ReferenceCatalogCode`, or a supplier's own
/// `GiataId` element, whose text is the code of one fixed catalogue.
public struct ReferenceRule: Sendable, Equatable {
    /// Where a catalogue's name comes from.
    public enum Catalog: Sendable, Equatable {
        /// An attribute of the element.
        case attribute(String)
        /// Always this catalogue (lower case).
        case fixed(String)
    }

    /// The element, relative to the record; it names no attribute.
    public var element: FieldPath
    public var catalog: Catalog
    /// The attribute with the code; nil: the element's text.
    public var codeAttribute: String?

    public init(element: FieldPath, catalog: Catalog, codeAttribute: String?) {
        self.element = element
        self.catalog = catalog
        self.codeAttribute = codeAttribute
    }
}

/// A path relative to a record: child elements by local name, namespace-agnostic,
/// and an optional final attribute: `Position/@Latitude`, `@HotelCode`, `Title`.
///
/// `../@HotelCode` climbs out of the record: the attribute of the nearest
/// enclosing element that has it (OTA's `HotelDescriptiveContents/@HotelCode`
/// around each `HotelDescriptiveContent`); `../../@X` starts one level higher.
///
/// A step may test an attribute: `TPA_Extensions/Description[@Name='Address']/Text`
/// (Concur's address) follows only the `Description` whose `Name` is
/// `Address`. An element follows the first path whose test it passes; a
/// path without a test takes the elements no test took.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    public var elements: [String]
    /// Each element step's attribute test, or nil: as many as ``elements``.
    public var tests: [AttributeTest?]
    public var attribute: String?
    /// How many levels the path climbs before it looks: 0 inside the record.
    public var ancestorLevels: Int

    /// `[@Name='Address']`: the step's element has this attribute with this value.
    public struct AttributeTest: Sendable, Hashable, CustomStringConvertible {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        public var description: String { "[@\(name)=" + (value.contains("'") ? "\"\(value)\"" : "'\(value)'") + "]" }
    }

    public init(elements: [String], tests: [AttributeTest?]? = nil, attribute: String? = nil, ancestorLevels: Int = 0) {
        self.elements = elements
        self.tests = tests ?? Array(repeating: nil, count: elements.count)
        self.attribute = attribute
        self.ancestorLevels = ancestorLevels
    }

    /// Whether any step tests an attribute.
    public var hasTests: Bool { tests.contains { $0 != nil } }

    /// Parses a path; the error says what is wrong with it.
    public init(parsing text: String) throws(PathSyntaxError) {
        guard !text.hasPrefix("/") else {
            throw PathSyntaxError("field paths are relative to the record: drop the leading “/”")
        }
        var steps = try FieldPath.steps(of: text)
        let levels = steps.prefix { $0 == ".." }.count
        steps.removeFirst(levels)
        if levels > 0, steps.count != 1 || steps.first?.hasPrefix("@") != true {
            throw PathSyntaxError("a path that climbs (“\(text)”) names an attribute of an enclosing element, as in ../@HotelCode")
        }
        var attribute: String?
        if let last = steps.last, last.hasPrefix("@") {
            attribute = String(last.dropFirst())
            steps.removeLast()
            try FieldPath.checkName(attribute ?? "", in: text)
        }
        var elements: [String] = []
        var tests: [AttributeTest?] = []
        for step in steps {
            if step.hasPrefix("@") { throw PathSyntaxError("an attribute step (“\(step)”) can only come last") }
            let (name, test) = try FieldPath.step(step, in: text)
            elements.append(name)
            tests.append(test)
        }
        self.init(elements: elements, tests: tests, attribute: attribute, ancestorLevels: levels)
    }

    public var description: String {
        let steps = zip(elements, tests).map { $0 + ($1?.description ?? "") }
        return (Array(repeating: "..", count: ancestorLevels) + steps + (attribute.map { ["@" + $0] } ?? [])).joined(separator: "/")
    }

    /// The steps between slashes; a slash inside a test's quotes is part of its value.
    private static func steps(of text: String) throws(PathSyntaxError) -> [String] {
        var steps = [""]
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "/" {
                steps.append("")
                continue
            }
            steps[steps.count - 1].append(character)
        }
        guard quote == nil else { throw PathSyntaxError("an unclosed quote in “\(text)”") }
        return steps
    }

    /// `Name` or `Name[@Attr='value']` (either quote).
    private static func step(_ step: String, in path: String) throws(PathSyntaxError) -> (String, AttributeTest?) {
        guard let bracket = step.firstIndex(of: "[") else {
            try checkName(step, in: path)
            return (step, nil)
        }
        let name = String(step[..<bracket])
        try checkName(name, in: path)
        let test = step[bracket...]
        guard test.hasPrefix("[@"), test.hasSuffix("]"), let equals = test.firstIndex(of: "=") else {
            throw PathSyntaxError("“\(step)”: a step's test is [@Attribute='value'], as in Description[@Name='Address']")
        }
        let attribute = String(test[test.index(test.startIndex, offsetBy: 2)..<equals])
        try checkName(attribute, in: path)
        let quoted = test[test.index(after: equals)..<test.index(before: test.endIndex)]
        guard quoted.count >= 2, let open = quoted.first, open == "'" || open == "\"", quoted.last == open,
            !quoted.dropFirst().dropLast().contains(open)
        else {
            throw PathSyntaxError("“\(step)”: quote the value, as in [@\(attribute)='Address']")
        }
        return (name, AttributeTest(name: attribute, value: String(quoted.dropFirst().dropLast())))
    }

    static func checkName(_ name: String, in path: String) throws(PathSyntaxError) {
        guard !name.isEmpty else { throw PathSyntaxError("an empty step in “\(path)”") }
        if name.contains(":") {
            throw PathSyntaxError("“\(name)”: paths match local names whatever the namespace, so write it without a prefix")
        }
        let isNameStart: (Unicode.Scalar) -> Bool = { $0 == "_" || $0.properties.isAlphabetic }
        let isNameCharacter: (Unicode.Scalar) -> Bool = {
            isNameStart($0) || $0 == "-" || $0 == "." || $0.properties.numericType != nil
        }
        guard let first = name.unicodeScalars.first, isNameStart(first),
            name.unicodeScalars.allSatisfy(isNameCharacter)
        else {
            throw PathSyntaxError("“\(name)” is not an XML name")
        }
    }
}

/// A path from anywhere in the Body: `//Errors/Error/@ShortText`.
public struct DocumentPath: Sendable, Hashable, CustomStringConvertible {
    public var steps: FieldPath

    public init(parsing text: String) throws(PathSyntaxError) {
        guard text.hasPrefix("//") else {
            throw PathSyntaxError("a document path starts with “//” (it may match anywhere in the Body)")
        }
        steps = try FieldPath(parsing: String(text.dropFirst(2)))
        guard !steps.elements.isEmpty else {
            throw PathSyntaxError("a document path needs at least one element before the attribute")
        }
        guard !steps.hasTests else {
            throw PathSyntaxError("an attribute test ([@Name='value']) goes in a record's field path, not in a “//” path")
        }
    }

    public var description: String { "//" + steps.description }
}

/// Why a path in a profile cannot be used.
public struct PathSyntaxError: Error, Sendable, Equatable {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
}

extension ServiceProfile {
    /// What a response's Header is read for: the profile's header values, and
    /// the session's captured values as `session.NAME`.
    var headerValuePaths: [String: DocumentPath] {
        var paths = header
        for (name, path) in session?.capture ?? [:] { paths[SessionValues.headerKey(name)] = path }
        return paths
    }

    /// The HTTP request of one page, built as a ``HotelClient`` builds it: a
    /// SOAP message (or under `"envelope": "none"` the body as it is) with
    /// the profile's headers and security.
    public func request(to endpoint: String, _ parameters: RequestParameters, credentials: Credentials = .environment) throws -> HTTPRequest
    {
        try RequestBuilder(profile: self, endpoint: endpoint, credentials: credentials, secrets: SecretRedactor()).request(
            .page(parameters))
    }
}
