import Foundation
import HTTP
import Logging
import SOAP

/// How a ``HotelClient`` talks to its service. Every default is usable as is.
public struct HotelClientConfiguration: Sendable {
    /// How requests travel: libcurl by default; an in-memory fake in tests.
    public var transport: any HTTPClient
    /// Caps on every response: depth 128, one text 1 MiB, the document 256 MiB.
    public var limits: XMLReaderLimits
    /// Network errors, timeouts and HTTP 5xx without a fault are retried 3
    /// times with backoff. A SOAP fault is the service's answer and is not
    /// retried, unless the profile names its code in `transientFaults`.
    public var retry: RetryPolicy
    /// Retries and record warnings are logged here as warnings.
    public var logger: Logger
    /// Record warnings of each kind logged per list, 10 by default; then one
    /// line says how many more there were. Nil logs every one.
    public var warningsPerKind: Int?
    /// Where `{env:NAME}` placeholders are read: the environment by default.
    public var credentials: Credentials
    /// Receives every request and response, secrets redacted (`hotels fetch --dump`).
    public var exchangeLog: (any ExchangeLog)?

    public init(transport: any HTTPClient = HTTPTransport(), limits: XMLReaderLimits = XMLReaderLimits(),
                retry: RetryPolicy = RetryPolicy(), logger: Logger = Logger(label: "hotelkit.client"), warningsPerKind: Int? = 10,
                credentials: Credentials = .environment, exchangeLog: (any ExchangeLog)? = nil) {
        self.transport = transport
        self.limits = limits
        self.retry = retry
        self.logger = logger
        self.warningsPerKind = warningsPerKind
        self.credentials = credentials
        self.exchangeLog = exchangeLog
    }
}

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
    public func pages(city: String?, keyword: String? = nil, area: SearchArea? = nil, pageSize: Int = 50,
                      resumingFrom checkpoint: Pager.Checkpoint? = nil, maxPages: Int? = nil) -> HotelPages {
        let pager = checkpoint.map { Pager(paging: profile.paging, pageSize: pageSize, resuming: $0) }
            ?? Pager(paging: profile.paging, pageSize: pageSize)
        return HotelPages(client: self, city: city, keyword: keyword, area: area, pager: pager, maxPages: maxPages)
    }

    /// One page. Throws ``SOAPFault``, ``ServiceReportedError``, ``TransportError``
    /// (``TransportError/httpStatus(_:snippet:)`` for a non-SOAP error page),
    /// ``NotSOAPEnvelopeError`` or ``XMLReaderError``.
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
    func page(_ parameters: RequestParameters, context: String, preferringSession: Int?, hold: SessionPool.Hold?,
              continuesSearch: Bool = false) async throws -> (page: HotelPage, session: Int?) {
        do {
            guard let sessions else { return (try await exchangePage(parameters, context: context, session: nil).page, nil) }
            var session = await sessions.lease(preferring: preferringSession)
            do {
                let page = try await inSession(&session, pool: sessions, context: context, retriesAfterRenewal: !continuesSearch) { session in
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
    private func inSession<T>(_ session: inout SessionState, pool: SessionPool, context: String, retriesAfterRenewal: Bool = true,
                              _ call: (inout SessionState) async throws -> T) async throws -> T {
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
        return expired.contains { name in codes.contains(name) || codes.contains { $0.hasSuffix("." + name) } || fault.reason.contains(name) }
    }

    /// One page: its request, the transfer streamed into the parser, retries;
    /// with the session as it is after the call.
    private func exchangePage(_ parameters: RequestParameters, context: String,
                              session: SessionState?) async throws -> (page: HotelPage, session: SessionState?) {
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
    private func exchangeSessionCall(_ call: RequestBuilder.Call, operation: SessionOptions.Operation, session: inout SessionState,
                                     context: String) async throws -> [String: String] {
        let captures = profile.session?.capture ?? [:]
        let current = session
        let (values, exchange) = try await configuration.retry.run(logger: configuration.logger, context: context, isRetryable: isRetryable) {
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
        log.record(RecordedExchange(call: context, request: exchange.request, responseHead: exchange.head, responseBody: exchange.body,
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

/// A page as the list's sequence delivers it: the records, and where paging stands after it.
public struct FetchedPage: Sendable, Equatable {
    /// 1 for the list's first page; a resumed sequence goes on counting from its checkpoint.
    public var number: Int
    public var hotels: [Hotel]
    /// The first warnings of each kind (``HotelClientConfiguration/warningsPerKind``).
    public var warnings: [RecordWarning]
    /// Every warning by kind, delivered or not.
    public var warningsByKind: [String: Int]
    /// The profile's header values this response gave: a session's token, say.
    public var headerValues: [String: String]
    /// Where "load more" stands after this page: store it to resume later.
    public var checkpoint: Pager.Checkpoint
    /// Why the list ended with this page, or nil when more pages follow.
    public var end: Pager.End?
}

/// The pages of one list; see ``HotelClient/pages(city:keyword:area:pageSize:resumingFrom:maxPages:)``.
public struct HotelPages: AsyncSequence, Sendable {
    public typealias Element = FetchedPage
    let client: HotelClient
    let city: String?
    let keyword: String?
    let area: SearchArea?
    let pager: Pager
    let maxPages: Int?

    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: self, pager: pager)
    }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let pages: HotelPages
        /// Where paging stands: the page numbers and cursors already used.
        public private(set) var pager: Pager
        private var fetched = 0
        /// The session the last page was asked for in: paging stays in it,
        /// and `hold` keeps other lists out of it until the list ends.
        private var session: Int?
        private var hold: SessionPool.Hold?
        /// Warnings logged so far, and all of them, by kind, for the cap across pages.
        private var logged: [String: Int] = [:]
        private var occurred: [String: Int] = [:]

        init(pages: HotelPages, pager: Pager) {
            self.pages = pages
            self.pager = pager
        }

        public mutating func next() async throws -> FetchedPage? {
            do {
                return try await nextPage()
            } catch is SearchSessionRenewed {
                // The first expiry is met in nextPage; this one came while the search was being run again.
                throw SessionExpiredDuringSearch(pages: pager.pagesRequested)
            }
        }

        private mutating func nextPage() async throws -> FetchedPage? {
            guard fetched < (pages.maxPages ?? .max),
                  var parameters = pager.nextRequest(city: pages.city, keyword: pages.keyword, area: pages.area) else {
                logSuppressedWarnings()
                return nil
            }
            if hold == nil, let pool = pages.client.sessions { hold = await pool.hold() }
            let livesInSession = pages.client.pagingLivesInSession
            // A resumed list's search ran in a session of an earlier run: run it again first.
            if livesInSession, session == nil, pager.pagesRequested > 0 {
                guard let next = try await searchAgain(reason: "its search ran in an earlier session") else { return try await self.next() }
                parameters = next
            }
            let number = pager.pagesRequested + 1
            let page: HotelPage
            do {
                (page, session) = try await pages.client.page(parameters, context: "page \(number)", preferringSession: session, hold: hold,
                                                              continuesSearch: livesInSession && pager.pagesRequested > 0)
            } catch is SearchSessionRenewed {
                guard let next = try await searchAgain(reason: "its session expired") else { return try await self.next() }
                (page, session) = try await pages.client.page(next, context: "page \(number)", preferringSession: session, hold: hold,
                                                              continuesSearch: true)
            }
            log(page.warnings, of: number)
            if let hint = page.noRecordsHint { pages.client.configuration.logger.warning("page \(number): \(hint)") }
            occurred.merge(page.warningsByKind, uniquingKeysWith: +)
            fetched += 1
            pager.received(page)
            if let held = hold, pager.end != nil || fetched >= (pages.maxPages ?? .max) {
                await pages.client.sessions?.release(holder: held.id)
                hold = nil
            }
            if pager.end == .noNewRecords {
                pages.client.configuration.logger.warning(
                    "page \(number) brought no hotel that earlier pages had not: the service seems to ignore the profile's paging parameter; stopped here")
            }
            return FetchedPage(number: number, hotels: page.hotels, warnings: page.warnings, warningsByKind: page.warningsByKind,
                               headerValues: page.headerValues, checkpoint: pager.checkpoint, end: pager.end)
        }

        /// Asks for the pages this list has had again, in its current
        /// session, without delivering them: a stateful service's later pages
        /// exist only in the session that ran the search. Returns the request
        /// for the page after them.
        private mutating func searchAgain(reason: String) async throws -> RequestParameters? {
            let target = pager.pagesRequested
            pages.client.configuration.logger.notice("the list's next page lives in its search's session, and \(reason): asking its \(target) pages again")
            var replay = Pager(paging: pager.paging, pageSize: pager.pageSize)
            while replay.pagesRequested < target, let parameters = replay.nextRequest(city: pages.city, keyword: pages.keyword, area: pages.area) {
                let (page, session) = try await pages.client.page(parameters, context: "page \(replay.pagesRequested + 1), again",
                                                                  preferringSession: session, hold: hold,
                                                                  continuesSearch: replay.pagesRequested > 0)
                self.session = session
                replay.received(page)
            }
            pager = replay
            return pager.nextRequest(city: pages.city, keyword: pages.keyword, area: pages.area)
        }

        private mutating func log(_ warnings: [RecordWarning], of page: Int) {
            let cap = pages.client.configuration.warningsPerKind ?? .max
            for warning in warnings where logged[warning.kind, default: 0] < cap {
                logged[warning.kind, default: 0] += 1
                pages.client.configuration.logger.warning("page \(page): \(warning)")
            }
        }

        /// One line per kind that passed its cap: how many were not logged.
        private mutating func logSuppressedWarnings() {
            for kind in RecordWarning.kinds {
                let more = occurred[kind, default: 0] - logged[kind, default: 0]
                if more > 0 { pages.client.configuration.logger.warning("\(more) more \(kind) warnings") }
            }
            occurred = [:]
            logged = [:]
        }
    }
}

/// Feeds a response into a parse session as it arrives. A parse error is
/// kept, not thrown, so the transfer ends normally and its status is known:
/// an HTML error page is reported as its HTTP status.
private final class PageSink: HTTPBodySink {
    private var hotels: [Hotel] = []
    private var warnings: [RecordWarning] = []
    private var session: HotelParseSession!
    private var failure: (any Error)?
    private var snippet: [UInt8] = []
    /// The whole response, kept only for an ``ExchangeLog``.
    private let keepsBody: Bool
    private(set) var body: [UInt8] = []

    init(parser: HotelResponseParser, keepsBody: Bool = false) throws {
        self.keepsBody = keepsBody
        session = try parser.session(
            onRecord: { [unowned self] in self.hotels.append($0) },
            onWarning: { [unowned self] in self.warnings.append($0) }
        )
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        if keepsBody { body.append(contentsOf: bytes) }
        if snippet.count < 300 { snippet.append(contentsOf: bytes.prefix(300 - snippet.count)) }
        guard failure == nil else { return }
        do {
            try session.feed(bytes)
        } catch {
            failure = error
        }
    }

    func page(status: Int) throws -> HotelPage {
        do {
            if let failure { throw failure }
            // Records can still arrive while the session finishes (a short response is parsed then).
            let summary = try session.finish()
            return HotelPage(hotels: hotels, warnings: warnings, summary: summary)
        } catch let fault as SOAPFault {
            throw fault // a fault is a fault, whatever the status
        } catch is NotSOAPEnvelopeError where !(200..<300).contains(status) {
            throw TransportError.httpStatus(status, snippet: textSnippet)
        } catch is XMLReaderError where !(200..<300).contains(status) {
            throw TransportError.httpStatus(status, snippet: textSnippet)
        }
    }

    private var textSnippet: String {
        String(decoding: snippet, as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
            .prefix(160).description
    }
}
