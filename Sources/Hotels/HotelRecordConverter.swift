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
        func value(_ field: HotelField) -> String? { values[RecordExtractor.slot(field)] }
        guard let code = value(.code) else {
            warn(RecordWarning(record: record, code: nil, field: nil, message: "no code; record skipped"))
            return nil
        }
        func drop(_ field: HotelField, _ text: String, _ reason: String) {
            warn(RecordWarning(record: record, code: code, field: field,
                               message: "\(field.rawValue) “\(text)” \(reason); left empty"))
        }
        var hotel = Hotel(code: code, name: value(.name), address: value(.address))
        if let text = value(.latitude) {
            hotel.latitude = coordinate(text, limit: 90)
            if hotel.latitude == nil { drop(.latitude, text, "is not a latitude (a number from −90 to 90)") }
        }
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
        guard let raw = Double(text), raw.isFinite else { return nil }
        let degrees = raw / coordinateScale
        return abs(degrees) <= limit ? degrees : nil
    }

    static func isWebURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }

    static func unixSeconds(_ text: String) -> Int64? {
        if let seconds = Int64(text) { return seconds }
        guard let date = try? Date(text, strategy: .iso8601) else { return nil }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
