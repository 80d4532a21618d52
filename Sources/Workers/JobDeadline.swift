import Foundation

/// A job's own deadline: past it, the run is cancelled and fails as timed out.
enum JobDeadline {
    static func run(_ seconds: Double?, _ body: @escaping @Sendable () async throws -> Void) async throws {
        guard let seconds else { return try await body() }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return false
            }
            defer { group.cancelAll() }
            guard let finished = try await group.next(), finished else {
                throw JobFailure("timed out after \(DurationText.of(seconds: seconds))", isPermanent: false)
            }
        }
    }
}

/// A length of time as `--every` and `--timeout` take it.
public enum DurationText {
    /// `30s`, `5m`, `6h`, `7d`, or a number of seconds; nil when it is none of these, or negative.
    public static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let (number, unit) = text.last.flatMap { units[$0] }.map { (text.dropLast(), $0) } ?? (Substring(text), 1)
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        return value * unit
    }

    /// `6h`, `10m`, `90s`, `2d`: the largest unit that divides it.
    public static func of(seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60)] where whole >= size && whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }
}
