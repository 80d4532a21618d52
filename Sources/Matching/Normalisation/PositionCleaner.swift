/// What cleaning made of a record's position, for explanations.
public enum PositionNote: String, Sendable, Hashable, Codable {
    /// Used as the supplier sent it.
    case asGiven
    /// Latitude and longitude were exchanged; exchanged back, the position is near the city.
    case swapped
    /// The supplier sent none.
    case absent
    /// 0,0, dropped.
    case nullIsland
    /// Out of range, dropped.
    case invalid
    /// Farther from the city's centre than allowed, either way round, dropped.
    case farFromCentre
    /// Shared by too many records to be any one hotel's, dropped.
    case placeholder
}

/// The positions of all records, checked against their city's centre.
///
/// The centre is the median latitude and median longitude of the valid
/// positions of every list of the city (``centre(of:)``). Every list of the
/// city, not only the record's own: a supplier that exchanges latitude and
/// longitude in every record would otherwise find its own centre in the sea
/// and every position right. The median holds as long as most suppliers are right.
struct PositionCleaner {
    let configuration: NormalisationConfiguration

    func clean(_ records: [MatchRecord], cityKeys: [String]) -> [(position: GeoPoint?, note: PositionNote)] {
        let raw = records.map { record -> GeoPoint? in
            guard let latitude = record.hotel.latitude, let longitude = record.hotel.longitude else { return nil }
            return GeoPoint(latitude: latitude, longitude: longitude)
        }
        let centres = centres(raw: raw, cityKeys: cityKeys)
        var cleaned = raw.indices.map { index in check(raw[index], centre: centres[cityKeys[index]]) }
        dropPlaceholders(&cleaned)
        return cleaned
    }

    private func check(_ point: GeoPoint?, centre: GeoPoint?) -> (position: GeoPoint?, note: PositionNote) {
        guard let point else { return (nil, .absent) }
        if point.isNullIsland { return (nil, .nullIsland) }
        let limit = configuration.maxMetresFromCentre
        guard point.isValid else {
            let swapped = point.swapped
            if swapped.isValid, centre.map({ swapped.distance(to: $0) <= limit }) ?? true { return (swapped, .swapped) }
            return (nil, .invalid)
        }
        guard let centre else { return (point, .asGiven) }
        if point.distance(to: centre) <= limit { return (point, .asGiven) }
        let swapped = point.swapped
        if swapped.isValid, swapped.distance(to: centre) <= limit { return (swapped, .swapped) }
        return (nil, .farFromCentre)
    }

    /// The same point, to about a metre, on more records than allowed.
    private func dropPlaceholders(_ cleaned: inout [(position: GeoPoint?, note: PositionNote)]) {
        var counts: [PointKey: Int] = [:]
        for entry in cleaned {
            if let position = entry.position { counts[PointKey(position), default: 0] += 1 }
        }
        guard counts.values.contains(where: { $0 > configuration.placeholderPositionRecords }) else { return }
        for index in cleaned.indices {
            if let position = cleaned[index].position, counts[PointKey(position), default: 0] > configuration.placeholderPositionRecords {
                cleaned[index] = (nil, .placeholder)
            }
        }
    }

    private struct PointKey: Hashable {
        let latitude: Int64
        let longitude: Int64

        init(_ point: GeoPoint) {
            latitude = Int64((point.latitude * 100_000).rounded())
            longitude = Int64((point.longitude * 100_000).rounded())
        }
    }

    /// Each city's centre, from its valid positions, 0,0 left out.
    func centres(raw: [GeoPoint?], cityKeys: [String]) -> [String: GeoPoint] {
        var points: [String: [GeoPoint]] = [:]
        for (index, point) in raw.enumerated() {
            guard let point, point.isValid, !point.isNullIsland else { continue }
            points[cityKeys[index], default: []].append(point)
        }
        return points.compactMapValues(centre)
    }

    /// The median latitude and longitude; when most positions are not
    /// within reach of that (a short list with several wrong), the median
    /// of the largest group of positions within reach of one another. Either
    /// way the median is then taken again over the positions within reach,
    /// so that the wrong ones do not pull it.
    func centre(of points: [GeoPoint]) -> GeoPoint? {
        let limit = configuration.maxMetresFromCentre
        guard let median = Self.median(points) else { return nil }
        var near = points.filter { $0.distance(to: median) <= limit }
        if near.count * 2 <= points.count {
            // A sample in the records' order, enough to find the main group and bounded for big lists.
            let step = max(1, points.count / 64)
            let sample = stride(from: 0, to: points.count, by: step).map { points[$0] }
            let groups = sample.map { seed in points.filter { $0.distance(to: seed) <= limit } }
            near = groups.max { $0.count < $1.count } ?? near
        }
        return Self.median(near) ?? median
    }

    static func median(_ points: [GeoPoint]) -> GeoPoint? {
        guard let latitude = median(points.map(\.latitude)), let longitude = median(points.map(\.longitude)) else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
