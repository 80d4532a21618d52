// The job queue alone: no-op jobs enqueued, then claimed and completed by
// in-process workers, for scripts/compare workers.
//
// usage: queue-throughput STORE-URL JOBS CLAIMERS[,CLAIMERS…] BATCH
// Prints one JSON line per claimer count: {"claimers": K, "jobs": N, "seconds": S}.
import Foundation
import PostgresStore
import Workers

struct NoOp: JobRunner {
    func run(_ job: ClaimedJob<JobKind>, queue: JobQueue<JobKind>) async throws {}
    func close() async {}
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let jobs = Int(arguments[2]), let batch = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: queue-throughput STORE-URL JOBS CLAIMERS[,CLAIMERS…] BATCH\n".utf8))
    exit(64)
}
let claimerCounts = arguments[3].split(separator: ",").compactMap { Int($0) }
let database = try await PostgresDatabase.open(
    try PostgresLocation(url: arguments[1] + (arguments[1].contains("?") ? "&" : "?") + "pool_size=20"))
let queue = JobQueue<JobKind>(database: database)

for claimers in claimerCounts {
    for start in stride(from: 0, to: jobs, by: 5000) {
        try await queue.enqueue((start..<min(jobs, start + 5000)).map { NewJob<JobKind>(kind: .list, arguments: #"{"n":\#($0)}"#) })
    }
    // Completions are counted as the workers report them: polling the table would load the server being measured.
    let (done, completed) = AsyncStream<Void>.makeStream()
    let workers = (0..<claimers).map { index in
        Worker(
            queue: queue, runner: NoOp(),
            configuration: Worker.Configuration(
                id: "bench-\(claimers)-\(index)", kinds: [.list],
                concurrency: batch),
            observe: { event in if case .completed = event { completed.yield() } })
    }
    let started = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in workers { group.addTask { try await worker.run() } }
        var count = 0
        for await _ in done {
            count += 1
            if count == jobs { break }
        }
        let elapsed = ContinuousClock.now - started
        workers.forEach { $0.stop() }
        try await group.waitForAll()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(#"{"claimers": \#(claimers), "jobs": \#(jobs), "seconds": \#(seconds)}"#)
    }
    try await queue.prune(olderThan: 0)
}
await database.close()
