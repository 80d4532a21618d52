/// "Load more": which page to ask for next, and when the list has ended.
///
/// Nothing is asked for twice: page numbers only go up, and a cursor that was
/// used already ends the list instead of being sent again.
public struct Pager: Sendable, Equatable {
    public enum End: String, Sendable, Equatable, Codable {
        /// A page shorter than asked for, or empty.
        case shortPage
        /// The response gave no cursor.
        case noCursor
        /// The response gave a cursor that was already used.
        case repeatedCursor
        /// The response's end marker says this page holds the last row.
        case endMarker
        /// `--max-pages` was reached.
        case pageLimit
        /// A page brought no record that an earlier page of this run had not:
        /// the service ignores its paging parameter, and would send the same page forever.
        case noNewRecords
        /// The response's more-rows flag was off, or absent (flag paging).
        case noMore
        /// A one-shot operation: its one response is the whole answer.
        case single
    }

    public let paging: ServiceProfile.Paging
    public let pageSize: Int
    public private(set) var pagesRequested = 0
    public private(set) var end: End?
    private var nextPage: Int
    private var nextCursor: String?
    private var nextCursorAttributes: [String: String] = [:]
    private var usedCursors: Set<String> = []
    /// The latest cursors, oldest first: what a checkpoint keeps of `usedCursors`.
    private var recentCursors: [String] = []
    /// A checkpoint is rewritten with every page; with every cursor in it,
    /// a list of N pages would write N²/2 of them.
    public static let cursorsKept = 100
    /// The hashes of the codes this pager has seen, for the loop guard; not
    /// part of the checkpoint, so a resumed run guards from its own first page
    /// on. Hashes, not codes: a set of 100,000 strings costs more to grow than
    /// to fill, and the guard errs only if every code of a page collides.
    private var seenCodes: Set<Int> = []

    public init(paging: ServiceProfile.Paging, pageSize: Int) {
        self.paging = paging
        self.pageSize = pageSize
        if case .page(let first) = paging {
            nextPage = first
        } else {
            nextPage = 0
        }
    }

    /// Where paging stands, to store and resume in a later run.
    public struct Checkpoint: Sendable, Equatable, Codable {
        public var pagesReceived: Int
        public var nextPage: Int
        public var nextCursor: String?
        /// The attributes that travel with the cursor; nil when there are none.
        public var nextCursorAttributes: [String: String]?
        /// The latest cursors used, oldest first (at most ``Pager/cursorsKept``).
        public var usedCursors: [String]
        /// The list's real end; `pageLimit` is not kept, so a later run goes on.
        public var end: End?

        public init(
            pagesReceived: Int, nextPage: Int, nextCursor: String?, nextCursorAttributes: [String: String]? = nil,
            usedCursors: [String], end: End?
        ) {
            self.pagesReceived = pagesReceived
            self.nextPage = nextPage
            self.nextCursor = nextCursor
            self.nextCursorAttributes = nextCursorAttributes
            self.usedCursors = usedCursors
            self.end = end
        }
    }

    public var checkpoint: Checkpoint {
        Checkpoint(
            pagesReceived: pagesRequested, nextPage: nextPage, nextCursor: nextCursor,
            nextCursorAttributes: nextCursorAttributes.isEmpty ? nil : nextCursorAttributes,
            usedCursors: recentCursors, end: end == .pageLimit ? nil : end)
    }

    /// Resumes where `checkpoint` stopped: the next request is the page after it.
    public init(paging: ServiceProfile.Paging, pageSize: Int, resuming checkpoint: Checkpoint) {
        self.init(paging: paging, pageSize: pageSize)
        pagesRequested = checkpoint.pagesReceived
        nextPage = checkpoint.nextPage
        nextCursor = checkpoint.nextCursor
        nextCursorAttributes = checkpoint.nextCursorAttributes ?? [:]
        recentCursors = Array(checkpoint.usedCursors.suffix(Self.cursorsKept))
        usedCursors = Set(recentCursors)
        end = checkpoint.end
    }

    /// The parameters of the next page, or nil once the list has ended.
    public func nextRequest(city: String?, keyword: String? = nil, area: SearchArea? = nil) -> RequestParameters? {
        guard end == nil else { return nil }
        switch paging {
        case .page:
            return RequestParameters(city: city, keyword: keyword, area: area, page: nextPage, pageSize: pageSize)
        case .cursor:
            return RequestParameters(
                city: city, keyword: keyword, area: area, pageSize: pageSize, cursor: nextCursor,
                cursorAttributes: nextCursorAttributes)
        case .flag:
            return RequestParameters(city: city, keyword: keyword, area: area, pageSize: pageSize, more: pagesRequested > 0)
        case .none:
            return RequestParameters(city: city, keyword: keyword, area: area, pageSize: pageSize)
        }
    }

    /// Takes what a page returned and decides what comes next.
    public mutating func received(_ page: HotelPage, maxPages: Int? = nil) {
        pagesRequested += 1
        var bringsNew = seenCodes.isEmpty
        for hotel in page.hotels where seenCodes.insert(hotel.code.hashValue).inserted { bringsNew = true }
        if !page.hotels.isEmpty, !bringsNew {
            end = .noNewRecords
        } else if case .none = paging {
            end = .single
        } else if page.hotels.isEmpty || (page.hotels.count < pageSize && isPaged) {
            end = .shortPage
        } else if case .flag = paging {
            if !page.saysMore { end = .noMore }
        } else if case .cursor = paging {
            if let last = page.lastCursor, last == page.nextCursor {
                end = .endMarker
            } else if let cursor = page.nextCursor {
                if usedCursors.contains(cursor) {
                    end = .repeatedCursor
                } else {
                    usedCursors.insert(cursor)
                    recentCursors.append(cursor)
                    if recentCursors.count > Self.cursorsKept { recentCursors.removeFirst() }
                    nextCursor = cursor
                    nextCursorAttributes = page.nextCursorAttributes
                }
            } else {
                end = .noCursor
            }
        } else {
            nextPage += 1
        }
        if end == nil, let maxPages, pagesRequested >= maxPages { end = .pageLimit }
    }

    private var isPaged: Bool {
        if case .page = paging { return true }
        return false
    }
}
