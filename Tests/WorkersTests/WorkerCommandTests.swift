import Foundation
import HTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hotels enqueue`, `hotels worker` and `hotels jobs` as processes, against `hotels serve` and a real PostgreSQL.
@Suite("hotels enqueue, worker and jobs")
struct WorkerCommandTests {
    /// `hotels worker` on the store at `url`, two slots, a cache folder of its own.
    func workerArguments(_ url: String, _ extra: [String] = []) -> [String] {
        [
            "worker", "--store", url, "--concurrency", "2", "--cache",
            FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString)").path,
        ] + extra
    }

    func worker(_ url: String, _ extra: [String] = []) throws -> ChildProcess {
        let process = Process()
        process.executableURL = HotelsProcess.executable
        process.arguments = workerArguments(url, extra)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return try ChildProcess(starting: process)
    }

    @Test("lists queued once are fetched whole by two worker processes, their logos into the index; SIGTERM stops each with 0")
    func listsAcrossWorkers() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let serve = try await ServeProcess(["--hotels", "100"])
        defer { withExtendedLifetime(serve) {} }
        let enqueue = [
            "enqueue", "--store", url, "--endpoint", serve.endpoint, "--city", "Paris", "--city", "Rome", "--city", "Tokyo",
            "--page-size", "5", "--logos", "--filter", "resize:16x16:fill",
        ]
        let queued = try await HotelsProcess.run(enqueue)
        #expect(queued.status == 0 && queued.stdout == "3 new, 0 already queued\n", "\(queued.stderr)")
        #expect(try await HotelsProcess.run(enqueue).stdout == "0 new, 3 already queued\n")

        let workers = try [worker(url), worker(url)]
        let open = { try await server.psql("SELECT count(*) FROM jobs WHERE state <> 'completed'", database: database).trimmed }
        let logosJobs = { try await server.psql("SELECT count(*) FROM jobs WHERE kind = 'logos'", database: database).trimmed }
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let (remaining, logos) = (try await open(), try await logosJobs())
            if remaining == "0" && logos != "0" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        for process in workers { process.signal(SIGTERM) }
        for process in workers { await process.ended() }
        #expect(workers.map(\.terminationStatus) == [0, 0])
        #expect(workers.map(\.terminationReason) == [.exit, .exit])

        #expect(try await open() == "0")
        // Each list whole and ended, as hotels fetch leaves it (the sample has no hotel in Rome), none twice.
        #expect(
            try await server.psql("SELECT city, hotel_count, exhausted FROM lists ORDER BY city", database: database).trimmed
                == "Paris|20|t\nRome|0|t\nTokyo|10|t")
        #expect(
            try await server.psql("SELECT count(*), count(DISTINCT (list_id, code)) FROM hotels", database: database).trimmed == "30|30")
        // A match job for each city whose list gained rows (Rome's is empty).
        #expect(try await server.psql("SELECT count(*) FROM jobs WHERE kind = 'match'", database: database).trimmed == "2")
        // A logos job a page of 5 rows, and every row's logo processed into the index.
        #expect(try await server.psql("SELECT count(*) FROM jobs WHERE kind = 'logos'", database: database).trimmed == "6")
        #expect(
            try await server.psql(
                """
                SELECT count(DISTINCT h.logo_url), count(DISTINCT i.url) FROM hotels h
                LEFT JOIN images i ON i.url = h.logo_url AND i.filter = 'resize:16x16:fill' AND i.data IS NOT NULL
                """, database: database
            ).trimmed == "30|30")

        let jobs = try await HotelsProcess.run(["jobs", "--store", url, "--json"])
        #expect(
            jobs.status == 0
                && jobs.stdout.contains(#""counts":{"available":0,"cancelled":0,"completed":11,"dead":0,"retryable":0,"running":0}"#),
            "\(jobs.stdout)\(jobs.stderr)")
        #expect(jobs.stdout.contains(#""workers":[]"#), "the workers signed off")
        let text = try await HotelsProcess.run(["jobs", "--store", url])
        #expect(text.status == 0 && text.stdout.hasPrefix("jobs: 0 available, 0 running, 0 retryable, 11 completed, 0 dead, 0 cancelled"))
        for output in [queued, jobs, text] { #expect(!(output.stdout + output.stderr).contains(TestPostgres.password)) }
    }

    @Test(
        "hotels worker --drain fetches what is queued, the logos and match jobs its lists add too, and exits 0 by itself; a job scheduled later is left"
    )
    func drains() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let serve = try await ServeProcess(["--hotels", "100"])
        defer { withExtendedLifetime(serve) {} }
        let queued = try await HotelsProcess.run([
            "enqueue", "--store", url, "--endpoint", serve.endpoint, "--city", "Paris", "--city", "Tokyo",
            "--page-size", "5", "--logos",
        ])
        #expect(queued.status == 0, "\(queued.stderr)")
        try await server.psql(
            "INSERT INTO jobs (kind, args, scheduled_at) SELECT kind, args, now() + interval '1 hour' FROM jobs LIMIT 1",
            database: database)
        let drained = try await HotelsProcess.run(workerArguments(url, ["--drain"]), timeLimit: 120)
        #expect(drained.status == 0, "\(drained.stderr)")
        // Paris's 20 rows and Tokyo's 10 in pages of 5: a logos job a page; each city's new rows, a match job.
        let jobs = try await server.psql("SELECT kind, state, count(*) FROM jobs GROUP BY 1, 2 ORDER BY 1, 2", database: database).trimmed
        #expect(jobs == "list|available|1\nlist|completed|2\nlogos|completed|6\nmatch|completed|2")
        let properties = try await server.psql("SELECT scope, count(*) FROM properties GROUP BY 1 ORDER BY 1", database: database).trimmed
        #expect(properties == "paris|20\ntokyo|10")
        #expect(try await server.psql("SELECT count(*) FROM workers", database: database).trimmed == "0")
    }

    @Test(
        "a job that cannot work (its profile's credentials are not set) is dead at once with its error, seen in the metrics; retry --dead, cancel and prune act on it"
    )
    func deadJobs() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let profile = Samples.url("Profiles/sabre-style.json").path
        let queued = try await HotelsProcess.run([
            "enqueue", "--store", url, "--profile", profile, "--endpoint", "http://127.0.0.1:1/soap",
            "--city", "Paris",
        ])
        #expect(queued.status == 0, "\(queued.stderr)")
        // The profile's contents travel with the job.
        #expect(try await server.psql("SELECT args->'profile'->>'json' IS NOT NULL FROM jobs", database: database).trimmed == "t")
        let port = try TestPostgres.freePort()
        let worker = try self.worker(url, ["--metrics-port", String(port)])
        let deadline = Date().addingTimeInterval(60)
        while try await server.psql("SELECT state FROM jobs", database: database).trimmed != "dead", Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        // Scraped as Prometheus would.
        let (head, body) = try await HTTPTransport.patient().data(for: HTTPRequest(url: "http://127.0.0.1:\(port)/metrics"))
        let metrics = String(decoding: body, as: UTF8.self)
        #expect(head.status == 200 && head.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        for line in [
            #"hotelkit_jobs_claimed_total{kind="list"} 1"#, #"hotelkit_jobs_dead_total{kind="list"} 1"#,
            "hotelkit_job_claim_seconds_count 1",
        ] {
            #expect(metrics.contains(line), "\(metrics)")
        }
        worker.signal(SIGTERM)
        await worker.ended()
        #expect(try await server.psql("SELECT state, attempt FROM jobs", database: database).trimmed == "dead|1")
        let shown = try await HotelsProcess.run(["jobs", "--store", url])
        #expect(shown.stdout.contains("1 dead") && shown.stdout.contains("job 1 (list, 1 attempts)"), "\(shown.stdout)")

        #expect(try await HotelsProcess.run(["jobs", "retry", "--dead", "--store", url]).stdout == "1 retried\n")
        #expect(try await HotelsProcess.run(["jobs", "cancel", "1", "--store", url]).stdout == "job 1 cancelled\n")
        #expect(try await HotelsProcess.run(["jobs", "prune", "--older-than", "0s", "--store", url]).stdout == "1 jobs pruned\n")
        let usage = try await HotelsProcess.run(["jobs", "retry", "--store", url])
        #expect(usage.status == 64)
        let memory = try await HotelsProcess.run(["worker", "--match-memory=-1", "--store", url])
        #expect(memory.status == 64 && memory.stderr.contains("--match-memory must be 0 or more records"), "\(memory.stderr)")
    }

    @Test("a worker whose --metrics-port is taken stops, exits 69 and says to choose a free port; the worker serving it goes on")
    func metricsPortTaken() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let port = try TestPostgres.freePort()
        let serving = try self.worker(url, ["--metrics-port", String(port)])
        // Serving once a scrape answers.
        var answered = false
        while !answered {
            answered = (try? await HTTPTransport.patient().data(for: HTTPRequest(url: "http://127.0.0.1:\(port)/metrics")).0.status) == 200
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        let second = try await HotelsProcess.run(["worker", "--store", url, "--metrics-port", String(port)])
        #expect(second.status == 69, "\(second.stderr)")
        #expect(
            second.stderr.contains("--metrics-port \(port): cannot serve metrics") && second.stderr.contains("choose a free port"),
            "\(second.stderr)")
        #expect(try await HTTPTransport.patient().data(for: HTTPRequest(url: "http://127.0.0.1:\(port)/metrics")).0.status == 200)
        serving.signal(SIGTERM)
        await serving.ended()
    }

    @Test(
        "a worker stopped by SIGTERM while a list runs gives it --grace and says so; a second SIGTERM ends the process at once"
    )
    func secondSignalEndsTheWorker() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        // Every answer takes ten minutes: the list's run is still going when the signals come.
        let serve = try await ServeProcess(["--latency", "600000"])
        defer { withExtendedLifetime(serve) {} }
        let queued = try await HotelsProcess.run(["enqueue", "--store", url, "--endpoint", serve.endpoint, "--city", "Paris"])
        #expect(queued.status == 0, "\(queued.stderr)")
        let worker = try HotelsProcess.start(workerArguments(url, ["--grace", "10m", "--verbose"]))
        while try await server.psql("SELECT state FROM jobs", database: database).trimmed != "running" {
            try await Task.sleep(for: .milliseconds(100))
        }
        worker.child.signal(SIGTERM)
        // The first signal was taken once the worker says it is stopping, with the list's run given the grace.
        while !String(decoding: try Data(contentsOf: worker.errors), as: UTF8.self).contains("stopping(running: 1)") {
            try await Task.sleep(for: .milliseconds(100))
        }
        worker.child.signal(SIGTERM)
        let ended = try await worker.finish(timeLimit: 120)
        #expect(worker.child.terminationReason == .uncaughtSignal && ended.status == SIGTERM, "\(ended.stderr)")
        // Ended at once: the run was neither finished nor given back, and its lease will expire.
        #expect(try await server.psql("SELECT state FROM jobs", database: database).trimmed == "running")
    }

    @Test(
        "enqueue --every makes the list's schedule, also for a list already queued; schedules, stale and pause show in hotels jobs and its JSON"
    )
    func schedulesAndPause() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let enqueue = ["enqueue", "--store", url, "--endpoint", "http://127.0.0.1:1/soap", "--city", "Paris"]
        #expect(try await HotelsProcess.run(enqueue).stdout == "1 new, 0 already queued\n")
        let scheduled = try await HotelsProcess.run(enqueue + ["--every", "6h", "--timeout", "20m"])
        #expect(scheduled.status == 0 && scheduled.stdout == "0 new, 1 already queued; 1 scheduled every 6h\n", "\(scheduled.stderr)")

        let listed = try await HotelsProcess.run(["schedules", "--store", url, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let schedules = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let paris = try #require(schedules.first)
        #expect(
            schedules.count == 1 && paris["city"] as? String == "Paris" && paris["every"] as? Double == 21600
                && paris["stale"] as? Bool == false)
        #expect(paris["next"] is String && paris["id"] as? Int == 1 && paris["endpoint"] as? String == "http://127.0.0.1:1/soap")
        #expect(try await server.psql("SELECT timeout_seconds FROM schedules", database: database).trimmed == "1200")

        // Not refreshed for two periods: stale, with since when.
        try await server.psql("UPDATE schedules SET created_at = now() - interval '13 hours'", database: database)
        #expect(
            try await HotelsProcess.run(["jobs", "pause", "--kind", "list", "--store", url]).stdout
                == "list jobs paused: workers claim none until hotels jobs resume\n")
        let json = try await HotelsProcess.run(["jobs", "--store", url, "--json"])
        #expect(json.stdout.contains(#""stale":1"#) && json.stdout.contains(#""paused":["list"]"#), "\(json.stdout)")
        let text = try await HotelsProcess.run(["jobs", "--store", url])
        #expect(
            text.stdout.contains("paused: list") && text.stdout.contains("stale: 1 scheduled lists not refreshed for two periods"),
            "\(text.stdout)")
        #expect(text.stdout.contains("Paris (sample at http://127.0.0.1:1/soap) (schedule 1): since 13 h ago"), "\(text.stdout)")
        #expect(try await HotelsProcess.run(["jobs", "resume", "--store", url]).stdout == "list, logos and match jobs resumed\n")
        #expect(try await HotelsProcess.run(["jobs", "--store", url, "--json"]).stdout.contains(#""paused":[]"#))

        #expect(try await HotelsProcess.run(["schedules", "remove", "1", "--store", url]).stdout == "schedule 1 removed\n")
        #expect(try await HotelsProcess.run(["schedules", "--store", url]).stdout == "no schedules: hotels enqueue --every 6h makes one\n")
        for output in [scheduled, listed, json, text] { #expect(!(output.stdout + output.stderr).contains(TestPostgres.password)) }
    }

    @Test("retry --dead retries one job per list (two of one list once exited 74) and says which lists it left")
    func retryDeadOnePerList() async throws {
        let server = try await TestPostgres.shared()
        let url = try await server.makeDatabase()
        let database = TestPostgres.database(in: url)
        let enqueue = ["enqueue", "--store", url, "--endpoint", "http://127.0.0.1:1/soap", "--city", "Paris", "--city", "Rome"]
        for _ in 0..<2 {
            #expect(try await HotelsProcess.run(enqueue).status == 0)
            try await server.psql("UPDATE jobs SET state = 'dead', finalized_at = now() WHERE state = 'available'", database: database)
        }
        // Rome is queued again meanwhile: its dead jobs stay dead.
        #expect(try await HotelsProcess.run(Array(enqueue.dropLast(4)) + ["--city", "Rome"]).status == 0)
        let retried = try await HotelsProcess.run(["jobs", "retry", "--dead", "--store", url])
        #expect(retried.status == 0 && retried.stdout == "1 retried, 1 left: its list already has a live job\n", "\(retried.stderr)")
        #expect(try await server.psql("SELECT count(*) FROM jobs WHERE state = 'available'", database: database).trimmed == "2")
    }

    @Test("a store URL's password is never printed: a raw @ in it is refused (64), ?password= and %40 are understood")
    func storePasswords() async throws {
        let server = try await TestPostgres.shared()
        let database = TestPostgres.database(in: try await server.makeDatabase())
        let raw = try await HotelsProcess.run([
            "jobs", "--store", "postgres://\(TestPostgres.user):top@secret@127.0.0.1:\(server.port)/\(database)",
        ])
        #expect(raw.status == 64 && raw.stderr.contains("percent-encode it as %40") && !raw.stderr.contains("secret"), "\(raw.stderr)")
        let query = "postgres://\(TestPostgres.user)@127.0.0.1:\(server.port)/\(database)?sslmode=disable&password=\(TestPostgres.password)"
        let viaQuery = try await HotelsProcess.run(["jobs", "--store", query])
        #expect(viaQuery.status == 0 && viaQuery.stdout.hasPrefix("jobs: 0 available"), "\(viaQuery.stderr)")
        let wrong = try await HotelsProcess.run([
            "jobs", "--store", query.replacingOccurrences(of: TestPostgres.password, with: "wr%40ng-pw"),
        ])
        #expect(wrong.status == 77 && !wrong.stderr.contains("wr@ng-pw") && !wrong.stderr.contains("wr%40ng-pw"), "\(wrong.stderr)")
    }
}
