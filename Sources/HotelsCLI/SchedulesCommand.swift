import ArgumentParser
import Fetching
import Workers

/// `hotels schedules`: the lists kept fresh on their own, and how fresh they are.
struct SchedulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedules",
        abstract: "List the schedules of the shared store (hotels enqueue --every makes them), stale ones first; remove one.",
        discussion: """
            The elected worker enqueues each schedule's run when its time comes, whatever happened to the last one, \
            anchored to the clock (the last scheduled time plus the period). A list not refreshed for two periods is stale.
            """,
        subcommands: [Show.self, Remove.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every schedule: its list, period, next run, last success and last error.")
        @OptionGroup var storeOptions: JobStoreOptions
        @Flag(help: "Print a JSON array: id, city (and the list's other keys), every (seconds), next, lastSuccess, lastError, stale.")
        var json = false

        func run() async throws {
            try await act(storeOptions) { queue in
                let schedules = try await queue.schedules().map(ScheduleReport.init)
                if json { return JSONLine.string(schedules) }
                guard !schedules.isEmpty else { return "no schedules: hotels enqueue --every 6h makes one" }
                return schedules.map(\.text).joined(separator: "\n")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a schedule: its list is no longer refreshed (a run under way finishes).")
        @OptionGroup var storeOptions: JobStoreOptions
        @Argument(help: "The schedule's id.") var id: Int64

        func run() async throws {
            try await act(storeOptions) { queue in
                try await queue.removeSchedule(id) ? "schedule \(id) removed" : "no schedule \(id)"
            }
        }
    }
}
