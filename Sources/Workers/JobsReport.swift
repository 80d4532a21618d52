import Foundation
import OfflineStore
import PostgresStore

/// The queue as `hotels jobs` shows it, as text or JSON (and the dashboard's API).
public struct JobsReport: Encodable {
    public struct Worker: Encodable {
        public var id: String
        public var host: String
        public var pid: Int
        public var startedAt: Date
        public var lastHeartbeat: Date
        public var running: Int
        public var gone: Bool
    }

    public struct StaleList: Encodable {
        public var schedule: Int64
        public var list: String
        public var since: Date
        public var lastError: String?
    }

    public struct Dead: Encodable {
        public var id: Int64
        public var kind: String
        public var attempts: Int
        public var lastError: String
        /// The job's arguments as JSON, with what must not show taken out: a profile file's contents (they may
        /// hold a password) and an endpoint's `user:password@`. Empty when they do not read as the kind's.
        public var arguments: String
        /// The list the job was for, `Paris (sample at https://…)`; nil when its arguments do not read.
        public var list: String?

        init(_ job: JobsOverview<JobKind>.DeadJob) {
            (id, kind, attempts, lastError) = (job.id, job.kind, job.attempts, job.lastError)
            let decoder = JSONDecoder()
            let list: ListJobArguments?
            switch JobKind(rawValue: job.kind) {
            case .list:
                list = (try? decoder.decode(ListJobArguments.self, from: Data(job.arguments.utf8)))?.shown
                arguments = list.map(ListJobArguments.encode) ?? ""
            case .logos:
                if var logos = try? decoder.decode(LogosJobArguments.self, from: Data(job.arguments.utf8)) {
                    logos.list = logos.list.shown
                    (list, arguments) = (logos.list, ListJobArguments.encode(logos))
                } else {
                    (list, arguments) = (nil, "")
                }
            case .match:
                // A city holds no secret.
                list = nil
                arguments = (try? decoder.decode(MatchJobArguments.self, from: Data(job.arguments.utf8))).map(ListJobArguments.encode) ?? ""
            case nil:
                (list, arguments) = (nil, "")
            }
            self.list = list?.key.description
        }
    }

    public var counts: [String: Int]
    public var byKind: [String: [String: Int]]
    public var workers: [Worker]
    public var completedLastMinute: Int
    public var oldestAvailableSeconds: Double?
    public var dead: [Dead]
    /// How many scheduled lists are stale; ``staleLists`` says which.
    public var stale: Int
    public var staleLists: [StaleList]
    public var paused: [String]

    public init(_ overview: JobsOverview<JobKind>) {
        counts = Dictionary(uniqueKeysWithValues: overview.counts.map { ($0.key.rawValue, $0.value) })
        byKind = Dictionary(
            uniqueKeysWithValues: overview.byKind.map { kind, states in
                (kind.rawValue, Dictionary(uniqueKeysWithValues: states.map { ($0.key.rawValue, $0.value) }))
            })
        workers = overview.workers.map {
            Worker(
                id: $0.info.id, host: $0.info.host, pid: $0.info.pid, startedAt: $0.startedAt, lastHeartbeat: $0.heartbeatAt,
                running: $0.running,
                gone: $0.gone)
        }
        stale = overview.stale.count
        staleLists = overview.stale.map {
            StaleList(schedule: $0.id, list: ScheduleReport.listName($0), since: $0.staleSince, lastError: $0.lastError)
        }
        paused = overview.paused.map(\.rawValue)
        completedLastMinute = overview.completedLastMinute
        oldestAvailableSeconds = overview.oldestAvailableSeconds
        dead = overview.dead.map(Dead.init)
    }

    public var text: String {
        var lines = ["jobs: " + JobState.allCases.map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }.joined(separator: ", ")]
        for kind in byKind.keys.sorted() {
            let states = byKind[kind] ?? [:]
            lines.append(
                "  \(kind): "
                    + JobState.allCases.compactMap { state in states[state.rawValue].map { "\($0) \(state.rawValue)" } }
                    .joined(separator: ", "))
        }
        lines.append(
            "throughput: \(completedLastMinute) completed in the last minute; oldest waiting: "
                + (oldestAvailableSeconds.map { OfflineList.age($0) } ?? "none"))
        if !paused.isEmpty { lines.append("paused: " + paused.joined(separator: ", ") + " (hotels jobs resume)") }
        lines.append("workers: \(workers.count)")
        for worker in workers {
            lines.append(
                "  \(worker.host):\(worker.pid) (\(worker.id.prefix(8))): " + (worker.gone ? "GONE, " : "")
                    + "\(worker.running) running, started \(OfflineList.age(-worker.startedAt.timeIntervalSinceNow)) ago, "
                    + "last heartbeat \(OfflineList.age(-worker.lastHeartbeat.timeIntervalSinceNow)) ago")
        }
        if !staleLists.isEmpty {
            lines.append("stale: \(stale) scheduled lists not refreshed for two periods")
            lines += staleLists.map { list in
                "  \(list.list) (schedule \(list.schedule)): since \(OfflineList.age(-list.since.timeIntervalSinceNow)) ago"
                    + (list.lastError.map { "; last error: \($0)" } ?? "")
            }
        }
        if !dead.isEmpty {
            lines.append("dead:")
            lines += dead.map { "  job \($0.id) (\($0.kind), \($0.attempts) attempts)\($0.list.map { " " + $0 } ?? ""): \($0.lastError)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// A schedule as `hotels schedules` shows it: the list's keys, never its profile's contents.
public struct ScheduleReport: Encodable {
    public var id: Int64
    public var kind: String
    public var profile: String?
    public var endpoint: String?
    public var city: String?
    public var keyword: String?
    public var near: String?
    public var every: Double
    public var next: Date
    public var lastSuccess: Date?
    public var lastError: String?
    public var stale: Bool

    public init(_ schedule: JobSchedule<JobKind>) {
        id = schedule.id
        kind = schedule.kind.rawValue
        let list = try? JSONDecoder().decode(ListJobArguments.self, from: Data(schedule.arguments.utf8))
        profile = list?.profile.name
        endpoint = list?.key.shownEndpoint
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
    public static func listName(_ schedule: JobSchedule<JobKind>) -> String {
        let report = ScheduleReport(schedule)
        return report.place.map { "\($0) (\(report.profile ?? "?") at \(report.endpoint ?? "?"))" } ?? "schedule \(schedule.id)"
    }

    public var text: String {
        let name = place ?? "\(kind) job"
        let success = lastSuccess.map { "last success \(OfflineList.age(-$0.timeIntervalSinceNow)) ago" } ?? "never refreshed"
        let next = next.timeIntervalSinceNow > 0 ? "next in \(OfflineList.age(next.timeIntervalSinceNow))" : "due now"
        return "\(id)  \(name)  every \(DurationText.of(seconds: every)), \(next), \(success)" + (stale ? ", STALE" : "")
            + (lastError.map { "; last error: \($0)" } ?? "")
    }
}
