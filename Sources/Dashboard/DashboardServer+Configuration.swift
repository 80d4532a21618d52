import Failures
import Foundation
import HTTPTypes
import Hotels
import OfflineStore

extension DashboardServer {
    /// Where the dashboard listens and who may see it.
    public struct Configuration: Sendable {
        /// The address to bind: 127.0.0.1 by default. Any other needs a ``token``.
        public var host = "127.0.0.1"
        /// The port; 0 picks a free one.
        public var port = 8080
        /// The token a browser or script must show (a bearer header, or the
        /// login form's cookie). Nil: no token, which only loopback allows.
        public var token: String?
        /// Rows of a list per page, for the page and the API (at most 500 are given).
        public var pageSize = 100
        /// The filter chain (its description) whose logos the list pages show from the store's logo
        /// index, as `hotels fetch --logos --filter` or `hotels enqueue --logos --filter` stored them.
        public var logoFilter = ""
        /// Logos from the store's logo index only, as `hotels fetch --logos` left them: none is fetched.
        public var offline = false
        /// Host names the dashboard answers to besides its address and `localhost` (a reverse proxy's):
        /// a request under any other name gets 421 (`HostCheck`).
        public var allowedHosts: [String] = []
        /// How long a logged-in browser's session lasts without a request: 12 hours.
        public var sessionIdleLimit: TimeInterval = DashboardSessions.defaultIdleLimit
        /// The sessions' and the login throttle's clock: a test's virtual one.
        public var now: @Sendable () -> Date = { Date() }
        /// How a throttled login waits: a test's recorder instead.
        public var pause: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
        /// Told of every answered request: an access log.
        public var onResponse: (@Sendable (Access) -> Void)?

        public init(host: String = "127.0.0.1", port: Int = 8080, token: String? = nil, logoFilter: String = "") {
            self.host = host
            self.port = port
            self.token = token
            self.logoFilter = logoFilter
        }

        /// Whether `host` is a loopback address, where only this machine's users can connect.
        public var isLoopback: Bool {
            host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }

        /// The token in `file` (surrounding white space dropped), refused when others may read the file.
        public static func token(file: String) throws(CredentialsError) -> String {
            String(decoding: try Credentials.secretFile(file), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Refuses to serve a store's data and the queue's buttons to a network without a token.
        public func check() throws(DashboardError) {
            guard isLoopback || token != nil else { throw .tokenRequired(host: host) }
            if let token, token.count < 16 { throw .weakToken }
        }
    }
}

extension DashboardServer {
    /// One answered request, as an access log shows it.
    public struct Access: Sendable, Equatable, CustomStringConvertible {
        public var method: String
        /// The path, without its query: a search is the user's.
        public var path: String
        public var status: Int
        /// For `/logo`, the logo's URL, which says which rows' logos a browser
        /// asked for: as ``/OfflineStore/ShownURL`` shows it, since a supplier may sign its logo URLs.
        public var logo: String?

        public init(method: String, path: String, status: Int, logo: String? = nil) {
            self.method = method
            self.path = path
            self.status = status
            self.logo = logo.map(ShownURL.of)
        }

        /// The request ended before its answer: the client went away (a logo's row left the view).
        public var isCancelled: Bool { status == HTTPResponse.Status.clientClosedRequest.code }

        /// `GET /logo 200 https://…/logo/H000012.png`; `GET /logo cancelled …` for a request the client gave up.
        public var description: String { "\(method) \(path) \(isCancelled ? "cancelled" : String(status))" + (logo.map { " \($0)" } ?? "") }
    }
}

/// Why the dashboard will not start.
public enum DashboardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A non-loopback address without `--token-file`.
    case tokenRequired(host: String)
    /// A token too short to stand a guess.
    case weakToken
    /// `--filter` is not a filter chain.
    case badLogoFilter(String)

    public var description: String {
        switch self {
        case .tokenRequired(let host):
            "\(host) is not a loopback address: anyone who reaches it would see the store and change the queue without a token"
        case .weakToken:
            "the token is shorter than 16 characters"
        case .badLogoFilter(let reason):
            reason
        }
    }
}

extension DashboardError: MeaningfulError {
    /// Usage (64), with what to give instead.
    public var meaning: ErrorMeaning {
        let hint: String? =
            switch self {
            case .tokenRequired: "give --token-file FILE, or leave --host at 127.0.0.1 and reach it through an SSH tunnel"
            case .weakToken: "put 16 characters or more in the token file: openssl rand -hex 16 makes one"
            case .badLogoFilter: nil
            }
        return ErrorMeaning(kind: .usage, status: .usage, hint: hint)
    }
}

extension HTTPResponse.Status {
    /// nginx's 499: the client closed the connection before the answer. Logged, never sent: nobody is there.
    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
}
