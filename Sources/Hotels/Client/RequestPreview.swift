import Foundation
import HTTP

/// The requests a profile would send, as text for a person to read: the
/// session's login (if it has one), then the first page, placeholders filled
/// and every secret masked. What `hotels profile check` prints.
public struct RequestPreview: Sendable {
    /// The credentials the profile uses that were not given: filled with a stand-in, and masked like the rest.
    public private(set) var unsetCredentials: [String] = []
    public private(set) var text = ""

    /// - Throws: ``RequestBuildError`` (secrets redacted) when a request cannot be built.
    public init(profile: ServiceProfile, endpoint: String, credentials: Credentials, parameters: RequestParameters) throws {
        let secrets = SecretRedactor()
        var filled = credentials
        for name in profile.credentialNames.sorted() where filled.values[name] == nil {
            unsetCredentials.append(name)
            filled.values[name] = "unset-\(name)"
        }
        let builder = RequestBuilder(profile: profile, endpoint: endpoint, credentials: filled, secrets: secrets)
        var lines = [
            "profile \(profile.name): ok; record \(profile.record ?? "none (no hotels)"), \(profile.fields.count + profile.joins.count) fields, "
                + "paging \(profile.paging.name)"
        ]
        lines += profile.notes.map { "note: \($0)" }
        do {
            if profile.session?.login != nil {
                lines += ["", "# the session's login, sent first"] + Self.lines(try builder.request(.login), secrets: secrets)
            }
            lines += ["", "# the first page" + (profile.session == nil ? "" : " (session values are empty until the service gives them)")]
            // As the client sends it: in a new session, or in the one the login started.
            let session = profile.session.map { options in
                var session = SessionState(id: 1)
                if options.login != nil { session.answered() }
                return session
            }
            lines += Self.lines(try builder.request(.page(parameters), session: session), secrets: secrets)
        } catch {
            throw secrets.redact(error)
        }
        text = lines.joined(separator: "\n")
    }

    private static func lines(_ request: HTTPRequest, secrets: SecretRedactor) -> [String] {
        // The builder registered every credential it used, encoded ones (Basic) included.
        ["POST \(request.url)"] + request.headers.map { "\($0.name): \(secrets.redact($0.value))" }
            + ["", secrets.redact(String(decoding: request.body ?? [], as: UTF8.self))]
    }
}

extension ServiceProfile.Paging {
    /// `none`, `page`, `cursor` or `flag`, as a profile names it.
    public var name: String {
        switch self {
        case .none: "none"
        case .page: "page"
        case .cursor: "cursor"
        case .flag: "flag"
        }
    }
}
