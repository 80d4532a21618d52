import Foundation
import PostgresStore

/// What a job does: HotelKit's kinds of job, which ``Worker`` claims and
/// ``HotelJobRunner`` runs. The queue stores each as its raw value; HotelKit's
/// queue is a `JobQueue<JobKind>` (``/PostgresStore/JobQueueKind``).
public enum JobKind: String, Sendable, Codable, CaseIterable, JobQueueKind {
    /// A whole list: its pages into the store (the list job).
    case list
    /// A page of a list's rows: their logos processed into the store's logo index.
    case logos
    /// A city's lists matched into properties again, after a list job changed one.
    case match

    /// The kinds in `text`, comma-separated (`list,logos`); nil when one is not a kind.
    public static func list(_ text: String) -> [JobKind]? {
        let kinds = text.split(separator: ",").map { JobKind(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        return kinds.contains(nil) ? nil : kinds.compactMap { $0 }
    }
}
