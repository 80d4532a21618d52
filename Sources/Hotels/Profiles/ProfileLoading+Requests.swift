import Foundation
import SOAP

/// A JSON object whose keys are all known: decoded by the synthesized
/// decoder, after ``Strict`` has refused any key it does not declare.
protocol StrictDocument: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable & RawRepresentable<String>
}

/// Refuses unknown keys, then decodes `Document`.
struct Strict<Document: StrictDocument>: Decodable {
    var document: Document

    init(from decoder: any Decoder) throws {
        let parent = decoder.codingPath.map(\.stringValue).joined(separator: ".")
        try decoder.refuseUnknownKeys(Document.CodingKeys.allCases.map(\.rawValue), under: parent.isEmpty ? nil : parent)
        document = try Document(from: decoder)
    }
}

/// `"http": {"auth": {"basic": {"user": "{env:U}", "password": "{env:P}"}}, "headers": {...}, "contentType": "application/xml"}`
struct HTTPDocument: StrictDocument {
    var auth: Strict<AuthDocument>?
    var headers: [String: String]?
    var contentType: String?
    enum CodingKeys: String, CodingKey, CaseIterable { case auth, headers, contentType }

    struct AuthDocument: StrictDocument {
        var basic: Strict<BasicDocument>?
        var bearer: String?
        enum CodingKeys: String, CodingKey, CaseIterable { case basic, bearer }
    }

    struct BasicDocument: StrictDocument {
        var user: String
        var password: String
        enum CodingKeys: String, CodingKey, CaseIterable { case user, password }
    }

    func options() throws(ProfileKeyError) -> HTTPOptions {
        var options = HTTPOptions(contentType: contentType)
        if let auth = auth?.document {
            switch (auth.basic?.document, auth.bearer) {
            case (let basic?, nil):
                options.authentication = .basic(
                    user: try template("http.auth.basic.user", basic.user),
                    password: try template("http.auth.basic.password", basic.password))
            case (nil, let bearer?):
                options.authentication = .bearer(try template("http.auth.bearer", bearer))
            default:
                throw ProfileKeyError(key: "http.auth", reason: "give one of \"basic\" ({\"user\", \"password\"}) or \"bearer\"")
            }
        }
        for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            // A header's name is a token: no separators, no line breaks smuggling in a second header.
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"()<>@,;:\\\"/[]?={}".utf8.contains($0) }) else {
                throw ProfileKeyError(key: "http.headers.\(name)", reason: "is not a valid HTTP header name")
            }
            let reserved = ["content-length", "host", "transfer-encoding", "authorization", "content-type", "soapaction"]
            guard !reserved.contains(name.lowercased()) else {
                throw ProfileKeyError(
                    key: "http.headers.\(name)", reason: "is set by HotelKit; use http.auth, http.contentType or soapAction")
            }
            options.headers.append(HTTPOptions.Header(name: name, value: try template("http.headers.\(name)", value)))
        }
        if let contentType, contentType.isEmpty || contentType.contains(where: \.isNewline) {
            throw ProfileKeyError(key: "http.contentType", reason: "must be a media type such as application/xml")
        }
        return options
    }
}

/// `"security": {"username": "{env:U}", "password": "{env:P}", "passwordType": "digest", ...}`
struct SecurityDocument: StrictDocument {
    var username: String
    var password: String
    var passwordType: String?
    var nonce: Bool?
    var created: Bool?
    var timestamp: Int?
    var mustUnderstand: Bool?
    var namespace: String?
    var extra: String?
    var when: String?
    enum CodingKeys: String, CodingKey, CaseIterable {
        case username, password, passwordType, nonce, created, timestamp, mustUnderstand, namespace, extra, when
    }

    func options(hasSession: Bool) throws(ProfileKeyError) -> UsernameTokenOptions {
        let form = try choice("security.passwordType", passwordType, default: UsernameTokenOptions.Password.text)
        let scope = try choice("security.when", when, default: UsernameTokenOptions.Scope.always)
        if scope == .sessionStart, !hasSession {
            throw ProfileKeyError(key: "security.when", reason: "“sessionStart” needs a \"session\"")
        }
        if let timestamp, !(1...86_400).contains(timestamp) {
            throw ProfileKeyError(key: "security.timestamp", reason: "is the token's lifetime in seconds, from 1 to 86400")
        }
        return UsernameTokenOptions(
            username: try template("security.username", username), password: try template("security.password", password),
            passwordForm: form, nonce: nonce, created: created, timestampLifetime: timestamp, mustUnderstand: mustUnderstand ?? false,
            namespace: try choice("security.namespace", namespace, default: .oasis2004),
            extra: try extra.map { text throws(ProfileKeyError) in try template("security.extra", text) }, scope: scope)
    }
}

/// `"addressing": {"version": "1.0", "action": "...", "to": "...", "replyTo": true, "mustUnderstand": false}`
struct AddressingDocument: StrictDocument {
    var version: String?
    var action: String?
    var to: String?
    var replyTo: Bool?
    var mustUnderstand: Bool?
    enum CodingKeys: String, CodingKey, CaseIterable { case version, action, to, replyTo, mustUnderstand }

    func options() throws(ProfileKeyError) -> AddressingOptions {
        AddressingOptions(
            version: try choice("addressing.version", version, default: .v1_0),
            action: try action.map { text throws(ProfileKeyError) in try template("addressing.action", text) },
            to: try to.map { text throws(ProfileKeyError) in try template("addressing.to", text) },
            replyTo: replyTo ?? true, mustUnderstand: mustUnderstand ?? false)
    }
}

/// `"session": {"login": {...}, "capture": {...}, "counters": {...}, "status": [...], "expired": [...], "logout": {...}}`
struct SessionDocument: StrictDocument {
    var start: [String: String]?
    var login: Strict<OperationDocument>?
    var capture: [String: String]?
    var `public`: [String]?
    var counters: [String: Int]?
    var status: [String]?
    var startHeader: String?
    var expired: [String]?
    var logout: Strict<OperationDocument>?
    var pool: Int?
    enum CodingKeys: String, CodingKey, CaseIterable {
        case start, login, capture, `public`, counters, status, startHeader, expired, logout, pool
    }

    struct OperationDocument: StrictDocument {
        var soapAction: String?
        var body: String
        var soapHeader: String?
        enum CodingKeys: String, CodingKey, CaseIterable { case soapAction, body, soapHeader }

        func operation(_ key: String) throws(ProfileKeyError) -> SessionOptions.Operation {
            SessionOptions.Operation(
                soapAction: soapAction ?? "", body: try template("\(key).body", body),
                soapHeader: try soapHeader.map { text throws(ProfileKeyError) in try template("\(key).soapHeader", text) })
        }
    }

    func options() throws(ProfileKeyError) -> SessionOptions {
        var options = SessionOptions(poolSize: pool ?? 1)
        guard (1...64).contains(options.poolSize) else { throw ProfileKeyError(key: "session.pool", reason: "must be from 1 to 64") }
        for (name, text) in start ?? [:] {
            try checkName("session.start", name)
            options.start[name] = try template("session.start.\(name)", text)
        }
        for (name, path) in capture ?? [:] {
            try checkName("session.capture", name)
            options.capture[name] = try checked("session.capture.\(name)") { () throws(PathSyntaxError) in try DocumentPath(parsing: path) }
        }
        for (name, first) in counters ?? [:] {
            try checkName("session.counters", name)
            options.counters[name] = first
        }
        options.publicValues = Set(self.public ?? [])
        if let unknown = options.publicValues.first(where: { options.capture[$0] == nil }) {
            throw ProfileKeyError(key: "session.public", reason: "“\(unknown)” is not a captured value")
        }
        if let status {
            guard status.count == 3, !status.contains(where: \.isEmpty) else {
                throw ProfileKeyError(
                    key: "session.status",
                    reason: "give three values: the first call's, the next calls', the last's "
                        + "([\"Start\", \"InSeries\", \"End\"])")
            }
            options.status = SessionOptions.TransactionStatus(first: status[0], next: status[1], last: status[2])
        }
        options.startHeader = try startHeader.map { text throws(ProfileKeyError) in try template("session.startHeader", text) }
        options.expiredFaults = expired ?? []
        if options.expiredFaults.contains(where: \.isEmpty) {
            throw ProfileKeyError(key: "session.expired", reason: "name a fault code (InvalidSecurityToken) or a text of its reason")
        }
        options.login = try login.map { document throws(ProfileKeyError) in try document.document.operation("session.login") }
        options.logout = try logout.map { document throws(ProfileKeyError) in try document.document.operation("session.logout") }
        if options.login != nil, options.startHeader != nil {
            throw ProfileKeyError(key: "session.startHeader", reason: "is for a session without a login; give the login its soapHeader")
        }
        return options
    }

    private func checkName(_ key: String, _ name: String) throws(ProfileKeyError) {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw ProfileKeyError(key: "\(key).\(name)", reason: "a session value's name is letters, digits, “_” and “-”")
        }
        if name == "status" { throw ProfileKeyError(key: "\(key).\(name)", reason: "“status” is the transaction status's name") }
    }
}

/// Checks every placeholder of a loaded profile against what the profile declares.
extension ServiceProfile {
    /// Every request template of the profile, with the key it came from.
    var requestTemplates: [(key: String, template: RequestTemplate)] {
        var templates: [(String, RequestTemplate)] = [("body", body)]
        if let soapHeader { templates.append(("soapHeader", soapHeader)) }
        switch http.authentication {
        case .basic(let user, let password): templates += [("http.auth.basic.user", user), ("http.auth.basic.password", password)]
        case .bearer(let token): templates.append(("http.auth.bearer", token))
        case nil: break
        }
        templates += http.headers.map { ("http.headers.\($0.name)", $0.value) }
        if let security {
            templates += [("security.username", security.username), ("security.password", security.password)]
            if let extra = security.extra { templates.append(("security.extra", extra)) }
        }
        if let addressing {
            if let action = addressing.action { templates.append(("addressing.action", action)) }
            if let to = addressing.to { templates.append(("addressing.to", to)) }
        }
        if let session {
            templates += session.start.map { ("session.start.\($0.key)", $0.value) }
            if let startHeader = session.startHeader { templates.append(("session.startHeader", startHeader)) }
            for (key, operation) in [("session.login", session.login), ("session.logout", session.logout)] {
                guard let operation else { continue }
                templates.append(("\(key).body", operation.body))
                if let header = operation.soapHeader { templates.append(("\(key).soapHeader", header)) }
            }
        }
        return templates.sorted { $0.0 < $1.0 }
    }

    /// The names of every `{env:NAME}` the profile uses: the credentials it needs.
    public var credentialNames: Set<String> {
        var names = Set<String>()
        for (_, template) in requestTemplates {
            for case .credential(let name) in template.placeholders { names.insert(name) }
        }
        return names
    }

    func checkPlaceholders() throws(ProfileKeyError) {
        let sessionNames = session?.valueNames ?? []
        for (key, template) in requestTemplates {
            for placeholder in template.placeholders {
                switch placeholder {
                case .session(let name) where !sessionNames.contains(name):
                    throw ProfileKeyError(
                        key: key,
                        reason: session == nil
                            ? "\(placeholder) needs a \"session\" that declares it"
                            : "\(placeholder) is not declared; the session's values are "
                                + sessionNames.sorted().map { "{session.\($0)}" }.joined(separator: ", "))
                case .cursorAttribute(let name) where !cursorAttributes.contains(name):
                    throw ProfileKeyError(key: key, reason: "\(placeholder) needs \"with\": [\"@\(name)\"] in the cursor paging")
                case .session, .cursorAttribute, .city, .keyword, .latitude, .longitude, .radius, .page, .pageSize, .cursor, .more, .uuid,
                    .now, .today, .endpoint, .action, .credential:
                    break
                }
            }
        }
        if let session, session.start.values.contains(where: { $0.placeholders.contains { if case .session = $0 { true } else { false } } })
        {
            throw ProfileKeyError(key: "session.start", reason: "a start value cannot use {session.…}: the session has no value yet")
        }
    }
}

/// One of an enumeration's raw values, or its default; refused with the choices.
func choice<Value: RawRepresentable<String> & CaseIterable>(_ key: String, _ text: String?, default value: Value) throws(ProfileKeyError)
    -> Value
{
    guard let text else { return value }
    guard let chosen = Value(rawValue: text) else {
        throw ProfileKeyError(
            key: key,
            reason: "must be " + Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                + ", not \"\(text)\"")
    }
    return chosen
}

func template(_ key: String, _ text: String) throws(ProfileKeyError) -> RequestTemplate {
    try checked(key) { () throws(PathSyntaxError) in try RequestTemplate(text) }
}

func checked<T>(_ key: String, _ body: () throws(PathSyntaxError) -> T) throws(ProfileKeyError) -> T {
    do {
        return try body()
    } catch {
        throw ProfileKeyError(key: key, reason: error.reason)
    }
}
