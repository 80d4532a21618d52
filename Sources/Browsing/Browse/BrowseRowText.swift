import Dispatch
import Fetching
import Foundation
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import Runtime
import Scheduling

/// The text of a row's third line: the detail, then the chain and rating where the width leaves room.
public enum BrowseRowText {
    /// `1.2 km · added 2026-11-20`: the distance from the search's centre
    /// when there is one, and the day the service added the hotel.
    public static func detail(for hotel: Hotel, from area: SearchArea?) -> String {
        var parts: [String] = []
        if let area, let latitude = hotel.latitude, let longitude = hotel.longitude {
            let kilometres = distance(from: (area.latitude, area.longitude), to: (latitude, longitude))
            parts.append(kilometres < 10 ? String(format: "%.1f km", kilometres) : "\(Int(kilometres.rounded())) km")
        } else if let latitude = hotel.latitude, let longitude = hotel.longitude {
            parts.append(String(format: "%.4f, %.4f", latitude, longitude))
        }
        if let addtime = hotel.addtime {
            let day = Date(timeIntervalSince1970: TimeInterval(addtime)).formatted(.iso8601.year().month().day())
            parts.append("added \(day)")
        }
        return parts.joined(separator: " · ")
    }

    /// `★4.5`: a hotel's rating, in as few digits as say it (`★4`, `★4.5`); empty without one.
    /// `%g` never traps, whatever a store holds.
    public static func rating(for hotel: Hotel) -> String {
        hotel.rating.map { "★" + String(format: "%g", $0) } ?? ""
    }

    /// The hotel's chain code, as sent (`MC`); empty without one.
    public static func chain(for hotel: Hotel) -> String {
        hotel.chainCode ?? ""
    }

    /// Great-circle distance in kilometres (haversine, mean Earth radius).
    public static func distance(from a: (Double, Double), to b: (Double, Double)) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.0 - a.0) * radians
        let dLon = (b.1 - a.1) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.0 * radians) * cos(b.0 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6371.0088 * asin(min(1, sqrt(h)))
    }
}
