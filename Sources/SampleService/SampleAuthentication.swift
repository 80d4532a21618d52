import Crypto
import Foundation
import Locking
import SOAP

/// What `hotels serve --auth` demands of every SOAP request.
public enum SampleAuthentication: Sendable, Equatable {
    /// HTTP Basic: a missing or wrong `Authorization` is answered 401.
    case basic(user: String, password: String)
    /// A WS-Security UsernameToken, the password as text or as the standard
    /// digest (with a Nonce never seen before and a Created within five
    /// minutes); mistakes get the WS-Security faults.
    case usernameToken(user: String, password: String, digest: Bool)

    /// `basic:USER:PASS`, `wsse:USER:PASS` or `wsse:USER:PASS:digest`.
    public init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("basic", 3) where !parts[1].isEmpty:
            self = .basic(user: parts[1], password: parts[2])
        case ("wsse", 3) where !parts[1].isEmpty:
            self = .usernameToken(user: parts[1], password: parts[2], digest: false)
        case ("wsse", 4) where !parts[1].isEmpty && parts[3] == "digest":
            self = .usernameToken(user: parts[1], password: parts[2], digest: true)
        default:
            return nil
        }
    }
}

/// The parts of a request's `wsse:Security/UsernameToken`, as sent.
struct UsernameTokenParts: Sendable {
    var username: String?
    var password: String?
    var passwordType: String?
    var nonce: String?
    var created: String?
}

/// Reads the UsernameToken out of a request's SOAP Header.
final class SecurityHeaderReader: XMLEventHandler {
    private(set) var token: UsernameTokenParts?
    private(set) var sawSecurity = false
    private var open: [String] = []
    private var text = ""

    func startElement(_ element: XMLStartElement) throws {
        open.append(element.localName.string)
        text = ""
        switch element.localName.string {
        case "Security": sawSecurity = true
        case "UsernameToken": token = UsernameTokenParts()
        case "Password": token?.passwordType = element.attributes.first { $0.localName == "Type" }?.value
        default: break
        }
    }

    func endElement(_ localName: XMLName) throws {
        if open.dropLast().last == "UsernameToken" {
            switch localName.string {
            case "Username": token?.username = text
            case "Password": token?.password = text
            case "Nonce": token?.nonce = text
            case "Created": token?.created = text
            default: break
            }
        }
        open.removeLast()
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        text += String(decoding: bytes, as: UTF8.self)
    }
}

/// Checks a request against ``SampleAuthentication``, remembering nonces.
final class SampleAuthenticator: Sendable {
    let authentication: SampleAuthentication?
    /// Nonces seen within the last five minutes (the window a Created may be in).
    private let nonces = PosixMutex<[String: Date]>([:])

    init(_ authentication: SampleAuthentication?) {
        self.authentication = authentication
    }

    /// The HTTP Basic check: nil when the request may go on.
    func refusesHTTP(authorization: String?) -> Bool {
        guard case .basic(let user, let password) = authentication else { return false }
        return authorization != "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The WS-Security check, with the standard fault for each mistake.
    func check(_ token: UsernameTokenParts?, sawSecurity: Bool, now: Date = Date()) throws(SampleFault) {
        guard case .usernameToken(let user, let password, let digest) = authentication else { return }
        guard sawSecurity, let token, let username = token.username, let sent = token.password else {
            throw SampleFault.security("InvalidSecurity", "An error was discovered processing the <wsse:Security> header")
        }
        guard username == user else {
            throw SampleFault.security("FailedAuthentication", "The security token could not be authenticated or authorized")
        }
        guard digest else {
            guard sent == password, token.passwordType?.hasSuffix("#PasswordDigest") != true else {
                throw SampleFault.security("FailedAuthentication", "The security token could not be authenticated or authorized")
            }
            return
        }
        guard token.passwordType?.hasSuffix("#PasswordDigest") == true, let nonceText = token.nonce,
            let nonce = Data(base64Encoded: nonceText), let created = token.created
        else {
            throw SampleFault.security("InvalidSecurityToken", "An invalid security token was provided")
        }
        guard let date = Self.date(created), abs(date.timeIntervalSince(now)) <= 300 else {
            throw SampleFault.security("MessageExpired", "The message has expired")
        }
        let expected = Data(Insecure.SHA1.hash(data: nonce + Data(created.utf8) + Data(password.utf8))).base64EncodedString()
        guard sent == expected else {
            throw SampleFault.security("FailedAuthentication", "The security token could not be authenticated or authorized")
        }
        let replayed = nonces.withLock { seen in
            seen = seen.filter { now.timeIntervalSince($0.value) <= 300 }
            return seen.updateValue(now, forKey: nonceText) != nil
        }
        if replayed { throw SampleFault.security("InvalidSecurity", "A replay attack has been detected") }
    }

    private static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
}
