import Dispatch
import Foundation
import Locking
import Synchronization

/// Independent work over a range of indices, spread over the cores in
/// chunks, with the results in index order: the same output as one loop,
/// whatever the number of cores.
package enum ParallelChunks {
    /// `transform` of each chunk of `0..<count`, concatenated in order.
    /// - Parameter chunkSize: indices per chunk; small enough that the cores finish together.
    package static func map<T: Sendable>(
        _ count: Int, chunkSize: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount,
        _ transform: @Sendable (Range<Int>) -> [T]
    ) -> [T] {
        let chunks = (count + max(1, chunkSize) - 1) / max(1, chunkSize)
        guard chunks > 1, cores > 1 else { return transform(0..<count) }
        let next = Atomic<Int>(0)
        // A pthread mutex, which ThreadSanitizer sees (``Locking/PosixMutex``); the counter is an atomic, which it sees too.
        let results = PosixMutex<[Int: [T]]>([:])
        DispatchQueue.concurrentPerform(iterations: min(cores, chunks)) { _ in
            while true {
                let chunk = next.add(1, ordering: .relaxed).oldValue
                guard chunk < chunks else { return }
                let range = chunk * chunkSize..<min(count, (chunk + 1) * chunkSize)
                let part = transform(range)
                results.withLock { $0[chunk] = part }
            }
        }
        // Each part goes as it is joined: a city's scored pairs or normalised records are not held twice.
        return results.withLock { parts in
            var joined: [T] = []
            joined.reserveCapacity(parts.values.reduce(0) { $0 + $1.count })
            for chunk in 0..<chunks { joined += parts.removeValue(forKey: chunk) ?? [] }
            return joined
        }
    }
}
