import Failures
import Foundation
import HTTP
import Logging
import SOAP

/// The entry point for one hotel service: asks for pages through the
/// service's profile, streams each response through the parser, and retries
/// what can be retried.
///
/// ```swift
/// let client = HotelClient(profile: try .named("sample"), endpoint: "http://127.0.0.1:8080/soap")
/// for try await page in client.pages(city: "Paris") {
///     print(page.number, page.hotels.count)
/// }
/// ```
public struct HotelClient: Sendable {
    public let profile: ServiceProfile
    public let endpoint: String
    public let configuration: HotelClientConfiguration
    /// Every secret this client has used; see ``SecretRedactor``.
    public let secrets: SecretRedactor
    /// Builds each call's request; its clock, nonces and UUIDs can be fixed in tests.
    public var requests: RequestBuilder
    /// The sessions of a stateful service.
    let sessions: SessionPool?

    public init(profile: ServiceProfile, endpoint: String, configuration: HotelClientConfiguration = HotelClientConfiguration()) {
        self.profile = profile
        self.endpoint = endpoint
        self.configuration = configuration
        let secrets = SecretRedactor()
        self.secrets = secrets
        requests = RequestBuilder(profile: profile, endpoint: endpoint, credentials: configuration.credentials, secrets: secrets)
        for warning in profile.warnings { configuration.logger.warning("profile \(profile.name): \(warning)") }
        sessions = profile.session.map { options in
            let starter = SessionStarter(options: options, endpoint: endpoint, credentials: configuration.credentials, secrets: secrets)
            return SessionPool(size: options.poolSize) { id in starter.session(id: id) }
        }
    }

    /// Every page of a list, in order, each asked for once. The sequence owns
    /// its ``Pager``: it ends at the list's end (a short page, the end
    /// marker, no or a repeated cursor) or after `maxPages`, and resumes
    /// after `checkpoint` when one is given. Cancelling the consuming task
    /// aborts the transfer in flight.
    ///
    /// An error is thrown from `next()`; the page it was for was not
    /// received, so calling `next()` again asks for that same page again.
    public func pages(
        city: String?, keyword: String? = nil, area: SearchArea? = nil, pageSize: Int = 50,
        resumingFrom checkpoint: Pager.Checkpoint? = nil, maxPages: Int? = nil
    ) -> HotelPages {
        let pager =
            checkpoint.map { Pager(paging: profile.paging, pageSize: pageSize, resuming: $0) }
            ?? Pager(paging: profile.paging, pageSize: pageSize)
        return HotelPages(client: self, city: city, keyword: keyword, area: area, pager: pager, maxPages: maxPages)
    }

    /// One page. Throws ``/SOAP/SOAPFault``, ``ServiceReportedError``, ``/HTTP/TransportError``
    /// (``/HTTP/TransportError/httpStatus(_:snippet:)`` for a non-SOAP error page),
    /// ``/SOAP/NotSOAPEnvelopeError`` or ``/SOAP/XMLReaderError``.
    ///
    /// Under a session, the call runs in one of the pool's sessions, which it
    /// logs in first if need be; a fault the profile names as expiry starts
    /// a new session and asks once more.
    public func page(_ parameters: RequestParameters, context: String = "") async throws -> HotelPage {
        try await page(parameters, context: context, preferringSession: nil, hold: nil).page
    }

    /// Whether a list's later pages (more rows, echo tokens) exist only in the
    /// session that ran its search: a stateful service's, paged by flag or cursor.
    var pagingLivesInSession: Bool {
        guard profile.session != nil else { return false }
        switch profile.paging {
        case .flag, .cursor: return true
        case .page, .none: return false
        }
    }

    /// One page of a list: in the session `hold` keeps for it, when there is one.
    /// When `continuesSearch` (a later page of paging that lives in the
    /// session) and the session expires, the call is not asked again in the
    /// new session, where it would mean nothing: ``SearchSessionRenewed`` is thrown.
    func page(
        _ parameters: RequestParameters, context: String, preferringSession: Int?, hold: SessionPool.Hold?,
        continuesSearch: Bool = false
    ) async throws -> (page: HotelPage, session: Int?) {
        do {
            guard let sessions else { return (try await exchangePage(parameters, context: context, session: nil).page, nil) }
            var session = await sessions.lease(preferring: preferringSession)
            do {
                let page = try await inSession(&session, pool: sessions, context: context, retriesAfterRenewal: !continuesSearch) {
                    session in
                    let (page, state) = try await exchangePage(parameters, context: context, session: session)
                    session = state ?? session
                    return page
                }
                await sessions.giveBack(session, heldFor: hold?.id)
                return (page, session.id)
            } catch {
                // A failed page is asked for again in the same session: the hold stays.
                await sessions.giveBack(session, heldFor: hold?.id)
                throw error
            }
        } catch {
            throw secrets.redact(error)
        }
    }

    /// Logs every session out: call it when the work ends, fails or is
    /// interrupted. A logout that fails is logged, not thrown.
    public func close() async {
        guard let sessions, let logout = profile.session?.logout else { return }
        for var session in await sessions.closeAll() {
            do {
                _ = try await exchangeSessionCall(.logout, operation: logout, session: &session, context: "session \(session.id) logout")
                configuration.logger.info("session \(session.id): logged out after \(session.calls) calls")
            } catch {
                configuration.logger.warning("session \(session.id): logout failed: \(secrets.redact(error))")
            }
        }
    }

    /// Runs `call` in `session`, logging in first if it has not started; a
    /// fault that means the session expired gets a new session and one more try.
    private func inSession<T>(
        _ session: inout SessionState, pool: SessionPool, context: String, retriesAfterRenewal: Bool = true,
        _ call: (inout SessionState) async throws -> T
    ) async throws -> T {
        do {
            try await loginIfNeeded(&session)
            return try await call(&session)
        } catch let fault as SOAPFault where sessionExpired(fault) {
            configuration.logger.notice("\(context): session \(session.id) expired (\(secrets.redact(fault))); starting a new one")
            session = await pool.fresh(replacing: session)
            try await loginIfNeeded(&session)
            guard retriesAfterRenewal else { throw SearchSessionRenewed() }
            return try await call(&session)
        }
    }

    private func loginIfNeeded(_ session: inout SessionState) async throws {
        guard session.isStarting, let login = profile.session?.login else { return }
        _ = try await exchangeSessionCall(.login, operation: login, session: &session, context: "session \(session.id) login")
        configuration.logger.info("session \(session.id): logged in")
    }

    func sessionExpired(_ fault: SOAPFault) -> Bool {
        guard let expired = profile.session?.expiredFaults, !expired.isEmpty else { return false }
        let codes = ([fault.code] + fault.subcodes).map(\.localName)
        return expired.contains { name in codes.contains(name) || codes.contains { $0.hasSuffix("." + name) } || fault.reason.contains(name)
        }
    }

    /// One page: its request, the transfer streamed into the parser, retries;
    /// with the session as it is after the call.
    private func exchangePage(
        _ parameters: RequestParameters, context: String,
        session: SessionState?
    ) async throws -> (page: HotelPage, session: SessionState?) {
        let parser = HotelResponseParser(profile: profile, limits: configuration.limits, warningsPerKind: configuration.warningsPerKind)
        var (page, exchange) = try await configuration.retry.run(logger: configuration.logger, context: context, isRetryable: isRetryable) {
            // Built for each attempt: a retry carries a fresh nonce, a new MessageID.
            let request = try requests.request(.page(parameters), session: session)
            let sink = try PageSink(parser: parser, keepsBody: configuration.exchangeLog != nil)
            var head: HTTPResponseHead?
            do {
                head = try await configuration.transport.send(request, into: sink)
                return (try sink.page(status: head?.status ?? 0), Exchange(request: request, head: head, body: sink.body))
            } catch let failure {
                let error = (failure as? TransportError)?.honouringRetryAfter(head) ?? failure
                record(context, Exchange(request: request, head: head, body: sink.body), error: error)
                throw secrets.redact(error)
            }
        }
        var state = session
        if var current = state {
            current.answered()
            capture(SessionValues.captured(in: page.headerValues), into: &current)
            state = current
        }
        // Recorded once the reply's new secrets are known, so they are redacted too.
        record(context, exchange, error: nil)
        page.headerValues = SessionValues.withoutSession(page.headerValues)
        return (page, state)
    }

    /// A login or logout: its reply's captured values, from Header and Body.
    private func exchangeSessionCall(
        _ call: RequestBuilder.Call, operation: SessionOptions.Operation, session: inout SessionState,
        context: String
    ) async throws -> [String: String] {
        let captures = profile.session?.capture ?? [:]
        let current = session
        let (values, exchange) = try await configuration.retry.run(logger: configuration.logger, context: context, isRetryable: isRetryable)
        {
            let request = try requests.request(call, session: current)
            let (head, body) = try await configuration.transport.data(for: request)
            let exchange = Exchange(request: request, head: head, body: body)
            let reader = try SOAPResponseReader(limits: configuration.limits, envelope: profile.envelope) { names in
                SessionReplyReader(captures: captures, names: names)
            }
            do {
                try reader.feed(body)
                try reader.finish()
                guard (200..<300).contains(head.status) else { throw TransportError.httpStatus(head.status, snippet: "") }
            } catch {
                record(context, exchange, error: error)
                if error is SOAPFault || (200..<300).contains(head.status) { throw secrets.redact(error) }
                throw TransportError.httpStatus(head.status, snippet: secrets.redact(String(decoding: body.prefix(160), as: UTF8.self)))
                    .honouringRetryAfter(head)
            }
            return (reader.body.values, exchange)
        }
        session.answered()
        capture(values, into: &session)
        record(context, exchange, error: nil)
        return values
    }

    private func capture(_ values: [String: String], into session: inout SessionState) {
        let publicValues = profile.session?.publicValues ?? []
        for (name, value) in values {
            if !publicValues.contains(name) { secrets.add(value) }
            session.captured[name] = value
        }
    }

    /// A request and what came back, for the ``ExchangeLog``.
    private struct Exchange: Sendable {
        var request: HTTPRequest
        var head: HTTPResponseHead?
        var body: [UInt8]
    }

    private func record(_ context: String, _ exchange: Exchange, error: (any Error)?) {
        guard let log = configuration.exchangeLog else { return }
        log.record(
            RecordedExchange(
                call: context, request: exchange.request, responseHead: exchange.head, responseBody: exchange.body,
                error: error, secrets: secrets))
    }

    /// Whether a failed page is worth asking for again: the network, or a
    /// fault the profile calls transient. Any other fault is the service's
    /// final answer: a permanent `Server.Security` fault, say, or a schema
    /// validation fault that a .NET service reports as `Receiver`.
    public func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case let error as TransportError: error.isRetryable
        case let fault as SOAPFault: ([fault.code] + fault.subcodes).contains { profile.transientFaults.contains($0.localName) }
        default: false
        }
    }
}

/// The session of a list's search expired: the list must run the search again
/// in the new session before it can go on (``HotelPages``).
struct SearchSessionRenewed: Error, CustomStringConvertible {
    var description: String { "the session expired while the list's search was being run again in a new one" }
}

/// A stateful service ended the session again while a list's search was
/// being run again in a new one (its "more" rows live in the session that
/// ran the search). The list stops there with its pages kept; the next run
/// resumes. If it happens every time, the service's sessions last less than
/// the list takes.
public struct SessionExpiredDuringSearch: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pages the list had when its search was run again.
    public var pages: Int

    public init(pages: Int) {
        self.pages = pages
    }

    public var description: String {
        "the session expired again while the list's search was being run again in a new session (the list had \(pages) pages)"
    }
}

extension SessionExpiredDuringSearch: MeaningfulError {
    /// Transient: the next run resumes from the last stored page.
    public var meaning: ErrorMeaning {
        ErrorMeaning(
            kind: .transient, status: .protocolError,
            hint: """
                the service ended its session twice during this list; the next run resumes from the last stored page. \
                If it happens every time, its sessions last less than the list takes: a larger --page-size needs fewer calls
                """, isRetryable: true)
    }
}
