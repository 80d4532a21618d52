import Failures
import Foundation
import HTTP
import Locking
import SOAP

/// Where `{env:NAME}` placeholders get their values: the environment, a
/// credentials file, or (in tests) a dictionary.
public struct Credentials: Sendable {
    public var values: [String: String]

    public init(_ values: [String: String]) {
        self.values = values
    }

    /// The process's environment.
    public static var environment: Credentials { Credentials(ProcessInfo.processInfo.environment) }

    /// Whether the credential named `name` is a secret, redacted from every
    /// output: all but those whose name says they identify someone
    /// (`…_USER`, `…_USERNAME`, `…_LOGIN`, `…_PCC`, `…_OFFICE`, `…_BRANCH`,
    /// `…_ORGANIZATION`, `…_DOMAIN`). A user name is what a vendor's support
    /// desk asks for in a dump, and replacing it everywhere would also
    /// replace the same text elsewhere (a city that happens to match it).
    public static func isSecret(_ name: String) -> Bool {
        let last = name.split(separator: "_").last.map { $0.uppercased() } ?? ""
        return !["USER", "USERNAME", "USERID", "LOGIN", "PCC", "OFFICE", "BRANCH", "ORGANIZATION", "DOMAIN"].contains(last)
    }

    /// The environment, with a credentials file's keys over it. The file is
    /// a JSON object of strings, and is refused when others may read it.
    public static func environment(overlaidWith file: String) throws(CredentialsError) -> Credentials {
        var values = ProcessInfo.processInfo.environment
        let data = try secretFile(file)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CredentialsError(file: file, reason: "is not a JSON object of strings")
        }
        for (key, value) in object {
            guard let text = value as? String else { throw CredentialsError(file: file, reason: "“\(key)” is not a string") }
            values[key] = text
        }
        return Credentials(values)
    }

    /// The bytes of a file that holds a secret (credentials, a token), refused when others may read it.
    public static func secretFile(_ file: String) throws(CredentialsError) -> Data {
        let attributes: [FileAttributeKey: Any]
        do {
            // The file a link points to is the one others could read.
            attributes = try FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: file).resolvingSymlinksInPath().path)
        } catch {
            throw CredentialsError(file: file, reason: "cannot be read (\(error.localizedDescription))")
        }
        if let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 != 0 {
            throw CredentialsError(file: file, reason: String(format: "may be read by others (mode %o): chmod 600 it", permissions & 0o777))
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw CredentialsError(file: file, reason: "cannot be read") }
        return data
    }
}

/// A credentials file that cannot be used.
public struct CredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var reason: String
    public var description: String { "credentials file \(file) \(reason)" }
}

/// The profile needs credentials that are not set.
public struct MissingCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var profile: String
    public var names: [String]

    public init(profile: String, names: [String]) {
        self.profile = profile
        self.names = names
    }

    public var description: String {
        "profile \(profile) needs " + names.map { "{env:\($0)}" }.joined(separator: ", ")
            + ": export " + names.map { "\($0)=…" }.joined(separator: " ") + ", or put them in a --credentials file"
    }
}

/// The secrets one client has used (credentials, their encodings, session
/// tokens and ids), and the redaction that keeps them out of every output:
/// logs, errors, dumps and summaries.
///
/// Values are added as they become known, so a session token captured from
/// a reply is redacted from then on, everywhere.
public final class SecretRedactor: Sendable {
    /// Longest first, so a secret that contains another is replaced whole.
    private let secrets = PosixMutex<[String]>([])

    public static let mask = "‹redacted›"

    public init() {}

    public func add(_ secret: String) {
        guard !secret.isEmpty else { return }
        secrets.withLock { list in
            guard !list.contains(secret) else { return }
            list.append(secret)
            // XML escaping may stand between a secret and the text that carries it.
            let escaped = XMLEscaping.escape(secret)
            if escaped != secret, !list.contains(escaped) { list.append(escaped) }
            list.sort { $0.count > $1.count }
        }
    }

    public var isEmpty: Bool { secrets.withLock { $0.isEmpty } }

    /// `text` with every secret replaced by ``mask``, and the content of
    /// every WS-Security `Password` element, whatever it holds (a digest is
    /// made anew for each request, so it is never in the list).
    public func redact(_ text: String) -> String {
        let list = secrets.withLock { $0 }
        var result = text
        if text.contains(":Password") || text.contains("<Password") {
            // `<wsse:Password Type="…">…</wsse:Password>`: the opening tag, the content, the closing tag.
            let element = /(<(?:[\w.-]+:)?Password\b[^>]*>)([^<]*)(<\/(?:[\w.-]+:)?Password>)/
            result = text.replacing(element) { match in match.1 + Self.mask + match.3 }
        }
        for secret in list where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.mask)
        }
        return result
    }

    /// The same for bytes; bytes that are not UTF-8 are redacted as decoded with replacements.
    public func redact(_ bytes: [UInt8]) -> [UInt8] {
        return Array(redact(String(decoding: bytes, as: UTF8.self)).utf8)
    }

    /// An error with every secret in its text redacted, of the same type where HotelKit knows it.
    public func redact(_ error: any Error) -> any Error {
        switch error {
        case var fault as SOAPFault:
            fault.reasons = fault.reasons.map { SOAPFault.Reason(text: redact($0.text), language: $0.language) }
            fault.detail = fault.detail.map(redact)
            fault.detailLines = fault.detailLines.map(redact)
            fault.node = fault.node.map(redact)
            fault.role = fault.role.map(redact)
            return fault
        case var reported as ServiceReportedError:
            reported.message = redact(reported.message)
            return reported
        case let transport as TransportError:
            if case .httpStatus(let status, let snippet) = transport { return TransportError.httpStatus(status, snippet: redact(snippet)) }
            if case .retryLater(let status, let after, let snippet) = transport {
                return TransportError.retryLater(status: status, after: after, snippet: redact(snippet))
            }
            return transport
        default:
            let text = "\(error)"
            let redacted = redact(text)
            return redacted == text ? error : RedactedError(description: redacted, meaning: ErrorMeaning(error))
        }
    }
}

/// An error whose text held a secret, as text with the secret redacted, and
/// the meaning of that error: redacting its text does not change what it means.
public struct RedactedError: MeaningfulError, Sendable, CustomStringConvertible {
    public var description: String
    public var meaning: ErrorMeaning
}

extension MissingCredentialsError: MeaningfulError {
    /// Configuration (78): a variable to set.
    public var meaning: ErrorMeaning { ErrorMeaning(kind: .configuration, status: .config) }
}

extension CredentialsError: MeaningfulError {
    /// Configuration (78): a credentials file to fix.
    public var meaning: ErrorMeaning { ErrorMeaning(kind: .configuration, status: .config) }
}
