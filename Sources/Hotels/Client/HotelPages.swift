import Foundation
import HTTP
import Logging
import SOAP

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
                var parameters = pager.nextRequest(city: pages.city, keyword: pages.keyword, area: pages.area)
            else {
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
                (page, session) = try await pages.client.page(
                    parameters, context: "page \(number)", preferringSession: session, hold: hold,
                    continuesSearch: livesInSession && pager.pagesRequested > 0)
            } catch is SearchSessionRenewed {
                guard let next = try await searchAgain(reason: "its session expired") else { return try await self.next() }
                (page, session) = try await pages.client.page(
                    next, context: "page \(number)", preferringSession: session, hold: hold,
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
                    "page \(number) brought no hotel that earlier pages had not: the service seems to ignore the profile's paging parameter; stopped here"
                )
            }
            return FetchedPage(
                number: number, hotels: page.hotels, warnings: page.warnings, warningsByKind: page.warningsByKind,
                headerValues: page.headerValues, checkpoint: pager.checkpoint, end: pager.end)
        }

        /// Asks for the pages this list has had again, in its current
        /// session, without delivering them: a stateful service's later pages
        /// exist only in the session that ran the search. Returns the request
        /// for the page after them.
        private mutating func searchAgain(reason: String) async throws -> RequestParameters? {
            let target = pager.pagesRequested
            pages.client.configuration.logger.notice(
                "the list's next page lives in its search's session, and \(reason): asking its \(target) pages again")
            var replay = Pager(paging: pager.paging, pageSize: pager.pageSize)
            while replay.pagesRequested < target,
                let parameters = replay.nextRequest(city: pages.city, keyword: pages.keyword, area: pages.area)
            {
                let (page, session) = try await pages.client.page(
                    parameters, context: "page \(replay.pagesRequested + 1), again",
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
            for kind in RecordWarning.kinds(in: occurred.keys) {
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
final class PageSink: HTTPBodySink {
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
            throw fault  // a fault is a fault, whatever the status
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
