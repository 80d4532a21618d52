import Failures

/// A SOAP fault, from either version, as a typed error.
///
/// SOAP 1.1's `faultcode`, `faultstring`, `faultactor` and `detail` map onto
/// the SOAP 1.2 names: `code`, `reason`, `node` and `detail`.
public struct SOAPFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// A fault code: a qualified name, as written and as resolved.
    public struct Code: Sendable, Equatable, CustomStringConvertible {
        /// The code as the message wrote it, e.g. `soap:Client` or `env:Sender`.
        public var value: String
        /// The part after the prefix, e.g. `Client` or `Sender`.
        public var localName: String
        /// The namespace the prefix was bound to, where it was bound.
        public var namespaceURI: String?

        public init(value: String, localName: String, namespaceURI: String? = nil) {
            self.value = value
            self.localName = localName
            self.namespaceURI = namespaceURI
        }

        public var description: String { value }
    }

    /// One `Reason/Text`, with its `xml:lang`.
    public struct Reason: Sendable, Equatable {
        public var text: String
        public var language: String?

        public init(text: String, language: String? = nil) {
            self.text = text
            self.language = language
        }
    }

    /// Who is at fault, from the code: it decides whether a retry can help.
    public enum Kind: Sendable, Equatable {
        case versionMismatch
        case mustUnderstand
        case dataEncodingUnknown
        /// The request was wrong (1.1 `Client`, 1.2 `Sender`): never retry it.
        case sender
        /// The service failed (1.1 `Server`, 1.2 `Receiver`): a retry may succeed.
        case receiver
        case other
    }

    public var version: SOAPVersion
    public var code: Code
    /// SOAP 1.2 `Subcode/Value`s, outermost first.
    public var subcodes: [Code]
    /// Every reason text; SOAP 1.1 has exactly one, without a language.
    public var reasons: [Reason]
    /// SOAP 1.2 `Node`, SOAP 1.1 `faultactor`.
    public var node: String?
    /// SOAP 1.2 `Role`.
    public var role: String?
    /// The content of `Detail` (`detail`), as XML text with its namespaces declared.
    public var detail: String?
    /// The detail's useful lines: each element that holds text, as `Name: text`,
    /// with white space folded (`Code: 322`, `Message: …`, `ProblemHeaderQName: wsa:Action`).
    public var detailLines: [String]

    public init(
        version: SOAPVersion,
        code: Code,
        subcodes: [Code] = [],
        reasons: [Reason],
        node: String? = nil,
        role: String? = nil,
        detail: String? = nil,
        detailLines: [String] = []
    ) {
        self.version = version
        self.code = code
        self.subcodes = subcodes
        self.reasons = reasons
        self.node = node
        self.role = role
        self.detail = detail
        self.detailLines = detailLines
    }

    /// The reason to show: English where given, else the first, with its
    /// white space folded (services send multi-line, indented reasons).
    public var reason: String {
        let english = reasons.first { $0.language?.lowercased().hasPrefix("en") == true }
        return ((english ?? reasons.first)?.text ?? "").foldingWhitespace()
    }

    /// What the fault is about, as far as its codes say: it decides the hint a person gets.
    public enum Topic: Sendable, Equatable {
        /// Security or authentication: the credentials, or an expired session.
        case authentication
        /// SOAPAction or WS-Addressing: the profile's action.
        case addressing
        /// The request (Client/Sender).
        case request
        /// The service (Server/Receiver).
        case service
        case other
    }

    /// WS-Addressing's "a required header is missing": the code
    /// `MessageAddressingHeaderRequired` (1.0) or `MessageInformationHeaderRequired`
    /// (2004/08), or a `ProblemHeaderQName` detail. The profile needs `addressing`.
    public var wantsAddressingHeaders: Bool {
        ([code] + subcodes).contains { ["MessageAddressingHeaderRequired", "MessageInformationHeaderRequired"].contains($0.localName) }
            || detailLines.contains { $0.hasPrefix("ProblemHeaderQName") }
    }

    public var topic: Topic {
        // The codes say it first; the reason only when the codes are generic
        // ("Server: NO AGREEMENT EXISTS FOR AGENCY"). A WCF ActionNotSupported
        // reason mentions security too, but its code is about the action.
        // Codes are matched word by word ("TransactionTimeout" is not about an
        // action), reasons by phrases ("unexpected token" is not a credential).
        let words = ([code] + subcodes).flatMap { Self.words(of: $0.localName) }
        if words.contains(where: { word in Self.addressingWords.contains { word.hasPrefix($0) } })
            || detailLines.contains(where: { $0.hasPrefix("ProblemHeaderQName") })
        {
            return .addressing
        }
        let text = reason.lowercased()
        if words.contains(where: { word in Self.authenticationWords.contains { word.hasPrefix($0) } })
            || Self.authenticationPhrases.contains(where: text.contains)
        {
            return .authentication
        }
        switch kind {
        case .sender: return .request
        case .receiver: return .service
        default: return .other
        }
    }

    private static let addressingWords: [String] = ["soapaction", "action", "addressing"]
    private static let authenticationWords: [String] = [
        "security", "authenticat", "auth", "unauthoriz", "credential", "password", "token", "session", "login", "logon", "agreement",
    ]
    private static let authenticationPhrases: [String] = [
        "security", "authenticat", "unauthoriz", "not authorized", "credential", "password", "login", "logon", "agreement",
        "invalid token", "expired token", "token expired", "invalid session", "session expired", "expired session",
        "|session|",
    ]

    /// A fault code's words, lower-cased: split at dots and other separators,
    /// and where a lower-case letter meets a capital ("InvalidSecurityToken").
    static func words(of code: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousIsLower = false
        for character in code {
            if !character.isLetter && !character.isNumber {
                if !current.isEmpty { words.append(current.lowercased()) }
                (current, previousIsLower) = ("", false)
                continue
            }
            if character.isUppercase, previousIsLower {
                words.append(current.lowercased())
                current = ""
            }
            current.append(character)
            previousIsLower = character.isLowercase
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }

    public var kind: Kind {
        // SOAP 1.1 codes may be dotted ("Client.Authentication").
        let head = code.localName.split(separator: ".", maxSplits: 1).first.map(String.init) ?? code.localName
        switch head {
        case "VersionMismatch": return .versionMismatch
        case "MustUnderstand": return .mustUnderstand
        case "DataEncodingUnknown": return .dataEncodingUnknown
        case "Client", "Sender": return .sender
        case "Server", "Receiver": return .receiver
        default: return .other
        }
    }

    public var description: String {
        var text = "SOAP fault \(code.value)"
        if !subcodes.isEmpty {
            text += " (" + subcodes.map(\.value).joined(separator: " > ") + ")"
        }
        text += ": \(reason.isEmpty ? "(no reason given)" : reason)"
        if let node { text += " [node \(node)]" }
        if !detailLines.isEmpty { text += "; detail: " + detailLines.joined(separator: "; ") }
        return text
    }
}

// MARK: - Building a fault from its events

/// A fault for `--json`: every part, the detail as XML and as lines.
extension SOAPFault: Encodable {
    private enum Key: String, CodingKey { case code, subcodes, reason, node, role, detail, detailLines }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(code.value, forKey: .code)
        try container.encode(subcodes.map(\.value), forKey: .subcodes)
        try container.encode(reason, forKey: .reason)
        try container.encodeIfPresent(node, forKey: .node)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encode(detailLines, forKey: .detailLines)
    }
}

extension SOAPFault: MeaningfulError {
    /// By the fault's ``topic``: a security fault is ``/Failures/ErrorMeaning/credentials``; one in which the service says it failed may pass.
    public var meaning: ErrorMeaning {
        switch topic {
        case .authentication:
            .credentials
        case .addressing where wantsAddressingHeaders:
            ErrorMeaning(
                kind: .refused, status: .protocolError,
                hint: """
                    the service wants WS-Addressing headers: add "addressing": {"version": "1.0"} to the profile \
                    ("2004/08" for a service of that vintage)
                    """)
        case .addressing:
            ErrorMeaning(
                kind: .refused, status: .protocolError, hint: "the service did not accept the action: check the profile's soapAction")
        case .request:
            ErrorMeaning(
                kind: .refused, status: .protocolError, hint: "the service rejected the request; check the profile's body and parameters")
        case .service:
            ErrorMeaning(
                kind: .transient, status: .protocolError,
                hint: """
                    the service could not carry out the request; its reason says why (retry only if it is passing, or tell its operator)
                    """, isRetryable: true)
        case .other:
            ErrorMeaning(kind: .refused, status: .protocolError)
        }
    }
}
