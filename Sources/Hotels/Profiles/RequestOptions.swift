import Foundation
import SOAP

/// What a profile adds to its requests' HTTP: authentication, headers, and
/// a Content-Type other than the SOAP version's.
public struct HTTPOptions: Sendable, Equatable {
    public enum Authentication: Sendable, Equatable {
        /// `Authorization: Basic base64(user:password)` (Concur, Travelport).
        case basic(user: RequestTemplate, password: RequestTemplate)
        /// `Authorization: Bearer token`.
        case bearer(RequestTemplate)
    }

    /// One extra request header; its value may hold placeholders.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: RequestTemplate

        public init(name: String, value: RequestTemplate) {
            self.name = name
            self.value = value
        }
    }

    public var authentication: Authentication?
    public var headers: [Header]
    /// Replaces the SOAP version's media type (Concur wants `application/xml`).
    public var contentType: String?

    public init(authentication: Authentication? = nil, headers: [Header] = [], contentType: String? = nil) {
        self.authentication = authentication
        self.headers = headers
        self.contentType = contentType
    }
}

/// A WS-Security UsernameToken, built fresh for every request that carries it.
///
/// The digest is `Base64(SHA-1(nonce + created + password))` over the nonce's
/// octets and Created's text (OASIS UsernameToken Profile 1.0), or, in
/// Amadeus's variant, over SHA-1 of the password instead of the password.
public struct UsernameTokenOptions: Sendable, Equatable {
    public enum Password: String, Sendable, CaseIterable {
        /// The password as it is (`#PasswordText`).
        case text
        /// The standard digest (`#PasswordDigest`).
        case digest
        /// Amadeus's digest, over SHA-1 of the password.
        case digestOfSHA1 = "digest-sha1"
    }

    /// The WS-Security namespaces: OASIS 2004, or the 2002/12 draft Sabre still speaks.
    public enum Namespace: String, Sendable, CaseIterable {
        case oasis2004 = "oasis-2004"
        case secext2002 = "secext-2002-12"

        public var security: String {
            switch self {
            case .oasis2004: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
            case .secext2002: "http://schemas.xmlsoap.org/ws/2002/12/secext"
            }
        }

        public var utility: String {
            switch self {
            case .oasis2004: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
            case .secext2002: "http://schemas.xmlsoap.org/ws/2002/12/utility"
            }
        }
    }

    /// Which requests carry the token.
    public enum Scope: String, Sendable, CaseIterable {
        /// Every request.
        case always
        /// The request that starts a session: the login, or without one the
        /// session's first call (Amadeus's `Start`). Later calls carry the
        /// session's token instead.
        case sessionStart
    }

    public var username: RequestTemplate
    public var password: RequestTemplate
    public var passwordForm: Password
    /// A fresh random 16-byte Nonce in each token, with its EncodingType.
    public var nonce: Bool
    /// The token's `wsu:Created`.
    public var created: Bool
    /// A `wsu:Timestamp` with Created and Expires this many seconds later.
    public var timestampLifetime: Int?
    /// `mustUnderstand="1"` on `wsse:Security`.
    public var mustUnderstand: Bool
    public var namespace: Namespace
    /// XML inside the token after the standard elements (Sabre's `Organization` and `Domain`).
    public var extra: RequestTemplate?
    public var scope: Scope

    public init(
        username: RequestTemplate, password: RequestTemplate, passwordForm: Password = .text, nonce: Bool? = nil,
        created: Bool? = nil, timestampLifetime: Int? = nil, mustUnderstand: Bool = false, namespace: Namespace = .oasis2004,
        extra: RequestTemplate? = nil, scope: Scope = .always
    ) {
        self.username = username
        self.password = password
        self.passwordForm = passwordForm
        // A digest without them is replayable, so they default on with it.
        self.nonce = nonce ?? (passwordForm != .text)
        self.created = created ?? (passwordForm != .text)
        self.timestampLifetime = timestampLifetime
        self.mustUnderstand = mustUnderstand
        self.namespace = namespace
        self.extra = extra
        self.scope = scope
    }
}

/// WS-Addressing headers on every request: a new MessageID, the Action, To,
/// and an anonymous ReplyTo (Amadeus SOAP Header 4, WCF services such as TBO's).
public struct AddressingOptions: Sendable, Equatable {
    public enum Version: String, Sendable, CaseIterable {
        /// W3C WS-Addressing 1.0 (2005/08).
        case v1_0 = "1.0"
        /// The 2004/08 member submission.
        case v2004_08 = "2004/08"

        public var namespaceURI: String {
            switch self {
            case .v1_0: "http://www.w3.org/2005/08/addressing"
            case .v2004_08: "http://schemas.xmlsoap.org/ws/2004/08/addressing"
            }
        }

        public var anonymous: String { namespaceURI + (self == .v1_0 ? "/anonymous" : "/role/anonymous") }
    }

    public var version: Version
    /// Defaults to the request's SOAPAction (`{action}`).
    public var action: RequestTemplate?
    /// Defaults to the endpoint (`{endpoint}`).
    public var to: RequestTemplate?
    public var replyTo: Bool
    /// `mustUnderstand="1"` on Action and To.
    public var mustUnderstand: Bool

    public init(
        version: Version = .v1_0, action: RequestTemplate? = nil, to: RequestTemplate? = nil, replyTo: Bool = true,
        mustUnderstand: Bool = false
    ) {
        self.version = version
        self.action = action
        self.to = to
        self.replyTo = replyTo
        self.mustUnderstand = mustUnderstand
    }
}

/// A stateful service's session, as the profile declares it.
///
/// A session starts with its `start` values (a ConversationId from `{uuid}`)
/// and, when the profile has one, a login call; values named in `capture`
/// are read from the login reply (Header and Body) and from every reply's
/// Header; `counters` go up by one per call; the transaction status is the
/// first, next or last of `status`. A fault named in `expiredFaults` starts
/// a new session and retries the call once. The logout runs when the work
/// ends, fails or is interrupted.
public struct SessionOptions: Sendable, Equatable {
    /// A call of the session's own: the login or the logout.
    public struct Operation: Sendable, Equatable {
        public var soapAction: String
        public var body: RequestTemplate
        /// The SOAP header for this call; nil: the profile's `soapHeader`.
        public var soapHeader: RequestTemplate?

        public init(soapAction: String, body: RequestTemplate, soapHeader: RequestTemplate? = nil) {
            self.soapAction = soapAction
            self.body = body
            self.soapHeader = soapHeader
        }
    }

    /// `{session.status}`: `Start` on the first call, `InSeries` after, `End` on the logout.
    public struct TransactionStatus: Sendable, Equatable {
        public var first: String
        public var next: String
        public var last: String

        public init(first: String, next: String, last: String) {
            self.first = first
            self.next = next
            self.last = last
        }
    }

    public var start: [String: RequestTemplate]
    public var login: Operation?
    public var capture: [String: DocumentPath]
    /// Captured values that are not secrets (a sequence number); every
    /// other captured value is redacted from all output.
    public var publicValues: Set<String>
    /// Each counter's first value. A captured value of the same name sets
    /// it: the next call sends that value plus one (Amadeus's SequenceNumber).
    public var counters: [String: Int]
    public var status: TransactionStatus?
    /// The SOAP header of a session's first call when there is no login.
    public var startHeader: RequestTemplate?
    /// Fault codes (local names) or reason texts that mean the session has
    /// expired (`InvalidSecurityToken`).
    public var expiredFaults: [String]
    public var logout: Operation?
    /// Sessions at most, when requests run at once.
    public var poolSize: Int

    public init(
        start: [String: RequestTemplate] = [:], login: Operation? = nil, capture: [String: DocumentPath] = [:],
        publicValues: Set<String> = [], counters: [String: Int] = [:], status: TransactionStatus? = nil,
        startHeader: RequestTemplate? = nil, expiredFaults: [String] = [], logout: Operation? = nil, poolSize: Int = 1
    ) {
        self.start = start
        self.login = login
        self.capture = capture
        self.publicValues = publicValues
        self.counters = counters
        self.status = status
        self.startHeader = startHeader
        self.expiredFaults = expiredFaults
        self.logout = logout
        self.poolSize = poolSize
    }

    /// Every name a `{session.NAME}` may use.
    public var valueNames: Set<String> {
        Set(start.keys).union(capture.keys).union(counters.keys).union(status == nil ? [] : ["status"])
    }
}
