import Failures
import SOAP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses hotel SOAP responses into ``Hotel`` records with a ``ServiceProfile``,
/// as a stream: records come out while the bytes go in, in constant memory.
///
/// ```swift
/// let parser = HotelResponseParser(profile: try .named("ota-search"))
/// let page = try parser.parse(bytes: responseBody)
/// ```
///
/// A parse throws ``/SOAP/SOAPFault`` for a fault, ``ServiceReportedError`` when the
/// profile's `error` path matched, ``/SOAP/NotSOAPEnvelopeError`` for an HTML page,
/// JSON or an empty body, and ``/SOAP/XMLReaderError`` for malformed or hostile XML.
public struct HotelResponseParser: Sendable {
    public var profile: ServiceProfile
    public var limits: XMLReaderLimits
    /// Warnings of each kind delivered per response, 10 by default; the rest
    /// are counted (``ParseSummary/warningsByKind``). Nil delivers every one.
    public var warningsPerKind: Int?

    public init(profile: ServiceProfile, limits: XMLReaderLimits = XMLReaderLimits(), warningsPerKind: Int? = 10) {
        self.profile = profile
        self.limits = limits
        self.warningsPerKind = warningsPerKind
    }

    /// Starts a streaming parse; feed it the response's bytes as they come.
    ///
    /// `onRecord` owns each record it is given, so keeping one copies nothing.
    public func session(
        onRecord: @escaping (consuming Hotel) throws -> Void,
        onWarning: @escaping (RecordWarning) -> Void = { _ in }
    ) throws -> HotelParseSession {
        try HotelParseSession(profile: profile, limits: limits, warningsPerKind: warningsPerKind, onRecord: onRecord, onWarning: onWarning)
    }

    /// Parses a whole response held in memory.
    public func parse(bytes: [UInt8]) throws -> HotelPage {
        var hotels: [Hotel] = []
        var warnings: [RecordWarning] = []
        let session = try session(onRecord: { hotels.append($0) }, onWarning: { warnings.append($0) })
        try session.feed(bytes)
        // Records can still arrive while the session finishes (a short document is parsed then).
        let summary = try session.finish()
        return HotelPage(hotels: hotels, warnings: warnings, summary: summary)
    }
}

/// One response's records, for callers that want them all at once.
public struct HotelPage: Sendable, Equatable {
    public var hotels: [Hotel]
    public var warnings: [RecordWarning]
    /// The cursor for the next page, under cursor paging, if the response gave one.
    public var nextCursor: String?
    /// The attributes that travel with it.
    public var nextCursorAttributes: [String: String] = [:]
    /// The list's final cursor, from the profile's end marker.
    public var lastCursor: String?
    /// Every warning by kind, counted whether or not its cap let it into ``warnings``.
    public var warningsByKind: [String: Int]
    /// See ``ParseSummary/noRecordsHint``.
    public var noRecordsHint: String?
    /// The more-rows flag under flag paging, as the response wrote it.
    public var moreFlag: String?
    /// The profile's header values this response gave.
    public var headerValues: [String: String] = [:]

    /// A finished parse's records and warnings, with what its summary says about paging and the Header.
    public init(hotels: [Hotel], warnings: [RecordWarning], summary: ParseSummary) {
        self.init(
            hotels: hotels, warnings: warnings, nextCursor: summary.nextCursor, lastCursor: summary.lastCursor,
            warningsByKind: summary.warningsByKind, noRecordsHint: summary.noRecordsHint)
        moreFlag = summary.moreFlag
        headerValues = summary.headerValues
        nextCursorAttributes = summary.nextCursorAttributes
    }

    /// Whether the flag says more rows follow: `true`, `1`, `Y` or `yes`, in any case.
    public var saysMore: Bool {
        flagSaysMore(moreFlag)
    }

    public init(
        hotels: [Hotel], warnings: [RecordWarning], nextCursor: String?, lastCursor: String? = nil,
        warningsByKind: [String: Int]? = nil, noRecordsHint: String? = nil
    ) {
        self.hotels = hotels
        self.warnings = warnings
        self.nextCursor = nextCursor
        self.lastCursor = lastCursor
        self.warningsByKind = warningsByKind ?? Dictionary(grouping: warnings, by: \.kind).mapValues(\.count)
        self.noRecordsHint = noRecordsHint
    }
}

/// What a finished parse found.
public struct ParseSummary: Sendable, Equatable {
    public var soapVersion: SOAPVersion?
    /// Records delivered.
    public var records: Int
    /// Records skipped for want of a code.
    public var skipped: Int
    /// Warnings, all of them, delivered or past their cap.
    public var warnings: Int
    /// The same, by ``RecordWarning/kind``.
    public var warningsByKind: [String: Int]
    /// When no record matched but the body repeats some other element: what
    /// it repeats, and what to try (`no <Hotel> records; the body repeats <Property> ×100: …`).
    public var noRecordsHint: String?
    public var nextCursor: String?
    /// The attributes that travel with the cursor (``ServiceProfile/cursorAttributes``).
    public var nextCursorAttributes: [String: String] = [:]
    public var lastCursor: String?
    /// The more-rows flag under flag paging, as the response wrote it.
    public var moreFlag: String?
    /// The profile's ``ServiceProfile/header`` values this response gave, and
    /// its session's captured values as `session.NAME`.
    public var headerValues: [String: String] = [:]
    public var bytes: Int
}

extension ParseSummary {
    /// Where paging stands after this response, and why it would stop:
    /// what `hotels parse --summary` shows, so a profile's paging can be checked by hand.
    public func pagingState(_ paging: ServiceProfile.Paging, endMarker: DocumentPath? = nil) -> String {
        describePaging(paging, endMarker: endMarker, records: records, nextCursor: nextCursor, lastCursor: lastCursor, moreFlag: moreFlag)
    }
}

extension HotelPage {
    /// Where paging stands after this page, and why it would stop: what
    /// `hotels call` shows, in the words of `hotels parse --summary`.
    public func pagingState(_ paging: ServiceProfile.Paging, endMarker: DocumentPath? = nil) -> String {
        describePaging(
            paging, endMarker: endMarker, records: hotels.count, nextCursor: nextCursor, lastCursor: lastCursor, moreFlag: moreFlag)
    }
}

private func describePaging(
    _ paging: ServiceProfile.Paging, endMarker: DocumentPath?, records: Int, nextCursor: String?,
    lastCursor: String?, moreFlag: String?
) -> String {
    switch paging {
    case .none:
        return "none: a one-shot operation, this response is the whole answer"
    case .page:
        return "numbered pages: \(records) records here; a page with fewer records than were asked for is the last"
    case .flag(let path):
        let more = flagSaysMore(moreFlag)
        return "more flag \(path): " + (moreFlag.map { "“\($0)”" } ?? "absent")
            + (more ? ": more pages follow" : ": this is the last page")
    case .cursor(let source):
        let from =
            switch source {
            case .document(let path): path.description
            case .field(let field): "field:\(field.rawValue)"
            case .header(let name): "header:\(name)"
            }
        guard let next = nextCursor, records > 0 else { return "cursor \(from): none, so this is the last page" }
        var state = "cursor \(from): “\(next)”"
        if let endMarker {
            state += "; end marker \(endMarker): " + (lastCursor.map { "“\($0)”" } ?? "absent")
            if lastCursor == next { return state + ": this is the last page" }
        }
        return state + ": the next page asks for it"
    }
}

/// Whether a more-rows flag says more rows follow: `true`, `1`, `Y` or `yes`, in any case.
private func flagSaysMore(_ flag: String?) -> Bool {
    ["true", "1", "y", "yes"].contains(flag?.trimmingWhitespace().lowercased() ?? "")
}

/// A read from a file or pipe failed.
public struct InputReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var errorNumber: Int32

    public var description: String { "read failed: " + String(cString: strerror(errorNumber)) }
}

/// One streaming parse: `feed(_:)` the bytes in any chunks, then ``finish()``.
public final class HotelParseSession {
    private var reader: SOAPResponseReader<RecordExtractor>!
    // Counted on the parse's one thread: no exclusivity checks. Records
    // delivered are the extractor's count less these skips, so a record
    // that goes through touches no counter here.
    @exclusivity(unchecked) private var skipped = 0
    private let warnings: WarningGate

    init(
        profile: ServiceProfile,
        limits: XMLReaderLimits,
        warningsPerKind: Int?,
        onRecord: @escaping (consuming Hotel) throws -> Void,
        onWarning: @escaping (RecordWarning) -> Void
    ) throws {
        let added = Array(profile.fieldTable.extensions)
        let warnings = WarningGate(perKind: warningsPerKind, addedFields: added.map(\.jsonKey), deliver: onWarning)
        self.warnings = warnings
        // The extractor calls back into this session to count; the session
        // owns the reader, so the reference back is unowned.
        reader = try SOAPResponseReader(limits: limits, envelope: profile.envelope) { [unowned self] names in
            let converter = HotelRecordConverter(coordinateScale: profile.coordinateScale, added: added, warnings: warnings)
            return RecordExtractor(profile: profile, names: names, limits: limits) { fields, record in
                guard let code = converter.code(of: fields, record: record) else {
                    self.skipped += 1
                    return
                }
                // Handed straight over: a copy would retain every string.
                try onRecord(converter.hotel(code: code, from: fields, record: record))
            }
        }
    }

    public func feed(_ bytes: UnsafeRawBufferPointer) throws {
        try reader.feed(bytes)
    }

    public func feed(_ bytes: [UInt8]) throws {
        try reader.feed(bytes)
    }

    /// Reads a file or pipe to its end, feeding it chunk by chunk.
    public func feed(fileDescriptor: Int32, chunkSize: Int = 256 << 10) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(fileDescriptor, buffer.baseAddress, chunkSize)
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw InputReadError(errorNumber: errno)
            }
            try reader.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Ends the response and says what it held.
    public func finish() throws -> ParseSummary {
        try reader.finish()
        return summary
    }

    /// What the response has held so far: after an error it reported
    /// (``ServiceReportedError``), its records, paging and header values up to there.
    public var summary: ParseSummary {
        ParseSummary(
            soapVersion: reader.version,
            records: reader.body.recordCount - skipped,
            skipped: skipped,
            warnings: warnings.total,
            warningsByKind: warnings.byKind,
            noRecordsHint: reader.body.noRecordsHint,
            nextCursor: reader.body.nextCursor,
            nextCursorAttributes: reader.body.nextCursorAttributes,
            lastCursor: reader.body.lastCursor,
            moreFlag: reader.body.moreFlag,
            headerValues: reader.body.headerValues,
            bytes: reader.inputBytes
        )
    }
}

extension InputReadError: MeaningfulError {
    /// Storage (74).
    public var meaning: ErrorMeaning { ErrorMeaning(kind: .storage, status: .ioError) }
}
