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

/// Turns a record's raw fields into a ``Hotel``: checks and converts each
/// field straight from its bytes, and says what it dropped.
struct HotelRecordConverter: Sendable {
    let coordinateScale: Double

    func hotel(from fields: RecordFields, record: Int, warn: (RecordWarning) -> Void) -> Hotel? {
        guard let code = fields.string(.code) else {
            warn(RecordWarning(record: record, code: nil, field: nil, message: "no code; record skipped"))
            return nil
        }
        func drop(_ field: HotelField, _ bytes: UnsafeBufferPointer<UInt8>, _ reason: String) {
            warn(RecordWarning(record: record, code: code, field: field,
                               message: "\(field.rawValue) “\(String(decoding: bytes, as: UTF8.self))” \(reason); left empty"))
        }
        var hotel = Hotel(code: code, name: fields.string(.name), address: fields.string(.address))
        if let bytes = fields[.latitude] {
            hotel.latitude = coordinate(bytes, limit: 90)
            if hotel.latitude == nil { drop(.latitude, bytes, "is not a latitude (a number from −90 to 90)") }
        }
        if let bytes = fields[.longitude] {
            hotel.longitude = coordinate(bytes, limit: 180)
            if hotel.longitude == nil { drop(.longitude, bytes, "is not a longitude (a number from −180 to 180)") }
        }
        if let bytes = fields[.logoURL] {
            if HotelRecordConverter.isWebURL(bytes) {
                hotel.logoURL = String(decoding: bytes, as: UTF8.self)
            } else {
                drop(.logoURL, bytes, "is not an absolute http(s) URL")
            }
        }
        if let bytes = fields[.addtime] {
            hotel.addtime = HotelRecordConverter.unixSeconds(bytes)
            if hotel.addtime == nil { drop(.addtime, bytes, "is neither Unix seconds nor an ISO 8601 time") }
        }
        return hotel
    }

    /// A plain decimal is read from the bytes; anything else (an exponent,
    /// more digits) goes through `Double.init`.
    private func coordinate(_ bytes: UnsafeBufferPointer<UInt8>, limit: Double) -> Double? {
        guard let raw = HotelRecordConverter.decimal(bytes) ?? Double(String(decoding: bytes, as: UTF8.self)) else { return nil }
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
    static func isWebURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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

    private static func hasPrefixIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        for index in 0..<prefix.utf8CodeUnitCount where bytes[index] | 0x20 != prefix.utf8Start[index] {
            return false
        }
        return true
    }

    /// RFC 3986 unreserved and reserved characters, and `%`: one bit per
    /// ASCII byte, bytes 0–63 in the first word and 64–127 in the second.
    private static func isURICharacter(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0xAFFF_FFFA_0000_0000
        let high: UInt64 = 0x47FF_FFFE_AFFF_FFFF
        switch byte {
        case 0..<64: return low >> UInt64(byte) & 1 == 1
        case 64..<128: return high >> UInt64(byte - 64) & 1 == 1
        default: return false
        }
    }

    private static let exactPowersOfTen: [Double] = (0...15).map { power in
        (0..<power).reduce(1.0) { value, _ in value * 10 }
    }

    /// A plain decimal (`-12.345678`) of at most 15 digits, parsed exactly:
    /// both the digits and the power of ten are exact doubles, so one
    /// division rounds correctly (Clinger's fast path). Anything else, such
    /// as exponents or longer numbers, returns nil for `Double.init` to parse.
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

    /// Unix seconds as plain digits, read from the bytes, or an ISO 8601 time.
    static func unixSeconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        if let seconds = integer(bytes) { return seconds }
        let text = String(decoding: bytes, as: UTF8.self)
        if let seconds = Int64(text) { return seconds }
        guard let date = try? Date(text, strategy: .iso8601) else { return nil }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// An optionally signed integer of at most 18 digits, which cannot
    /// overflow; anything else returns nil for the slower parses.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard var byte = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let end = byte + bytes.count
        let negative = byte.pointee == UInt8(ascii: "-")
        if negative || byte.pointee == UInt8(ascii: "+") { byte += 1 }
        guard byte < end, end - byte <= 18 else { return nil }
        var value: Int64 = 0
        while byte < end {
            let digit = byte.pointee &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            byte += 1
        }
        return negative ? -value : value
    }
}
