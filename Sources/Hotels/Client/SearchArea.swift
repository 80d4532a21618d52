import Foundation

/// A search by position: a point and a radius, for services that find hotels
/// near a place rather than in a city (Concur's Hotel Service v2, many
/// channel APIs). A profile sends it as `{latitude}`, `{longitude}` and
/// `{radius}`; a list fetched with one is a list of its own, so the same
/// `--city` name near two points keeps two lists.
public struct SearchArea: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Decimal degrees, -90 to 90.
    public var latitude: Double
    /// Decimal degrees, -180 to 180.
    public var longitude: Double
    /// Kilometres, above zero.
    public var radius: Double

    /// The radius when none is given: a walk from the point, a short ride at most.
    public static let defaultRadius = 5.0

    public init(latitude: Double, longitude: Double, radius: Double = SearchArea.defaultRadius) throws(SearchAreaError) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw SearchAreaError("\(latitude),\(longitude) is not a position: latitude runs from -90 to 90, longitude from -180 to 180")
        }
        guard radius > 0, radius.isFinite else { throw SearchAreaError("a radius is kilometres above zero, not \(radius)") }
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }

    /// Reads `LAT,LON` (`--near 47.6062,-122.3321`), as a map's "copy coordinates" gives it.
    public init(near text: String, radius: Double? = nil) throws(SearchAreaError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
            throw SearchAreaError("“\(text)” is not LAT,LON in decimal degrees, such as 47.6062,-122.3321")
        }
        try self.init(latitude: latitude, longitude: longitude, radius: radius ?? Self.defaultRadius)
    }

    /// `47.6062,-122.3321~5km`: how the list is named in stores and output.
    public var description: String {
        "\(Self.decimal(latitude)),\(Self.decimal(longitude))~\(Self.decimal(radius))km"
    }

    /// Reads ``description`` back.
    public init?(description: String) {
        guard description.hasSuffix("km"), let tilde = description.lastIndex(of: "~"),
            let radius = Double(description[description.index(after: tilde)...].dropLast(2)),
            let area = try? SearchArea(near: String(description[..<tilde]), radius: radius)
        else { return nil }
        self = area
    }

    /// Plain decimals, never an exponent (`0.00001`, not `1e-05`), at most six places (about 10 cm).
    static func decimal(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}

public struct SearchAreaError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
