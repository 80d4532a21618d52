import Foundation

/// Something wrong with one record that did not sink the page: the record was
/// skipped, or one of its fields left empty.
public struct RecordWarning: Sendable, Equatable, CustomStringConvertible {
    /// The record's 1-based position in the response.
    public var record: Int
    public var code: String?
    /// The field at fault, or nil when the whole record was skipped.
    public var field: HotelField?
    public var message: String

    public init(record: Int, code: String?, field: HotelField?, message: String) {
        self.record = record
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String {
        "record \(record)" + (code.map { " (code \($0))" } ?? "") + ": " + message
    }
}

/// Turns a record's raw field texts into a ``Hotel``: checks and converts each
/// field, and says what it dropped.
struct HotelRecordConverter: Sendable {
    let coordinateScale: Double

    func hotel(from values: RecordExtractor.Values, record: Int, warn: (RecordWarning) -> Void) -> Hotel? {
        func value(_ field: HotelField) -> String? { values[field] }
        guard let code = value(.code) else {
            warn(RecordWarning(record: record, code: nil, field: nil, message: "no code; record skipped"))
            return nil
        }
        func drop(_ field: HotelField, _ text: String, _ reason: String) {
            warn(RecordWarning(record: record, code: code, field: field,
                               message: "\(field.rawValue) “\(text)” \(reason); left empty"))
        }
        var hotel = Hotel(code: code, name: value(.name), address: value(.address))
        hotel.latitude = values.degrees[RecordExtractor.slot(.latitude)]
        if let text = value(.latitude) {
            hotel.latitude = coordinate(text, limit: 90)
            if hotel.latitude == nil { drop(.latitude, text, "is not a latitude (a number from −90 to 90)") }
        }
        hotel.longitude = values.degrees[RecordExtractor.slot(.longitude)]
        if let text = value(.longitude) {
            hotel.longitude = coordinate(text, limit: 180)
            if hotel.longitude == nil { drop(.longitude, text, "is not a longitude (a number from −180 to 180)") }
        }
        if let text = value(.logoURL) {
            hotel.logoURL = HotelRecordConverter.isWebURL(text) ? text : nil
            if hotel.logoURL == nil { drop(.logoURL, text, "is not an absolute http(s) URL") }
        }
        if let text = value(.addtime) {
            hotel.addtime = HotelRecordConverter.unixSeconds(text)
            if hotel.addtime == nil { drop(.addtime, text, "is neither Unix seconds nor an ISO 8601 time") }
        }
        return hotel
    }

    private func coordinate(_ text: String, limit: Double) -> Double? {
        guard let raw = HotelRecordConverter.decimal(text) ?? Double(text) else { return nil }
        return HotelRecordConverter.degrees(raw, scale: coordinateScale, limit: limit)
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

    /// Whether `text` is an absolute http(s) URL with a host, made only of the
    /// characters RFC 3986 allows. One pass over the bytes: `URL(string:)`
    /// costs more than the rest of a record's parse.
    static func isWebURL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let schemeLength: Int
            if hasPrefixIgnoringCase(bytes, "https://") {
                schemeLength = 8
            } else if hasPrefixIgnoringCase(bytes, "http://") {
                schemeLength = 7
            } else {
                return false
            }
            // The host follows any "user@" and must not be empty.
            var hostStart = schemeLength
            var index = schemeLength
            while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?"),
                  bytes[index] != UInt8(ascii: "#") {
                if bytes[index] == UInt8(ascii: "@") { hostStart = index + 1 }
                index += 1
            }
            guard hostStart < index, bytes[hostStart] != UInt8(ascii: ":") else { return false }
            for byte in bytes where !isURICharacter(byte) { return false }
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

    /// RFC 3986 unreserved and reserved characters, and `%`.
    private static func isURICharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"),
             UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"),
             UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    private static let exactPowersOfTen: [Double] = (0...15).map { power in
        (0..<power).reduce(1.0) { value, _ in value * 10 }
    }

    /// A plain decimal (`-12.345678`) of at most 15 digits, parsed exactly:
    /// both the digits and the power of ten are exact doubles, so one
    /// division rounds correctly (Clinger's fast path). Anything else, such
    /// as exponents or longer numbers, returns nil for `Double.init` to parse.
    static func decimal(_ text: String) -> Double? {
        var text = text
        return text.withUTF8(decimal)
    }

    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard var byte = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let end = byte + bytes.count
        let negative = byte.pointee == UInt8(ascii: "-")
        if negative || byte.pointee == UInt8(ascii: "+") { byte += 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while byte < end {
            let digit = byte.pointee &- UInt8(ascii: "0")
            if digit < 10 {
                // Wrapping is harmless: more than 15 digits is refused below.
                mantissa = mantissa &* 10 &+ Int64(digit)
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else if byte.pointee == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            byte += 1
        }
        guard digits > 0, digits <= 15 else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[fractionDigits]
        return negative ? -value : value
    }

    static func unixSeconds(_ text: String) -> Int64? {
        if let seconds = Int64(text) { return seconds }
        guard let date = try? Date(text, strategy: .iso8601) else { return nil }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
