import OfflineStore
import PostgresStore

/// What an operator does to the queue, and what it says it did: one
/// wording for `hotels jobs` and the dashboard's buttons.
public enum JobAction: Sendable, Equatable {
    /// Makes a job available again with fresh attempts.
    case retry(Int64)
    /// Every dead job, one per list (a list's other dead jobs are counted as left).
    case retryDead
    /// A running job's worker stops it at its next heartbeat or page.
    case cancel(Int64)
    /// Deletes jobs that ended longer ago than this many seconds.
    case prune(olderThan: Double)
    /// Workers claim nothing of these kinds until they are resumed; running jobs finish.
    case pause([JobKind])
    case resume([JobKind])

    /// Does it, and says what happened, in a sentence.
    public func perform(on queue: JobQueue<JobKind>) async throws(StoreError) -> String {
        switch self {
        case .retry(let id):
            return try await queue.retry(id)
                ? "job \(id) is available again"
                : "job \(id) was not retried: it is missing, queued already, or its list is queued again"
        case .retryDead:
            let result = try await queue.retryDead()
            return "\(result.retried) retried" + (result.left == 0 ? "" : ", \(result.left) left: its list already has a live job")
        case .cancel(let id):
            return try await queue.cancel(id) ? "job \(id) cancelled" : "job \(id) was not cancelled: it is missing or has ended"
        case .prune(let seconds):
            return "\(try await queue.prune(olderThan: seconds)) jobs pruned"
        case .pause(let kinds):
            try await queue.pause(kinds)
            return "\(Self.named(kinds)) paused: workers claim none until hotels jobs resume"
        case .resume(let kinds):
            try await queue.resume(kinds)
            return "\(Self.named(kinds)) resumed"
        }
    }

    private static func named(_ kinds: [JobKind]) -> String {
        let names = kinds.map(\.rawValue)
        return (names.count > 1 ? names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1] : names.joined()) + " jobs"
    }
}
