import Foundation

/// Something wrong with one record that did not sink the page: the record was
/// skipped, or one of its fields left empty.
public struct RecordWarning: Sendable, Equatable, CustomStringConvertible {
    /// The record's 1-based position in the response.
    public var record: Int
    public var code: String?
    /// The built-in field at fault; nil for an added field, or when the whole record was skipped.
    public var field: HotelField?
    /// The added field at fault (``HotelFieldTable/adding(_:)``), by its key.
    public var addedField: String?
    public var message: String

    public init(record: Int, code: String?, field: HotelField?, addedField: String? = nil, message: String) {
        self.record = record
        self.code = code
        self.field = field
        self.addedField = addedField
        self.message = message
    }

    public var description: String {
        "record \(record)" + (code.map { " (code \($0))" } ?? "") + ": " + message
    }

    /// What kind of problem it is, for counting and capping: the field's
    /// name, or `code` for a record skipped for want of one.
    public var kind: String { field?.rawValue ?? addedField ?? "code" }

    /// Every kind of the built-in fields, in a fixed order.
    public static let kinds = ["code"] + HotelField.allCases.filter { $0 != .code }.map(\.rawValue)

    /// The kinds that occurred among `counted`, in order: the built-in ones, then added fields' by name.
    public static func kinds(in counted: some Collection<String>) -> [String] {
        kinds + Set(counted).subtracting(kinds).sorted()
    }
}

/// Lets through at most `perKind` warnings of each kind and counts the
/// rest. A warning past its kind's cap is never even formatted, so a
/// response that fails every record costs little more than a clean one.
final class WarningGate {
    private let perKind: Int
    private let deliver: (RecordWarning) -> Void
    /// By slot: ``RecordWarning/kinds`` order, then the added fields'.
    private(set) var counts: [Int]
    private let kinds: [String]

    /// - Parameters:
    ///   - perKind: nil lets every warning through.
    ///   - addedFields: the keys of the profile's added fields, in its table's order.
    init(perKind: Int?, addedFields: [String] = [], deliver: @escaping (RecordWarning) -> Void) {
        self.perKind = perKind ?? .max
        self.deliver = deliver
        kinds = RecordWarning.kinds + addedFields
        counts = [Int](repeating: 0, count: kinds.count)
    }

    /// Counts a warning of `field`'s kind (nil: no code) and says whether to build and deliver it.
    func admits(_ field: HotelField?) -> Bool {
        // A record with no code counts as the code's kind: slot 0, as `kinds` orders them.
        admits(slot: field.map(RecordExtractor.slot) ?? 0)
    }

    /// Counts a warning of the field in `slot` (``RecordExtractor``'s) and says whether to build and deliver it.
    func admits(slot: Int) -> Bool {
        counts[slot] += 1
        return counts[slot] <= perKind
    }

    func warn(_ warning: RecordWarning) {
        deliver(warning)
    }

    /// The counts of the kinds that occurred, all of them, delivered or not.
    var byKind: [String: Int] {
        Dictionary(uniqueKeysWithValues: zip(kinds, counts).filter { $0.1 > 0 })
    }

    var total: Int { counts.reduce(0, +) }
}

/// Turns a record's raw fields into a ``Hotel``: checks and converts each
/// field straight from its bytes, and says what it dropped.
struct HotelRecordConverter {
    let coordinateScale: Double
    /// The profile's added fields, in its table's order.
    let added: [HotelFieldSpec]
    /// Receives each warning its cap lets through. Held here, not passed per
    /// record, so a record builds no closure context.
    let warnings: WarningGate

    /// The record's code; nil, with a warning, when it has none, and then
    /// the record is skipped.
    func code(of fields: RecordFields, record: Int) -> String? {
        guard let code = fields.string(.code) else {
            if warnings.admits(nil) {
                warnings.warn(RecordWarning(record: record, code: nil, field: nil, message: "no code; record skipped"))
            }
            return nil
        }
        return code
    }

    /// The record with this code. Not optional, so the caller can hand it
    /// straight on: unwrapping an optional record costs a copy of it.
    func hotel(code: consuming String, from fields: RecordFields, record: Int) -> Hotel {
        // The code is handed in, not captured: it is consumed into the record, with no copy.
        func drop(_ field: HotelField, _ bytes: UnsafeBufferPointer<UInt8>, _ reason: String, of code: borrowing String) {
            guard warnings.admits(field) else { return }
            warnings.warn(
                RecordWarning(
                    record: record, code: copy code, field: field,
                    message: "\(field.rawValue) “\(String(decoding: bytes, as: UTF8.self))” \(reason); left empty"))
        }
        var latitude: Double?
        if let bytes = fields[.latitude] {
            latitude = coordinate(bytes, limit: 90)
            if latitude == nil { drop(.latitude, bytes, "is not a latitude (a number from −90 to 90)", of: code) }
        }
        var longitude: Double?
        if let bytes = fields[.longitude] {
            longitude = coordinate(bytes, limit: 180)
            if longitude == nil { drop(.longitude, bytes, "is not a longitude (a number from −180 to 180)", of: code) }
        }
        var logoURL: String?
        if let bytes = fields[.logoURL] {
            if HotelRecordConverter.isWebURL(bytes) {
                logoURL = String(decoding: bytes, as: UTF8.self)
            } else {
                drop(.logoURL, bytes, "is not an absolute http(s) URL", of: code)
            }
        }
        var addtime: Int64?
        if let bytes = fields[.addtime] {
            addtime = HotelRecordConverter.unixSeconds(bytes)
            if addtime == nil { drop(.addtime, bytes, "is neither Unix seconds nor an ISO 8601 date or time", of: code) }
        }
        var phone: String?
        if let bytes = fields[.phone] {
            if bytes.count <= Self.longestPhone {
                phone = String(decoding: bytes, as: UTF8.self)
            } else {
                drop(
                    .phone, UnsafeBufferPointer(rebasing: bytes.prefix(Self.longestPhone)),
                    "… is longer than \(Self.longestPhone) bytes, no telephone number", of: code)
            }
        }
        var chainCode: String?
        if let bytes = fields[.chainCode] {
            if bytes.count <= Self.longestChainCode {
                chainCode = String(decoding: bytes, as: UTF8.self).uppercased()
            } else {
                drop(
                    .chainCode, UnsafeBufferPointer(rebasing: bytes.prefix(Self.longestChainCode)),
                    "… is longer than \(Self.longestChainCode) bytes, no chain code", of: code)
            }
        }
        var rating: Double?
        if let bytes = fields[.rating] {
            rating = HotelRecordConverter.rating(bytes)
            if rating == nil { drop(.rating, bytes, "is not a rating (0 to 7, in halves)", of: code) }
        }
        var countryCode: String?
        if let bytes = fields[.countryCode] {
            countryCode = CountryNames.code(for: bytes)
            if countryCode == nil {
                drop(.countryCode, bytes, "is no ISO 3166 country code, nor the name of exactly one country", of: code)
            }
        }
        let references = fields.references.isEmpty ? nil : references(fields, record: record, code: code)
        // Made whole at the end: no copy of a half-built record.
        return Hotel(
            code: code, name: fields.string(.name), address: fields.string(.address),
            latitude: latitude, longitude: longitude, logoURL: logoURL, addtime: addtime,
            phone: phone, chainCode: chainCode, rating: rating, postalCode: fields.string(.postalCode),
            city: fields.string(.city), countryCode: countryCode, references: references,
            extensions: added.isEmpty ? nil : addedValues(fields, record: record, code: code))
    }

    /// The values of the profile's added fields, each read as its type; one
    /// that does not read as a number is left empty with a warning. Out of
    /// line: most profiles add none.
    @inline(never)
    private func addedValues(_ fields: RecordFields, record: Int, code: String) -> [HotelExtensionValue] {
        added.enumerated().map { index, spec in
            guard let bytes = fields.added(index) else { return HotelExtensionValue(key: spec.jsonKey, value: .null) }
            let value: HotelFieldSpec.Value? =
                switch spec.type {
                case .text, .references: .text(String(decoding: bytes, as: UTF8.self))
                case .real: Self.number(bytes).flatMap { $0.isFinite ? .real($0) : nil }
                case .integer: Self.integer(bytes).map(HotelFieldSpec.Value.integer)
                }
            if value == nil, warnings.admits(slot: RecordExtractor.builtInSlots + index) {
                let text = String(decoding: bytes.prefix(80), as: UTF8.self)
                warnings.warn(
                    RecordWarning(
                        record: record, code: code, field: nil, addedField: spec.jsonKey,
                        message: "\(spec.jsonKey) “\(text)” is not \(spec.type == .real ? "a number" : "an integer"); left empty"))
            }
            return HotelExtensionValue(key: spec.jsonKey, value: value ?? .null)
        }
    }

    /// Longer than any number with its country code, spaces and an extension: not a telephone number.
    static let longestPhone = 40
    /// Chain codes are two or three letters; a chain's name is still taken, up to this.
    static let longestChainCode = 40

    /// The record's references, catalogue names in lower case; one with no name or no code is dropped with a warning.
    /// Out of line: most profiles have none.
    @inline(never)
    private func references(_ fields: RecordFields, record: Int, code: String) -> [String: String]? {
        var references: [String: String] = [:]
        for reference in fields.references {
            let catalog = fields.bytes(reference.catalog).map { String(decoding: $0, as: UTF8.self).lowercased() }
            let value = fields.bytes(reference.code).map { String(decoding: $0, as: UTF8.self) }
            guard let catalog, let value else {
                if warnings.admits(.references) {
                    let what = catalog.map { "a reference in catalogue “\($0)” has no code" } ?? "a reference names no catalogue"
                    warnings.warn(RecordWarning(record: record, code: code, field: .references, message: what + "; left out"))
                }
                continue
            }
            references[catalog] = value
        }
        return references.isEmpty ? nil : references
    }

    /// 0 to 7 in halves, as OpenTravel rates (`Award/@Rating`): `4`, `4.5`, `4.0`.
    static func rating(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let value = decimal(bytes), value >= 0, value <= 7, (value * 2).rounded() == value * 2 else { return nil }
        return value
    }

    /// A plain decimal is read from the bytes; anything else (an exponent,
    /// more digits) goes through `Double.init`.
    @inline(__always)  // twice per record: no call frame
    private func coordinate(_ bytes: UnsafeBufferPointer<UInt8>, limit: Double) -> Double? {
        guard let raw = HotelRecordConverter.number(bytes) else { return nil }
        return HotelRecordConverter.degrees(raw, scale: coordinateScale, limit: limit)
    }

    /// A number as text: a plain decimal read from the bytes, anything else (an exponent, more digits) by `Double.init`.
    @inline(__always)  // for each coordinate of every record: no call frame
    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        decimal(bytes) ?? Double(String(decoding: bytes, as: UTF8.self))
    }

    /// The largest magnitude of a coordinate field, in degrees; nil for other fields.
    static func coordinateLimit(_ field: HotelField) -> Double? {
        switch field {
        case .latitude: 90
        case .longitude: 180
        default: nil
        }
    }

    /// `raw` divided by the profile's scale, if that is a finite number within ±`limit`.
    static func degrees(_ raw: Double, scale: Double, limit: Double) -> Double? {
        guard raw.isFinite else { return nil }
        let degrees = raw / scale
        return abs(degrees) <= limit ? degrees : nil
    }

    /// Whether the bytes are an absolute http(s) URL with a host, made only of
    /// the characters RFC 3986 allows. One pass over the bytes: `URL(string:)`
    /// costs more than the rest of a record's parse.
    static func isWebURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let schemeLength: Int
        if hasPrefixIgnoringCase(bytes, "https://") {
            schemeLength = 8
        } else if hasPrefixIgnoringCase(bytes, "http://") {
            schemeLength = 7
        } else {
            return false
        }
        return uriCharacters.withUnsafeBufferPointer { kinds in
            // The host follows any "user@", ends at the path, query or
            // fragment, and must not be empty; every byte must be allowed.
            var hostStart = schemeLength
            var index = schemeLength
            hostLoop: while index < bytes.count {
                switch kinds[Int(bytes[index])] {
                case .allowed: break
                case .endsHost: break hostLoop
                case .endsUser: hostStart = index + 1
                case .refused: return false
                }
                index += 1
            }
            guard hostStart < index, bytes[hostStart] != UInt8(ascii: ":") else { return false }
            while index < bytes.count {
                guard kinds[Int(bytes[index])] != .refused else { return false }
                index += 1
            }
            return true
        }
    }

    private static func hasPrefixIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        for index in 0..<prefix.utf8CodeUnitCount where bytes[index] | 0x20 != prefix.utf8Start[index] {
            return false
        }
        return true
    }

    /// What a byte is in a URL, for the one pass over it.
    private enum URICharacter: UInt8 {
        /// Not allowed anywhere in a URL.
        case refused
        /// Unreserved, reserved, or `%`.
        case allowed
        /// `/`, `?` or `#`: the end of the authority.
        case endsHost
        /// `@`: the end of the user part.
        case endsUser
    }

    /// What each byte value is in a URL, by RFC 3986. A table, because a URL is checked byte by byte.
    private static let uriCharacters: [URICharacter] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
            .endsHost
        case UInt8(ascii: "@"):
            .endsUser
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            .allowed
        default:
            "-._~:[]!$&'()*+,;=%".utf8.contains(UInt8(byte)) ? .allowed : .refused
        }
    }

    /// A plain decimal (`-12.345678`) of at most 15 digits, parsed exactly:
    /// both the digits and the power of ten are exact doubles, so one
    /// division rounds correctly (Clinger's fast path). Anything else, such
    /// as exponents or longer numbers, returns nil for `Double.init` to parse.
    @inline(__always)  // for each coordinate of every record: no call frame
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard case (let negative, let start, let end)? = signed(bytes) else { return nil }
        var mantissa: Int64 = 0
        var byte = digits(from: start, to: end, into: &mantissa)
        var count = byte - start
        var fractionDigits = 0
        if byte < end, byte.pointee == UInt8(ascii: ".") {
            let fraction = byte + 1
            byte = digits(from: fraction, to: end, into: &mantissa)
            fractionDigits = byte - fraction
            count += fractionDigits
        }
        guard byte == end, count > 0, count <= 15 else { return nil }
        let value = Double(mantissa) / powerOfTen(fractionDigits)
        return negative ? -value : value
    }

    /// A calendar date alone (OTA's `TimeSpan/@Start`, "2021-09-28"), read as midnight UTC.
    private static let calendarDate = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
    /// A local date-time with no zone (OTA's `LastUpdated="2002-07-15T01:00:00"`), read as UTC.
    private static let zonelessDateTime = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().time(
        includingFractionalSeconds: false)
    private static let zonelessDateTimeFraction = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        .time(includingFractionalSeconds: true)

    /// Unix seconds as plain digits, read from the bytes, or an ISO 8601 time.
    @inline(__always)  // once per record: no call frame
    static func unixSeconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        if let seconds = integer(bytes) { return seconds }
        return parsedTime(bytes)
    }

    /// Seconds that are not plain digits: an ISO 8601 time or date. Out of
    /// line, so that plain seconds cost no frame for its work.
    @inline(never)
    private static func parsedTime(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let text = String(decoding: bytes, as: UTF8.self)
        if let seconds = Int64(text) { return seconds }
        if let date = try? Date(text, strategy: .iso8601) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
        // A calendar date alone (OTA's TimeSpan/@Start, "2021-09-28"): midnight UTC.
        if text.utf8.count == 10, let date = try? Date(text, strategy: Self.calendarDate) {
            return Int64(date.timeIntervalSince1970.rounded(.down))
        }
        guard let date = (try? Date(text, strategy: Self.zonelessDateTime)) ?? (try? Date(text, strategy: Self.zonelessDateTimeFraction))
        else {
            return nil
        }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// An optionally signed integer of at most 18 digits, which cannot
    /// overflow; anything else returns nil for the slower parses.
    @inline(__always)
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard case (let negative, let start, let end)? = signed(bytes), start < end, end - start <= 18 else { return nil }
        var value: Int64 = 0
        guard digits(from: start, to: end, into: &value) == end else { return nil }
        return negative ? -value : value
    }

    /// Reads the digits from `start` on into `value`, and returns where they
    /// stop. The value wraps past 18 digits; callers refuse those.
    @inline(__always)
    private static func digits(from start: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>, into value: inout Int64)
        -> UnsafePointer<UInt8>
    {
        var byte = start
        while byte < end, case let digit = byte.pointee &- UInt8(ascii: "0"), digit < 10 {
            value = value &* 10 &+ Int64(digit)
            byte += 1
        }
        return byte
    }

    /// Ten to the power `exponent`, 0...15: every one an exact double. A
    /// switch, not a table, so that reading one checks no lazy global.
    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        default: 1e15
        }
    }

    /// A number's optional leading sign: whether it is negative, and where its
    /// digits start and end. Nil for no bytes at all.
    private static func signed(_ bytes: UnsafeBufferPointer<UInt8>)
        -> (negative: Bool, digits: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>)?
    {
        guard let first = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let negative = first.pointee == UInt8(ascii: "-")
        let hasSign = negative || first.pointee == UInt8(ascii: "+")
        return (negative, hasSign ? first + 1 : first, first + bytes.count)
    }
}
