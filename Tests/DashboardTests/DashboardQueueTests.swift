import Dashboard
import Fetching
import Foundation
import HTTPTypes
import Hotels
import Hummingbird
import HummingbirdTesting
import Imaging
import OfflineStore
import PostgresStore
import Runtime
import SampleService
import TestSupport
import Testing
import Workers

/// The queue's page and buttons on a real PostgreSQL, and logos from the store's index, revalidated by ETag.
@Suite("hotels dashboard: the queue, schedules and logos")
struct DashboardQueueTests {
    /// A runtime on a new database of the test PostgreSQL, and its job queue.
    func sharedRuntime() async throws -> (HotelRuntime, JobQueue<JobKind>) {
        let url = try await TestPostgres.shared().makeDatabase()
        let runtime = try await HotelRuntime.open(.init(store: .shared(try PostgresLocation(url: url))))
        return (runtime, JobQueue<JobKind>(database: try #require(runtime.sharedStore).database))
    }

    @Test(
        "the queue page's buttons do what hotels jobs does, only with the page's CSRF token; a GET changes nothing; schedules stale first")
    func queueButtons() async throws {
        let (runtime, queue) = try await sharedRuntime()
        let profile = try JobProfile(nameOrPath: "sample")
        try await queue.enqueue([
            ListJobArguments(profile: profile, endpoint: "http://127.0.0.1:1/soap", city: "Paris").job(),
            ListJobArguments(profile: profile, endpoint: "http://127.0.0.1:1/soap", city: "Rome").job(every: 3600),
        ])
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/queue", method: .get) { String(buffer: $0.body) }
            #expect(page.contains("data-refresh=\"/queue?part=main\"") && page.contains("<script src=\"/static/dashboard.js\""))
            let csrf = try #require(page.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.1).description
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            // Without the token, or with another, nothing happens.
            for body in ["action=pause&kind=list", "action=pause&kind=list&csrf=0123"] {
                try await client.execute(uri: "/queue", method: .post, headers: form, body: ByteBuffer(string: body)) {
                    #expect($0.status == .forbidden)
                }
            }
            try await client.execute(uri: "/queue?action=pause&kind=list&csrf=\(csrf)", method: .get) { #expect($0.status == .ok) }
            #expect(try await queue.pausedKinds().isEmpty)
            try await client.execute(
                uri: "/queue", method: .post, headers: form, body: ByteBuffer(string: "csrf=\(csrf)&action=pause&kind=list")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location]?.hasPrefix("/queue?said=list%20jobs%20paused") == true)
            }
            #expect(try await queue.pausedKinds() == [.list])
            try await client.execute(
                uri: "/queue", method: .post, headers: form, body: ByteBuffer(string: "csrf=\(csrf)&action=cancel&id=1")
            ) {
                #expect($0.status == .seeOther && $0.headers[.location] == "/queue?said=job%201%20cancelled")
            }
            let part = try await client.execute(uri: "/queue?part=main", method: .get) { String(buffer: $0.body) }
            #expect(part.hasPrefix("<main id=\"queue\"") && part.contains("list (paused)") && part.contains(">Resume<"))
            let jobs = try await client.execute(uri: "/api/jobs", method: .get) { response in
                try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
            #expect((jobs["counts"] as? [String: Int])?["cancelled"] == 1 && jobs["paused"] as? [String] == ["list"])
            let schedules = try await client.execute(uri: "/api/schedules", method: .get) { response in
                try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]])
            }
            #expect(schedules.count == 1 && schedules.first?["city"] as? String == "Rome" && schedules.first?["every"] as? Double == 3600)
            let shown = try await client.execute(uri: "/schedules", method: .get) { String(buffer: $0.body) }
            #expect(shown.contains("<td>Rome</td>") && shown.contains("<td>1h</td>"))
        }
        await runtime.close()
    }

    @Test(
        "offline, a logo comes from the store's logo index with an ETag; asked again with If-None-Match it is 304; a URL of no hotel is 404"
    )
    func logosRevalidate() async throws {
        let (runtime, fetched, summary, _) = try await sampleParis(hotels: 60)
        #expect(summary.failure == nil && summary.logos.saved > 0)
        let list = try #require(fetched)
        var configuration = DashboardServer.Configuration(port: 0)
        configuration.offline = true
        let app = try DashboardServer(runtime: runtime, configuration: configuration).application()
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/lists/\(list.id)", method: .get) { String(buffer: $0.body) }
            let uri = try #require(DashboardLogoTests.logoLinks(in: page).first)
            let tag = try await client.execute(uri: uri, method: .get) { response in
                #expect(
                    response.status == .ok && response.headers[.contentType] == "image/png" && response.headers[.cacheControl] == "no-cache"
                )
                #expect(response.body.readableBytes > 0)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified && response.body.readableBytes == 0)
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"other\""]) { #expect($0.status == .ok) }
            try await client.execute(uri: "/logo?url=http%3A%2F%2Felsewhere.test%2Fx.png", method: .get) { #expect($0.status == .notFound) }
        }
        await runtime.close()
    }

    @Test(
        "a dead job's arguments, a schedule and a list's name show no profile file's contents and no endpoint's user:password@ or query value, in pages, API answers or reports"
    )
    func reportsShowNoSecrets() async throws {
        let (runtime, queue) = try await sharedRuntime()
        var profile = try JobProfile(nameOrPath: "sample")
        profile.json = #"{"name": "sample", "authentication": {"password": "profile-secret-42"}}"#
        let lima = ListJobArguments(
            profile: profile, endpoint: "http://agent:endpoint-secret-42@127.0.0.1:1/soap?apikey=query-secret-42&v", city: "Lima")
        #expect(!lima.key.description.contains("secret-42") && lima.key.description.contains("127.0.0.1:1"))
        try await queue.enqueue([lima.job(maxAttempts: 1, every: 3600)])
        let job = try #require(try await queue.claim(worker: "test", limit: 1, lease: 30).first)
        #expect(try await queue.fail(job.lease, error: "HTTP 503", retryIn: 0) == .dead)
        let report = JobsReport(try await queue.overview())
        let dead = try #require(report.dead.first)
        #expect(
            dead.arguments.contains("Lima") && dead.arguments.contains("127.0.0.1:1") && dead.arguments.contains("\"name\":\"sample\""),
            "\(dead.arguments)")
        #expect(dead.list == "Lima (sample at http://127.0.0.1:1/soap?apikey=…&v)")
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        let served = try await app.test(.router) { client in
            var pages: [String] = []
            for uri in ["/queue", "/api/jobs", "/schedules", "/api/schedules"] {
                pages.append(try await client.execute(uri: uri, method: .get) { String(buffer: $0.body) })
            }
            return pages
        }
        let shown = [report.text, dead.arguments] + (try await queue.schedules()).map { ScheduleReport($0).text } + served
        await runtime.close()
        #expect(shown.count == 7 && shown.allSatisfy { !$0.contains("secret-42") }, "\(shown.filter { $0.contains("secret-42") })")
        #expect(served.allSatisfy { $0.contains("Lima") })
    }
}
