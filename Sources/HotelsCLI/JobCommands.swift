import ArgumentParser
import Console
import Dashboard
import Failures
import Fetching
import Foundation
import Imaging
import OfflineStore
import PostgresStore
import Runtime
import ServiceLifecycle
import Workers

/// A length of time as people write it: `30s`, `5m`, `6h`, `7d`, or seconds.
struct Seconds: ExpressibleByArgument, Sendable {
    var value: Double

    init(seconds: Double) {
        value = seconds
    }

    init?(argument: String) {
        guard let value = DurationText.seconds(argument) else { return nil }
        self.value = value
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// `--store URL` (or `HOTELKIT_STORE`): the shared store every job command needs.
struct JobStoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The shared store holding the jobs: postgres://USER@HOST:PORT/DATABASE?sslmode=disable (or HOTELKIT_STORE).",
            valueName: "url"))
    var store: String?

    /// `--store`, else `HOTELKIT_STORE`; 64 when neither names a store.
    func url() throws -> String {
        guard let url = sharedStoreURL(store) else {
            Diagnostics.error("no store named", hint: "give --store postgres://USER@HOST:PORT/DATABASE, or set HOTELKIT_STORE")
            throw ExitStatus.usage.code
        }
        return url
    }

    /// The runtime on the shared store.
    func runtime(_ configure: (inout HotelRuntime.Configuration) throws -> Void = { _ in }) async throws -> HotelRuntime {
        try await openRuntime(store: try url(), folder: nil, configure)
    }

    func openQueue() async throws -> JobQueue<JobKind> {
        guard let store = try await runtime().sharedStore else { throw ExitStatus.usage.code }
        return JobQueue<JobKind>(database: store.database)
    }
}

/// `hotels enqueue`: lists as jobs, for `hotels worker` processes on any host.
struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Queue hotel lists as jobs in the shared store, for hotels worker processes on any host.",
        discussion: """
            All lists go in one statement; a list already queued (available, running or retryable) is \
            not queued again. A profile file's contents are stored with the job, so workers need no \
            copy; credentials are not: each worker reads them from its own environment or --credentials.
            """
    )

    @OptionGroup var storeOptions: JobStoreOptions
    @OptionGroup var service: ServiceOptions
    @Option(name: .customLong("city"), help: "A city to list; repeat it for several.") var cities: [String] = []
    @Option(name: .customLong("cities"), help: ArgumentHelp("A file of cities, one a line (# starts a comment).", valueName: "file"))
    var citiesFile: String?
    @OptionGroup var query: QueryOptions
    @Option(
        help: ArgumentHelp(
            """
            Refresh each list this often, whatever happens to each run: makes the list's schedule, or updates it (30m, 6h, 1d; \
            at least 1s). See hotels schedules.
            """, valueName: "duration"))
    var every: Seconds?
    @Option(
        help: ArgumentHelp(
            "How long a run may take before it is cancelled and retried as timed out (default 1h; its logos jobs get 10m).",
            valueName: "duration"))
    var timeout = Seconds(seconds: ListJobArguments.defaultTimeout)
    @Flag(help: "Process each list's logos into the store's logo index, as logos jobs any worker takes.") var logos = false
    @Option(help: "With --logos: the filter chain, e.g. resize:64x64:fill.") var filter = ""
    @Option(help: "Higher runs first.") var priority = 0
    @Option(help: "Attempts before a job is dead.") var maxAttempts = 5
    @Flag(help: "Print the counts as JSON.") var json = false

    func validate() throws {
        guard maxAttempts > 0 else { throw ValidationError("--max-attempts must be at least 1") }
        guard !cities.isEmpty || citiesFile != nil else { throw ValidationError("name the lists with --city or --cities FILE") }
        if let every, every.value < 1 { throw ValidationError("--every must be at least 1s") }
        guard timeout.value >= 1 else { throw ValidationError("--timeout must be at least 1s") }
        guard logos || filter.isEmpty else { throw ValidationError("--filter goes with --logos") }
    }

    func run() async throws {
        let profile = try reported("--profile") { try JobProfile(nameOrPath: service.profile) }
        _ = try reported("--filter") { try FilterChain(parsing: filter) }
        let area = try query.area()
        let jobs = try reported("--cities \(citiesFile ?? "")") { try CityList.merge(cities, file: citiesFile) }.map { city in
            ListJobArguments(
                profile: profile, endpoint: service.endpoint, city: city, keyword: query.keyword, area: area, pageSize: query.pageSize,
                logos: logos,
                filter: filter
            ).job(priority: priority, maxAttempts: maxAttempts, every: every?.value, timeout: timeout.value)
        }
        let queue = try await storeOptions.openQueue()
        let result = try await reported("enqueue") { try await queue.enqueue(jobs) }
        await queue.database.close()
        let scheduled = every.map { "; \(result.scheduled) scheduled every \(DurationText.of(seconds: $0.value))" } ?? ""
        let text =
            json
            ? JSONLine.string(["new": result.new, "alreadyQueued": result.alreadyQueued, "scheduled": result.scheduled])
            : "\(result.new) new, \(result.alreadyQueued) already queued" + scheduled
        writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }
}

/// `hotels worker`: claims and runs jobs until SIGTERM or SIGINT.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Claim and run jobs from the shared store until stopped; run any number, on any hosts.",
        discussion: """
            Claims with FOR UPDATE SKIP LOCKED, renews its leases by heartbeat, and writes each page \
            under its claim's fencing token: a job it lost to another worker is stopped, never written \
            twice. SIGTERM or SIGINT stops claiming, gives running jobs --grace to finish, gives the \
            rest back, logs out the sessions and exits 0; a second signal ends it at once.
            """
    )

    @OptionGroup var storeOptions: JobStoreOptions
    @Option(help: "Jobs run at once.") var concurrency = 4
    @Option(help: "The kinds of job to take, comma-separated: list, logos, match.") var kinds = "list,logos,match"
    @Option(help: ArgumentHelp("How long running jobs may take to finish once stopped.", valueName: "duration")) var grace = Seconds(
        seconds: 30)
    @Option(help: ArgumentHelp("How long a claim holds without a heartbeat.", valueName: "duration")) var lease = Seconds(seconds: 30)
    @Option(help: "A JSON file of credentials for the profiles' {env:NAME} placeholders (mode 600).") var credentials: String?
    @Option(help: "Where processed logos are also kept on this host (default $XDG_CACHE_HOME/hotelkit).") var cache: String?
    @Option(help: "Serve Prometheus metrics at http://HOST:PORT/metrics (claims, outcomes by kind, leases, pages, hotels, logos).")
    var metricsPort: Int?
    @Option(help: "The address --metrics-port listens on.") var metricsHost = "127.0.0.1"
    @Flag(help: "Exit 0 once no job is left to claim and none runs (a batch run); jobs scheduled later are left.") var drain = false
    @Flag(help: "Print each job's outcome on stderr.") var verbose = false
    @Option(
        help: ArgumentHelp(
            "Records of cities' last matches kept in memory, so that a city's next match job here matches again only the records that changed and their neighbours (0: none; cities under \(MatchMemory.defaultSmallestCity.formatted()) records are always matched in full).",
            valueName: "records"))
    var matchMemory = 250_000

    func validate() throws {
        guard concurrency > 0 else { throw ValidationError("--concurrency must be at least 1") }
        if let metricsPort, !(1...65535).contains(metricsPort) { throw ValidationError("--metrics-port must be a port, 1 to 65535") }
        guard lease.value >= 1 else { throw ValidationError("--lease must be at least 1s") }
        guard matchMemory >= 0 else { throw ValidationError("--match-memory must be 0 or more records") }
        guard !(try parsedKinds()).isEmpty else { throw ValidationError("--kinds names no kind") }
    }

    private func parsedKinds() throws -> [JobKind] {
        guard let parsed = JobKind.list(kinds) else {
            throw ValidationError("--kinds: “\(kinds)” names a kind of job that is not list, logos or match")
        }
        return parsed
    }

    func run() async throws {
        let runtime = try await storeOptions.runtime { configuration in
            try configuration.read(credentials: credentials, context: "--credentials")
            if matchMemory > 0 { configuration.matchMemory = MatchMemory(recordLimit: matchMemory) }
            configuration.logoFolder = (cache.map { URL(fileURLWithPath: $0) } ?? SQLiteHotelStore.defaultFolder).appendingPathComponent(
                "images")
        }
        let worker = try reported("worker") {
            var configuration = Worker.Configuration(
                kinds: try parsedKinds(), concurrency: concurrency, lease: lease.value, grace: grace.value)
            configuration.drain = drain
            return try Worker(
                runtime: runtime, configuration: configuration,
                observe: { [verbose] event in
                    if verbose { Diagnostics.note("worker: \(event)") }
                })
        }
        var services: [any Service] = [worker]
        if let metricsPort { services.append(MetricsEndpoint(host: metricsHost, port: metricsPort)) }
        let failure = await ProcessServices().failure(running: services, closingLast: runtime)
        if let failure = failure as? MetricsEndpoint.CannotServe {
            throw Diagnostics.report(failure, context: "--metrics-port \(failure.port)").code
        }
        if let failure { throw Diagnostics.report(failure, context: "worker").code }
    }
}

/// `hotels jobs`: the queue at a glance, and what an operator does to jobs.
struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Show the shared store's jobs and workers; retry, cancel and prune jobs; pause and resume kinds.",
        subcommands: [Show.self, Retry.self, Cancel.self, Prune.self, Pause.self, Resume.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: """
                Counts by state and kind, the workers (gone ones marked), throughput over the last minute, the oldest wait, \
                paused kinds, stale lists, and dead jobs with their last error.
                """)
        @OptionGroup var storeOptions: JobStoreOptions
        @Flag(help: "Print as JSON.") var json = false
        @Flag(help: "Show it again every two seconds until interrupted.") var watch = false

        func run() async throws {
            let queue = try await storeOptions.openQueue()
            repeat {
                let overview = try await reported("jobs") { try await queue.overview() }
                let text = json ? JSONLine.string(JobsReport(overview)) : JobsReport(overview).text
                writeAll(Array(((watch && !json ? "\u{1B}[H\u{1B}[2J" : "") + text + "\n").utf8), to: STDOUT_FILENO)
                if watch { try await Task.sleep(for: .seconds(2)) }
            } while watch
            await queue.database.close()
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a job, or every dead job, available again with fresh attempts.")
        @OptionGroup var storeOptions: JobStoreOptions
        @Argument(help: "The job's id.") var id: Int64?
        @Flag(help: "Every dead job.") var dead = false

        func validate() throws {
            guard (id == nil) != !dead else { throw ValidationError("give a job's id or --dead") }
        }

        func run() async throws {
            try await act(storeOptions, id.map { .retry($0) } ?? .retryDead)
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a job; a running one's worker stops it at its next heartbeat or page.")
        @OptionGroup var storeOptions: JobStoreOptions
        @Argument(help: "The job's id.") var id: Int64

        func run() async throws {
            try await act(storeOptions, .cancel(id))
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete jobs that ended (completed, dead, cancelled) longer ago than --older-than.")
        @OptionGroup var storeOptions: JobStoreOptions
        @Option(help: ArgumentHelp("How long ago: 7d, 12h.", valueName: "duration")) var olderThan: Seconds

        func run() async throws {
            try await act(storeOptions, .prune(olderThan: olderThan.value))
        }
    }
}

extension JobsCommand {
    /// `--kind list|logos`, or every kind.
    struct KindOptions: ParsableArguments {
        @Option(help: "The kind of job: list, logos or match (default: all).") var kind: JobKind?

        var kinds: [JobKind] { kind.map { [$0] } ?? JobKind.allCases }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Workers claim no job of the kind until it is resumed; running jobs finish.")
        @OptionGroup var storeOptions: JobStoreOptions
        @OptionGroup var kindOptions: KindOptions

        func run() async throws {
            try await act(storeOptions, .pause(kindOptions.kinds))
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Workers claim jobs of the kind again.")
        @OptionGroup var storeOptions: JobStoreOptions
        @OptionGroup var kindOptions: KindOptions

        func run() async throws {
            try await act(storeOptions, .resume(kindOptions.kinds))
        }
    }
}

extension JobKind: ExpressibleByArgument {}

/// Opens the queue, does `action`, prints what it says, and reports a failure with its exit code.
func act(_ options: JobStoreOptions, _ action: JobAction) async throws {
    try await act(options) { try await action.perform(on: $0) }
}

/// Opens the queue, runs `action`, prints what it says, and reports a failure with its exit code.
func act(_ options: JobStoreOptions, _ action: (JobQueue<JobKind>) async throws -> String) async throws {
    let queue = try await options.openQueue()
    let said = try await reported("jobs") { try await action(queue) }
    await queue.database.close()
    writeAll(Array((said + "\n").utf8), to: STDOUT_FILENO)
}
