import Crypto
import Failures
import Foundation
import HTTP
import SOAP

/// A request that cannot be built from the profile and its values.
public struct RequestBuildError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var reason: String
    public var description: String { "cannot build the request: “\(key)” \(reason)" }
}

/// Turns one call of a profile (a page, a session's login or logout) into
/// its HTTP request: the body and SOAP header rendered from their templates,
/// WS-Addressing and a fresh WS-Security token added, the HTTP
/// authentication and headers set. Every secret it uses is handed to the
/// client's ``SecretRedactor`` before the request leaves.
public struct RequestBuilder: Sendable {
    public enum Call: Sendable, Equatable {
        case page(RequestParameters)
        case login
        case logout
    }

    public let profile: ServiceProfile
    public let endpoint: String
    public let credentials: Credentials
    public let secrets: SecretRedactor
    /// The clock, the nonce and the UUID: fixed in tests.
    public var now: @Sendable () -> Date = { Date() }
    public var nonce: @Sendable () -> [UInt8] = { RequestBuilder.randomNonce() }
    public var uuid: @Sendable () -> String = { UUID().uuidString.lowercased() }

    /// The `{env:NAME}` names the profile uses: found once, not on every request.
    private let credentialNames: Set<String>

    public init(profile: ServiceProfile, endpoint: String, credentials: Credentials, secrets: SecretRedactor) {
        self.profile = profile
        credentialNames = profile.credentialNames
        self.endpoint = endpoint
        self.credentials = credentials
        self.secrets = secrets
    }

    /// The profile's credentials that are not set, sorted.
    public var missingCredentials: [String] {
        credentialNames.filter { credentials.values[$0] == nil }.sorted()
    }

    /// Registers the credentials the profile uses that are secrets
    /// (``Credentials/isSecret(_:)``); throws when one is missing.
    public func checkCredentials() throws(MissingCredentialsError) {
        let missing = missingCredentials
        guard missing.isEmpty else { throw MissingCredentialsError(profile: profile.name, names: missing) }
        for name in credentialNames where Credentials.isSecret(name) { credentials.values[name].map(secrets.add) }
    }

    public func request(_ call: Call, session: SessionState? = nil) throws -> HTTPRequest {
        try checkCredentials()
        let (action, body, callHeader) = parts(of: call)
        // The action itself, without the quotes a SOAP 1.1 header may carry: for
        // `{action}`, WS-Addressing's Action and SOAP 1.2's action parameter.
        let unquoted = action.hasPrefix("\"") && action.hasSuffix("\"") && action.count > 1 ? String(action.dropFirst().dropLast()) : action
        var values = RequestValues(
            endpoint: endpoint, action: unquoted, now: now(), uuid: uuid(), credentials: credentials.values,
            session: session?.values(for: call, options: profile.session) ?? [:])
        if case .page(let parameters) = call { values.parameters = parameters }
        let bodyXML = body.render(values)
        var headers: [(name: String, value: String)] = []
        let contentType: String
        if profile.envelope == .none {
            contentType = profile.http.contentType ?? "text/xml; charset=utf-8"
        } else {
            switch profile.soapVersion {
            case .v1_1:
                contentType = profile.http.contentType ?? "text/xml; charset=utf-8"
                // As the profile writes it: a bare word (Concur's `search`) or a URI, quoted or not.
                headers.append(("SOAPAction", action))
            case .v1_2:
                contentType =
                    (profile.http.contentType ?? "application/soap+xml; charset=utf-8")
                    + (unquoted.isEmpty ? "" : "; action=\"\(unquoted)\"")
            }
        }
        headers.insert(("Content-Type", contentType), at: 0)
        if let authorization = try authorization(values) { headers.append(("Authorization", authorization)) }
        for header in profile.http.headers {
            headers.append((header.name, try headerValue(header.value, values, key: "http.headers.\(header.name)")))
        }
        let message: String
        if profile.envelope == .none {
            message = bodyXML
        } else {
            let soapHeader = soapHeader(call, callHeader: callHeader, session: session, values: values)
            message = SOAPEnvelope.message(version: profile.soapVersion, body: bodyXML, header: soapHeader.isEmpty ? nil : soapHeader)
        }
        return HTTPRequest(url: endpoint, method: .post, headers: headers, body: Array(message.utf8))
    }

    private func parts(of call: Call) -> (action: String, body: RequestTemplate, header: RequestTemplate?) {
        switch call {
        case .page: (profile.soapAction, profile.body, nil)
        case .login: profile.session?.login.map { ($0.soapAction, $0.body, $0.soapHeader) } ?? (profile.soapAction, profile.body, nil)
        case .logout: profile.session?.logout.map { ($0.soapAction, $0.body, $0.soapHeader) } ?? (profile.soapAction, profile.body, nil)
        }
    }

    /// WS-Addressing, then WS-Security, then the profile's own header blocks.
    private func soapHeader(_ call: Call, callHeader: RequestTemplate?, session: SessionState?, values: RequestValues) -> String {
        var header = ""
        if let addressing = profile.addressing { header += Self.addressingHeader(addressing, values: values) }
        if let security = profile.security, carriesToken(security, call: call, session: session) {
            header += usernameToken(security, values: values)
        }
        let template: RequestTemplate? =
            switch call {
            case .login, .logout: callHeader ?? profile.soapHeader
            case .page: session?.isStarting == true ? profile.session?.startHeader ?? profile.soapHeader : profile.soapHeader
            }
        if let template { header += template.render(values) }
        return header
    }

    private func carriesToken(_ security: UsernameTokenOptions, call: Call, session: SessionState?) -> Bool {
        switch security.scope {
        case .always: true
        case .sessionStart: call == .login || (call != .logout && session?.isStarting == true && profile.session?.login == nil)
        }
    }

    private func authorization(_ values: RequestValues) throws -> String? {
        switch profile.http.authentication {
        case .basic(let user, let password):
            let pair =
                try headerValue(user, values, key: "http.auth.basic.user") + ":"
                + headerValue(password, values, key: "http.auth.basic.password")
            let token = Data(pair.utf8).base64EncodedString()
            secrets.add(token)
            return "Basic " + token
        case .bearer(let token):
            let value = try headerValue(token, values, key: "http.auth.bearer")
            secrets.add(value)
            return "Bearer " + value
        case nil:
            return nil
        }
    }

    /// A header's value: no XML escaping, and no line break that would start another header.
    private func headerValue(_ template: RequestTemplate, _ values: RequestValues, key: String) throws -> String {
        let value = template.render(values) { $0 }
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw RequestBuildError(key: key, reason: "has a line break in its value, which HTTP headers cannot carry")
        }
        return value
    }

    // MARK: WS-Addressing

    static func addressingHeader(_ options: AddressingOptions, values: RequestValues) -> String {
        let namespace = #"xmlns:wsa="\#(options.version.namespaceURI)""#
        let understood = options.mustUnderstand ? #" soap:mustUnderstand="1""# : ""
        let action = options.action?.render(values) ?? XMLEscaping.escape(values.action)
        let to = options.to?.render(values) ?? XMLEscaping.escape(values.endpoint)
        var header = "<wsa:MessageID \(namespace)>urn:uuid:\(XMLEscaping.escape(values.uuid))</wsa:MessageID>"
        header += "<wsa:Action \(namespace)\(understood)>\(action)</wsa:Action>"
        header += "<wsa:To \(namespace)\(understood)>\(to)</wsa:To>"
        if options.replyTo {
            header += "<wsa:ReplyTo \(namespace)><wsa:Address>\(options.version.anonymous)</wsa:Address></wsa:ReplyTo>"
        }
        return header
    }

    // MARK: WS-Security

    private func usernameToken(_ options: UsernameTokenOptions, values: RequestValues) -> String {
        let password = options.password.render(values) { $0 }
        let nonce = options.nonce ? nonce() : []
        let created = RequestValues.timestamp(values.now, milliseconds: true)
        let passwordText: String
        switch options.passwordForm {
        case .text:
            passwordText = password
        case .digest, .digestOfSHA1:
            // Not registered: a new digest each request would grow the redactor
            // without end; ``SecretRedactor`` masks every Password element instead.
            passwordText = Self.passwordDigest(
                nonce: nonce, created: options.created ? created : "", password: password,
                hashingPassword: options.passwordForm == .digestOfSHA1)
        }
        secrets.add(password)
        return Self.securityHeader(
            options, username: options.username.render(values) { $0 }, password: passwordText, nonce: nonce,
            created: created,
            expires: options.timestampLifetime.map {
                RequestValues.timestamp(values.now.addingTimeInterval(Double($0)), milliseconds: true)
            }, extra: options.extra?.render(values) ?? "")
    }

    /// `Base64(SHA-1(nonce + created + password))`, over the nonce's octets and
    /// Created's exact text; with `hashingPassword`, over SHA-1 of the password
    /// (Amadeus's variant, WSS4J's "encoded password").
    public static func passwordDigest(nonce: [UInt8], created: String, password: String, hashingPassword: Bool) -> String {
        var hash = Insecure.SHA1()
        hash.update(data: nonce)
        hash.update(data: Array(created.utf8))
        if hashingPassword {
            hash.update(data: Array(Insecure.SHA1.hash(data: Array(password.utf8))))
        } else {
            hash.update(data: Array(password.utf8))
        }
        return Data(hash.finalize()).base64EncodedString()
    }

    /// 16 random octets from the system's generator.
    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func securityHeader(
        _ options: UsernameTokenOptions, username: String, password: String, nonce: [UInt8], created: String,
        expires: String?, extra: String
    ) -> String {
        let oasis = options.namespace == .oasis2004
        let profileURI = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0"
        let passwordType: String? =
            switch (options.passwordForm, oasis) {
            case (.text, true): profileURI + "#PasswordText"
            case (_, true): profileURI + "#PasswordDigest"
            case (.text, false): nil
            case (_, false): "wsse:PasswordDigest"
            }
        let encoding =
            oasis
            ? "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
            : "wsse:Base64Binary"
        var xml = #"<wsse:Security xmlns:wsse="\#(options.namespace.security)" xmlns:wsu="\#(options.namespace.utility)""#
        xml += options.mustUnderstand ? #" soap:mustUnderstand="1">"# : ">"
        if let expires {
            xml += "<wsu:Timestamp><wsu:Created>\(created)</wsu:Created><wsu:Expires>\(expires)</wsu:Expires></wsu:Timestamp>"
        }
        xml += "<wsse:UsernameToken><wsse:Username>\(XMLEscaping.escape(username))</wsse:Username>"
        xml += "<wsse:Password" + (passwordType.map { #" Type="\#($0)""# } ?? "") + ">\(XMLEscaping.escape(password))</wsse:Password>"
        if options.nonce {
            xml += #"<wsse:Nonce EncodingType="\#(encoding)">\#(Data(nonce).base64EncodedString())</wsse:Nonce>"#
        }
        if options.created { xml += "<wsu:Created>\(created)</wsu:Created>" }
        return xml + extra + "</wsse:UsernameToken></wsse:Security>"
    }
}

extension RequestBuildError: MeaningfulError {
    /// Configuration (78): the profile's request.
    public var meaning: ErrorMeaning { ErrorMeaning(kind: .configuration, status: .config) }
}
