import Foundation
import HTTPTypes
import Hummingbird

/// Every response gets the security headers; with a token, every request but
/// the login form's must show it as `Authorization: Bearer TOKEN`, or carry the
/// cookie of a live session the form started (``DashboardSessions``: a random
/// id, never the token). The token is compared in constant time and never logged.
struct AccessGuard: RouterMiddleware {
    typealias Context = DashboardContext
    static let cookieName = "hotelkit_dashboard"
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    let token: String?
    let hosts: HostCheck
    let sessions: DashboardSessions
    let throttle: LoginThrottle
    /// How a throttled login waits: `Task.sleep`, or a test's recorder.
    let pause: @Sendable (Duration) async throws -> Void
    var onResponse: (@Sendable (DashboardServer.Access) -> Void)?

    static let host = HTTPField.Name("Host")!
    static let origin = HTTPField.Name("Origin")!
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if !hosts.accepts(authority: Self.authority(of: request)) {
            response = Response(status: .misdirectedRequest, body: ResponseBody(byteBuffer: ByteBuffer(string: hosts.refusal)))
        } else if request.method == .post, let refusal = crossSite(request) {
            response = Response(status: .forbidden, body: ResponseBody(byteBuffer: ByteBuffer(string: refusal)))
        } else if let token, request.uri.path != "/login", !presents(token, in: request) {
            response =
                request.uri.path.hasPrefix("/api/")
                ? Response(
                    status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "a token is required\n")))
                : Response(status: .seeOther, headers: [.location: "/login"])
        } else {
            response = try await next(request, context)
        }
        // Blob URLs are the logos the page's own script fetched (so that it can abort them).
        response.headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' blob:"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        if let onResponse {
            let path = request.uri.path
            onResponse(
                DashboardServer.Access(
                    method: request.method.rawValue, path: path, status: response.status.code,
                    logo: path == "/logo" ? request.uri.queryParameters.get("url") : nil))
        }
        return response
    }

    /// Why a POST is refused as another site's, on top of its CSRF token: an `Origin` that is not one of the
    /// dashboard's names, or the browser's own `Sec-Fetch-Site: cross-site`. Nil when neither says so.
    /// `Origin: null` says nothing: Chromium sends it for the dashboard's own forms, whose pages ask for no referrer.
    private func crossSite(_ request: Request) -> String? {
        if request.headers[Self.fetchSite] == "cross-site" { return "a form of another site cannot post here\n" }
        if let origin = request.headers[Self.origin], origin != "null", !hosts.accepts(origin: origin) {
            return "a form of another origin (\(origin)) cannot post here\n"
        }
        return nil
    }

    /// Whether the request carries `token` as a bearer header, or the cookie of a live session.
    func presents(_ token: String, in request: Request) -> Bool {
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            return Self.constantTimeEqual(String(authorization.dropFirst("Bearer ".count)), token)
        }
        return Self.session(in: request).map(sessions.touch) ?? false
    }

    /// The session id the request's cookie carries, if any.
    static func session(in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName { return String(parts[1]) }
            }
        }
        return nil
    }

    /// The login form's POST: the right token starts a session, whose id the cookie carries (HttpOnly,
    /// SameSite=Strict, for the sessions' idle limit; Secure behind an `--allowed-host` proxy that says it spoke TLS).
    /// Failed ones are throttled per client address (``LoginThrottle``) and logged, never with what was typed.
    func logIn(_ request: Request, context: Context) async throws -> Response {
        guard let token else { return Response(status: .seeOther, headers: [.location: "/lists"]) }
        switch throttle.verdict(for: context.client) {
        case .refused(let retryAfter):
            return Response(
                status: .tooManyRequests, headers: [.retryAfter: String(retryAfter)],
                body: ResponseBody(
                    byteBuffer: ByteBuffer(string: "too many failed logins from this address: try again in \(retryAfter) s\n")))
        case .proceed(let delay):
            if delay > .zero { try await pause(delay) }
        }
        let given = try await Form(request)["token"] ?? ""
        guard Self.constantTimeEqual(given, token) else {
            let count = throttle.failed(context.client)
            context.logger.notice("dashboard: a failed login from \(context.client), \(count) in the last minute")
            return Page.login(failed: true)
        }
        let cookie =
            "\(Self.cookieName)=\(sessions.start()); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(sessions.idleLimit))"
            + (isSecure(request) ? "; Secure" : "")
        return Response(status: .seeOther, headers: [.location: "/lists", .setCookie: cookie])
    }

    /// `POST /logout`: the cookie's session ends, and the browser is told to drop the cookie.
    func logOut(_ request: Request) -> Response {
        if let id = Self.session(in: request) { sessions.end(id) }
        let cookie = "\(Self.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0" + (isSecure(request) ? "; Secure" : "")
        return Response(status: .seeOther, headers: [.location: token == nil ? "/lists" : "/login", .setCookie: cookie])
    }

    /// Whether the browser spoke TLS: to a proxy named by `--allowed-host` that says so in `X-Forwarded-Proto`.
    private func isSecure(_ request: Request) -> Bool {
        guard request.headers[Self.forwardedProto]?.lowercased() == "https",
            let authority = Self.authority(of: request)
        else { return false }
        return hosts.isProxy(authority: authority)
    }

    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    /// The host the request was sent to: HTTP/1's `Host`, which Hummingbird gives as the authority.
    private static func authority(of request: Request) -> String? {
        request.head.authority ?? request.headers[host]
    }

    /// Equal strings, in a time that depends on their lengths only.
    static func constantTimeEqual(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(expected.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count { difference |= (index < a.count ? a[index] : 0) ^ b[index] }
        return difference == 0
    }
}
