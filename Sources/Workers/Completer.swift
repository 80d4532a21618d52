import Fetching
import Foundation
import Locking
import Logging
import OfflineStore
import PostgresStore

/// Writes completions in batches: one statement for whatever runs finished
/// while the last one was written, so a worker of many short jobs is not
/// held to a transaction per job, and one idle worker's completion waits
/// for nothing. A batch that cannot be written (an error, or no answer
/// within the deadline) is tried again, backing off, until it lands or its
/// leases are known lost: a run that succeeded is never left to expire.
final class Completer: Sendable {
    /// What became of a batch of completions.
    enum Outcome {
        /// Written: the leases that still held.
        case written([ClaimedJob<JobKind>], held: Set<JobLease>)
        /// Not written, and its leases are known lost: given up.
        case givenUp([ClaimedJob<JobKind>], StoreError)
        /// Not written, and tried again while the leases hold.
        case retrying(StoreError)
    }

    private struct Waiting {
        var job: ClaimedJob<JobKind>
        var done: CheckedContinuation<Void, Never>
    }

    private struct State {
        var pending: [Waiting] = []
        var flushing = false
        var onFlush: @Sendable (Outcome) -> Void = { _ in }
        var isLost: @Sendable (JobLease) -> Bool = { _ in false }
    }

    private let queue: JobQueue<JobKind>
    private let deadline: Double
    private let state = PosixMutex(State())

    init(queue: JobQueue<JobKind>, deadline: Double) {
        self.queue = queue
        self.deadline = deadline
    }

    /// Told of each batch: written, given up, or tried again.
    var onFlush: @Sendable (Outcome) -> Void {
        get { state.withLock { $0.onFlush } }
        set { state.withLock { $0.onFlush = newValue } }
    }

    /// Whether a lease is known lost: its completion is then given up.
    var isLost: @Sendable (JobLease) -> Bool {
        get { state.withLock { $0.isLost } }
        set { state.withLock { $0.isLost = newValue } }
    }

    /// Returns once the job's completion is written, or given up with its lease.
    func complete(_ job: ClaimedJob<JobKind>) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let starts = state.withLock { state in
                state.pending.append(Waiting(job: job, done: done))
                defer { state.flushing = true }
                return !state.flushing
            }
            if starts { Task { await flush() } }
        }
    }

    private func flush() async {
        var failures = 0
        while true {
            let (batch, onFlush, isLost) = state.withLock { state in
                let batch = state.pending
                state.pending = []
                state.flushing = !batch.isEmpty
                return (batch, state.onFlush, state.isLost)
            }
            guard !batch.isEmpty else { return }
            do {
                let held = try await PostgresDatabase.withCallTimeout(deadline) { try await queue.complete(batch.map(\.job.lease)) }
                failures = 0
                onFlush(.written(batch.map(\.job), held: held))
                batch.forEach { $0.done.resume() }
            } catch let failure {
                // The queue's calls throw only StoreError; the deadline's wrapper does not say so.
                let error = failure as? StoreError ?? StoreError(path: queue.database.location, reason: String(describing: failure))
                failures += 1
                let (lost, again) = (batch.filter { isLost($0.job.lease) }, batch.filter { !isLost($0.job.lease) })
                if !lost.isEmpty {
                    onFlush(.givenUp(lost.map(\.job), error))
                    lost.forEach { $0.done.resume() }
                }
                if !again.isEmpty { onFlush(.retrying(error)) }
                state.withLock { $0.pending = again + $0.pending }
                try? await Task.sleep(for: .seconds(min(5, 0.1 * pow(2, Double(min(failures, 6))))))
            }
        }
    }
}
