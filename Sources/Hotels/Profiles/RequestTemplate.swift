import Foundation
import SOAP

/// Text with placeholders: a request body, a SOAP header block, an HTTP
/// header value. Parsed once, when the profile is loaded: an unknown
/// placeholder is refused then, not sent to the service.
///
/// | placeholder | value |
/// |---|---|
/// | `{city}`, `{keyword}`, `{page}`, `{pageSize}` | the list asked for |
/// | `{latitude}`, `{longitude}`, `{radius}` | a search by position (``SearchArea``): decimal degrees, kilometres |
/// | `{cursor}`, `{cursor.NAME}` | the next page's token, and an attribute that travels with it |
/// | `{more}` | `true` on every request after the first, under flag paging |
/// | `{uuid}` | a new UUID for each request (the same one everywhere in that request) |
/// | `{now}`, `{now.ms}` | the request's time, UTC, ISO 8601, to the second or millisecond |
/// | `{today}`, `{today+N}` | the UTC date, or N days ahead: check-in dates never in the past |
/// | `{today+N:PATTERN}`, `{now:PATTERN}` | the same in a pattern of ``DatePattern``'s: `{today+30:MM-dd}`, `{today:yyyyMMdd}` |
/// | `{endpoint}`, `{action}` | the service's URL, and the request's SOAPAction |
/// | `{env:NAME}` | a credential: the environment variable, or the `--credentials` file's key |
/// | `{session.NAME}` | a value of the current session: captured, counted, or set at its start |
///
/// A section, `{?NAME}…{/NAME}`, is sent only when the placeholder `{NAME}`
/// has a value: an element or an attribute a service refuses empty, such as
/// a paging token on the first request:
/// `{?cursor}<NextResultReference>{cursor}</NextResultReference>{/cursor}`.
///
/// Values are XML-escaped in XML; braces that do not hold a placeholder's
/// name (`{ "a": 1 }`) are text.
public struct RequestTemplate: Sendable, Equatable {
    public enum Placeholder: Sendable, Hashable, CustomStringConvertible {
        case city, keyword, page, pageSize, cursor, more
        case latitude, longitude, radius
        case cursorAttribute(String)
        case uuid
        case now(milliseconds: Bool, pattern: DatePattern? = nil)
        case today(plusDays: Int, pattern: DatePattern? = nil)
        case endpoint, action
        case credential(String)
        case session(String)

        public var description: String {
            switch self {
            case .city: "{city}"
            case .keyword: "{keyword}"
            case .page: "{page}"
            case .pageSize: "{pageSize}"
            case .cursor: "{cursor}"
            case .more: "{more}"
            case .latitude: "{latitude}"
            case .longitude: "{longitude}"
            case .radius: "{radius}"
            case .cursorAttribute(let name): "{cursor.\(name)}"
            case .uuid: "{uuid}"
            case .now(let milliseconds, let pattern): milliseconds ? "{now.ms}" : "{now\(pattern.map { ":\($0)" } ?? "")}"
            case .today(let days, let pattern):
                "{today\(days == 0 ? "" : days > 0 ? "+\(days)" : "\(days)")\(pattern.map { ":\($0)" } ?? "")}"
            case .endpoint: "{endpoint}"
            case .action: "{action}"
            case .credential(let name): "{env:\(name)}"
            case .session(let name): "{session.\(name)}"
            }
        }

        /// The name between the braces: `today+30:MM-dd`.
        public var name: String { String(description.dropFirst().dropLast()) }

        static let simple: [String: Placeholder] = [
            "city": .city, "keyword": .keyword, "page": .page, "pageSize": .pageSize, "cursor": .cursor, "more": .more,
            "latitude": .latitude, "longitude": .longitude, "radius": .radius,
            "uuid": .uuid, "now": .now(milliseconds: false), "now.ms": .now(milliseconds: true), "today": .today(plusDays: 0),
            "endpoint": .endpoint, "action": .action,
        ]

        static let known =
            "{city}, {keyword}, {latitude}, {longitude}, {radius}, {page}, {pageSize}, {cursor}, {cursor.NAME}, {more}, "
            + "{uuid}, {now}, {now.ms}, "
            + "{today}, {today+N}, {today+N:PATTERN}, {now:PATTERN}, {endpoint}, {action}, {env:NAME}, {session.NAME}"

        /// The placeholder a name between braces is, nil when the braces hold
        /// no placeholder-like name at all; throws for a name that looks like one but is not.
        init?(parsing name: Substring) throws(PathSyntaxError) {
            // A date with a pattern: the pattern may hold what names may not ('/', ' ', quotes).
            if name.hasPrefix("today") || name.hasPrefix("now"), let colon = name.firstIndex(of: ":") {
                let pattern = try DatePattern(String(name[name.index(after: colon)...]))
                switch try Placeholder(parsing: name[..<colon]) {
                case .today(let days, nil): self = .today(plusDays: days, pattern: pattern)
                case .now(false, nil): self = .now(milliseconds: false, pattern: pattern)
                default: throw PathSyntaxError("unknown placeholder {\(name)}; a pattern goes with {today}, {today+N} or {now}")
                }
                return
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.:+-".contains($0)) }) else {
                return nil
            }
            if let simple = Self.simple[String(name)] {
                self = simple
            } else if let rest = name.dropPrefix("cursor."), Self.isName(rest) {
                self = .cursorAttribute(String(rest))
            } else if let rest = name.dropPrefix("env:"), Self.isName(rest), rest.first?.isNumber == false {
                self = .credential(String(rest))
            } else if let rest = name.dropPrefix("session."), Self.isName(rest) {
                self = .session(String(rest))
            } else if let rest = name.dropPrefix("today"), let sign = rest.first, sign == "+" || sign == "-",
                let days = Int(rest.dropFirst()), rest.count > 1, abs(days) <= 3650
            {
                self = .today(plusDays: sign == "-" ? -days : days)
            } else {
                throw PathSyntaxError("unknown placeholder {\(name)}; known: \(Self.known)")
            }
        }

        private static func isName(_ text: Substring) -> Bool {
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        }
    }

    // Not `indirect`: the array already holds a section's segments on the heap, and
    // the boxes of an indirect enum built in this typed-throws initializer leaked (LeakSanitizer, #33).
    private enum Segment: Sendable, Equatable {
        case text(String)
        case placeholder(Placeholder)
        /// `{?NAME}…{/NAME}`: the segments, when the placeholder has a value.
        case section(Placeholder, [Segment])
    }

    public let text: String
    private let segments: [Segment]

    /// Every placeholder, in order of appearance, sections' included.
    public var placeholders: [Placeholder] {
        func collect(_ segments: [Segment]) -> [Placeholder] {
            segments.flatMap { segment -> [Placeholder] in
                switch segment {
                case .text: []
                case .placeholder(let placeholder): [placeholder]
                case .section(let placeholder, let inner): [placeholder] + collect(inner)
                }
            }
        }
        return collect(segments)
    }

    public init(_ text: String) throws(PathSyntaxError) {
        // The open sections, innermost last, each with the segments before it.
        var open: [(placeholder: Placeholder, outer: [Segment])] = []
        var segments: [Segment] = []
        var rest = text[...]
        var literal = ""
        func flush() {
            if !literal.isEmpty { segments.append(.text(literal)) }
            literal = ""
        }
        while let brace = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: brace)...]
            guard let close = after.firstIndex(of: "}") else { break }
            var name = after[..<close]
            let marker = name.first.flatMap { "?/".contains($0) ? $0 : nil }
            if marker != nil { name = name.dropFirst() }
            guard let placeholder = try Placeholder(parsing: name) else {
                literal += rest[...brace]
                rest = after
                continue
            }
            literal += rest[..<brace]
            flush()
            switch marker {
            case "?":
                open.append((placeholder, segments))
                segments = []
            case "/":
                guard let section = open.last, section.placeholder == placeholder else {
                    throw PathSyntaxError(
                        "{/\(name)} closes no {?\(name)}" + (open.last.map { "; {?\($0.placeholder.name)} is open" } ?? ""))
                }
                open.removeLast()
                segments = section.outer + [.section(placeholder, segments)]
            default:
                segments.append(.placeholder(placeholder))
            }
            rest = after[after.index(after: close)...]
        }
        literal += rest
        flush()
        if let unclosed = open.last {
            throw PathSyntaxError("{?\(unclosed.placeholder.name)} is not closed by {/\(unclosed.placeholder.name)}")
        }
        self.text = text
        self.segments = segments
    }

    public func contains(_ placeholder: Placeholder) -> Bool {
        placeholders.contains(placeholder)
    }

    /// The text with every placeholder replaced by `escape(value)`; a missing
    /// value becomes empty, and a section whose placeholder has none is left out.
    public func render(_ values: RequestValues, escape: (String) -> String = XMLEscaping.escape) -> String {
        func render(_ segments: [Segment], into result: inout String) {
            for segment in segments {
                switch segment {
                case .text(let text): result += text
                case .placeholder(let placeholder): result += escape(values[placeholder] ?? "")
                case .section(let placeholder, let inner):
                    if values[placeholder]?.isEmpty == false { render(inner, into: &result) }
                }
            }
        }
        var result = ""
        render(segments, into: &result)
        return result
    }

    public static func == (lhs: RequestTemplate, rhs: RequestTemplate) -> Bool { lhs.text == rhs.text }
}

extension Substring {
    fileprivate func dropPrefix(_ prefix: String) -> Substring? {
        hasPrefix(prefix) ? dropFirst(prefix.count) : nil
    }
}

/// The values a request body is filled with.
public struct RequestParameters: Sendable, Equatable {
    public var city: String?
    public var keyword: String?
    /// A search by position, when the list is one.
    public var area: SearchArea?
    public var page: Int?
    public var pageSize: Int?
    public var cursor: String?
    /// The attributes that travel with the cursor (Travelport's
    /// `NextResultReference/@ProviderCode`): `{cursor.ProviderCode}`.
    public var cursorAttributes: [String: String]
    /// Under flag paging, true on every request after the first: `{more}` is `true`, else empty.
    public var more: Bool

    public init(
        city: String? = nil, keyword: String? = nil, area: SearchArea? = nil, page: Int? = nil, pageSize: Int? = nil,
        cursor: String? = nil, cursorAttributes: [String: String] = [:], more: Bool = false
    ) {
        self.city = city
        self.keyword = keyword
        self.area = area
        self.page = page
        self.pageSize = pageSize
        self.cursor = cursor
        self.cursorAttributes = cursorAttributes
        self.more = more
    }
}

/// Everything a template's placeholders can take: the list's parameters,
/// the request's own identity and time, credentials and the session.
public struct RequestValues: Sendable {
    public var parameters: RequestParameters
    public var endpoint: String
    public var action: String
    /// The request's time: `{now}`, `{today}`, and WS-Security's Created.
    public var now: Date
    /// This request's `{uuid}`.
    public var uuid: String
    public var credentials: [String: String]
    public var session: [String: String]

    public init(
        parameters: RequestParameters = RequestParameters(), endpoint: String = "", action: String = "", now: Date = Date(),
        uuid: String = UUID().uuidString.lowercased(), credentials: [String: String] = [:], session: [String: String] = [:]
    ) {
        self.parameters = parameters
        self.endpoint = endpoint
        self.action = action
        self.now = now
        self.uuid = uuid
        self.credentials = credentials
        self.session = session
    }

    public subscript(placeholder: RequestTemplate.Placeholder) -> String? {
        switch placeholder {
        case .city: parameters.city
        case .keyword: parameters.keyword
        case .latitude: parameters.area.map { SearchArea.decimal($0.latitude) }
        case .longitude: parameters.area.map { SearchArea.decimal($0.longitude) }
        case .radius: parameters.area.map { SearchArea.decimal($0.radius) }
        case .page: parameters.page.map(String.init)
        case .pageSize: parameters.pageSize.map(String.init)
        case .cursor: parameters.cursor
        case .more: parameters.more ? "true" : nil
        case .cursorAttribute(let name): parameters.cursorAttributes[name]
        case .uuid: uuid
        case .now(_, let pattern?): pattern.format(now)
        case .now(let milliseconds, nil): Self.timestamp(now, milliseconds: milliseconds)
        case .today(let days, let pattern):
            pattern.map { $0.format(now.addingTimeInterval(Double(days) * 86_400)) }
                ?? Self.date(now.addingTimeInterval(Double(days) * 86_400))
        case .endpoint: endpoint
        case .action: action
        case .credential(let name): credentials[name]
        case .session(let name): session[name]
        }
    }

    /// `2026-11-23T09:41:00Z`, or `2026-11-23T09:41:00.123Z`.
    public static func timestamp(_ date: Date, milliseconds: Bool = false) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: milliseconds, timeZone: .gmt))
    }

    static func date(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
    }
}
