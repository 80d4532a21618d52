import Foundation

/// A position in degrees.
public struct GeoPoint: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Finite and within −90…90, −180…180.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    /// 0,0: what a supplier sends for "no position", in the Gulf of Guinea.
    public var isNullIsland: Bool { abs(latitude) < 1e-4 && abs(longitude) < 1e-4 }

    /// Latitude and longitude exchanged.
    public var swapped: GeoPoint { GeoPoint(latitude: longitude, longitude: latitude) }

    /// The great-circle (haversine) distance in metres.
    public func distance(to other: GeoPoint) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (other.latitude - latitude) * radians
        let dLongitude = (other.longitude - longitude) * radians
        let a =
            sin(dLatitude / 2) * sin(dLatitude / 2)
            + cos(latitude * radians) * cos(other.latitude * radians) * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 2 * GeoPoint.earthRadiusMetres * asin(min(1, sqrt(max(0, a))))
    }

    /// Whether the distance is at most `metres`; most far points are told by their latitudes alone, without trigonometry.
    func isWithin(_ metres: Double, of other: GeoPoint) -> Bool {
        // A great circle is never shorter than the difference of latitudes along a meridian.
        if abs(other.latitude - latitude) * (Double.pi / 180) * GeoPoint.earthRadiusMetres > metres { return false }
        return distance(to: other) <= metres
    }

    static let earthRadiusMetres = 6_371_008.8
}

extension GeoPoint: CustomStringConvertible {
    public var description: String {
        String(format: "%.5f,%.5f", latitude, longitude)
    }
}
