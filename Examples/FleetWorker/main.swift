// A fleet worker in a program of its own: what `hotels worker` does, through
// the library. It claims list and logos jobs from the shared store (queue
// them with `hotels enqueue --store URL … --every 6h`), runs each through
// the runtime's clients and logo pipelines, and stops on SIGTERM or SIGINT,
// letting running jobs finish and giving the rest back.
//   swift run FleetWorker postgres://hotels@127.0.0.1:5432/hotels?sslmode=disable
import Console
import Foundation
import Runtime
import Workers

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: FleetWorker postgres://USER@HOST:PORT/DATABASE\n".utf8))
    exit(64)
}
// Months unattended: the heap kept to one arena per core, so RSS stays flat.
MallocArenas.bound()
do {
    // Credentials for the profiles' {env:NAME} placeholders come from this process's environment.
    let runtime = try await HotelRuntime.open(.init(store: try StoreLocation(arguments[1])))
    let worker = try Worker(runtime: runtime, configuration: .init(concurrency: 4, lease: 30)) { event in
        switch event {
        case .completed, .retried, .dead, .leader: print("worker: \(event)")
        default: break
        }
    }
    // The worker runs as a service: the first signal stops claiming and drains, a second one ends the process.
    let failure = await ProcessServices().failure(running: [worker])
    await runtime.close()
    if let failure { throw failure }
} catch {
    // The error, what to do about it, and the exit status that says it to a shell.
    exit(Diagnostics.report(error, context: "").rawValue)
}
