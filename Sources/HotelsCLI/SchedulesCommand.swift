import ArgumentParser
import Foundation
import OfflineStore
import PostgresStore
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
        static let configuration = CommandConfiguration(abstract: "Every schedule: its list, period, next run, last success and last error.")
        @OptionGroup var storeOptions: JobStoreOptions
        @Flag(help: "Print a JSON array: id, city (and the list's other keys), every (seconds), next, lastSuccess, lastError, stale.")
        var json = false

        func run() async throws {
            try await act(storeOptions) { queue in
                let schedules = try await queue.schedules().map(ScheduleReport.init)
                if json { return jsonLine(schedules) }
                guard !schedules.isEmpty else { return "no schedules: hotels enqueue --every 6h makes one" }
                return schedules.map(\.text).joined(separator: "\n")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a schedule: its list is no longer refreshed (a run under way finishes).")
        @OptionGroup var storeOptions: JobStoreOptions
        @Argument(help: "The schedule's id.") var id: Int64

        func run() async throws {
            try await act(storeOptions) { queue in
                try await queue.removeSchedule(id) ? "schedule \(id) removed" : "no schedule \(id)"
            }
        }
    }
}

/// A schedule as `hotels schedules` shows it: the list's keys, never its profile's contents.
struct ScheduleReport: Encodable {
    var id: Int64
    var kind: String
    var profile: String?
    var endpoint: String?
    var city: String?
    var keyword: String?
    var near: String?
    var every: Double
    var next: Date
    var lastSuccess: Date?
    var lastError: String?
    var stale: Bool

    init(_ schedule: JobSchedule) {
        id = schedule.id
        kind = schedule.kind.rawValue
        let list = try? JSONDecoder().decode(ListJobArguments.self, from: Data(schedule.arguments.utf8))
        profile = list?.profile.name
        endpoint = list?.endpoint
        city = list?.city
        keyword = list?.keyword
        near = list?.area.map { "\($0.latitude),\($0.longitude)" }
        every = schedule.every
        next = schedule.next
        lastSuccess = schedule.lastSuccess
        lastError = schedule.lastError
        stale = schedule.stale
    }

    /// `Paris “spa” near 48.85,2.35`: the list, or nil when the arguments do not read as a list's.
    private var place: String? {
        city.map { $0 + (keyword.map { " “\($0)”" } ?? "") + (near.map { " near \($0)" } ?? "") }
    }

    /// `Paris (sample at https://…)`, or the schedule's id when its arguments do not read as a list's.
    static func listName(_ schedule: JobSchedule) -> String {
        let report = ScheduleReport(schedule)
        return report.place.map { "\($0) (\(report.profile ?? "?") at \(report.endpoint ?? "?"))" } ?? "schedule \(schedule.id)"
    }

    var text: String {
        let name = place ?? "\(kind) job"
        let success = lastSuccess.map { "last success \(OfflineList.age(-$0.timeIntervalSinceNow)) ago" } ?? "never refreshed"
        let next = next.timeIntervalSinceNow > 0 ? "next in \(OfflineList.age(next.timeIntervalSinceNow))" : "due now"
        return "\(id)  \(name)  every \(DurationText.of(seconds: every)), \(next), \(success)" + (stale ? ", STALE" : "")
            + (lastError.map { "; last error: \($0)" } ?? "")
    }
}
