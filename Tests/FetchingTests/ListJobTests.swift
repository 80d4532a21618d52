import AtomicFiles
import Failures
import Fetching
import Foundation
import HTTP
import Hotels
import Imaging
import Logos
import OfflineStore
import SOAP
import TestSupport
import Testing

/// A whole list at library level, as `hotels fetch` runs it: the fake
/// service, an in-memory store, fake logos, and a sink in memory or a folder.
@Suite("ListJob")
struct ListJobTests {
    static let fastRetry = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1))
    static let endpoint = "http://hotels.test/soap"

    func client(_ http: FakeHTTPClient, profile: String = "sample", credentials: [String: String] = [:]) throws -> HotelClient {
        HotelClient(
            profile: try .named(profile), endpoint: Self.endpoint,
            configuration: HotelClientConfiguration(transport: http, retry: Self.fastRetry, credentials: Credentials(credentials)))
    }

    func job(
        _ http: FakeHTTPClient, _ store: SQLiteHotelStore, options: ListSync.Options = ListSync.Options(pageSize: 5, readAhead: true),
        logos: LogoPipeline? = nil, sink: any ListSink = MemorySink()
    ) throws -> ListJob {
        ListJob(client: try client(http), storage: store, city: "Paris", options: options, logos: logos, sink: sink)
    }

    func logos(_ transport: FakeLogoTransport, cache: DiskImageCache? = nil, index: (any ImageIndex)? = nil) -> LogoPipeline {
        LogoPipeline(configuration: .init(transport: transport, diskCache: cache, index: index))
    }

    func folder(_ name: String = #function) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-listjob-\(getpid())-\(name.filter(\.isLetter))")
    }

    static let unreachable = FakeHTTPClient { _, _ in throw TransportError.unreachable("Couldn't connect to server") }

    func codes(_ range: ClosedRange<Int>) -> [String] {
        range.map { String(format: "H%04d", $0) }
    }

    @Test("a whole list: page 1 merged, the rest appended, every row and logo in the sink, and a summary of it all")
    func wholeList() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let sink = MemorySink()
        let transport = try FakeLogoTransport(answersAtOnce: true)
        var events: [String] = []
        let summary = try await job(FakeSampleCatalog(count: 12).client(), store, logos: logos(transport), sink: sink).run { event in
            switch event {
            case .pageStored(let page, let change): events.append("page \(page.number) \(change)")
            case .pagingEnded(let end): events.append("ended \(end?.reason ?? "error")")
            default: events.append("\(event)")
            }
        }
        #expect(
            events == [
                "page 1 merged(OfflineStore.MergeResult(inserted: 5, updated: 0, moved: 0, replaced: false))",
                "page 2 appended(added: 5)", "page 3 appended(added: 2)", "ended endMarker",
            ])
        #expect(summary.pages == 3 && summary.fetched == 12 && summary.hotels == 12 && summary.cached == 0)
        #expect(summary.end == "endMarker" && summary.merge == MergeResult(inserted: 5) && summary.failure == nil && summary.offline == nil)
        #expect(summary.logos.saved == 12 && summary.logos.failed == 0 && summary.logos.fromCache == 0)
        let contents = sink.contents
        #expect(contents.list?.map(\.code) == codes(1...12))
        #expect(contents.pages.map(\.hotels.count) == [5, 5, 2])
        #expect(contents.logos.count == 12 && contents.logos["H0001"]?.bytes == transport.png && contents.logos["H0001"]?.format == .png)
        // Each logo asked for once.
        #expect(transport.starts.count == 12)
    }

    @Test("resume: the cached list first, page 1 merged, then load more goes on where the last run stopped, and the folder holds the list")
    func resumes() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let out = folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let catalog = FakeSampleCatalog(count: 20)
        let first = try await job(catalog.client(), store, options: .init(pageSize: 5, maxPages: 2), sink: FolderSink(folder: out)).run()
        #expect(first.end == "maxPages" && first.hotels == 10)
        #expect(try lines(out) == codes(1...10))

        let http = catalog.client()
        let second = try await job(http, store, options: .init(pageSize: 5, maxPages: 3), sink: FolderSink(folder: out)).run()
        #expect(second.cached == 10 && second.merge == MergeResult() && second.pages == 3 && second.hotels == 20)
        // Page 1 again, then pages 3 and 4 from the stored cursor: page 2 is never asked twice.
        #expect(http.bodies.map { FakeSampleCatalog.value("before", in: $0) } == [nil, "1910", "1860"])
        #expect(try lines(out) == codes(1...20))
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["hotels.jsonl"])
    }

    @Test("a first page that updates cached rows rewrites hotels.jsonl from the store, in the store's order")
    func rewritesFromTheStore() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let out = folder()
        defer { try? FileManager.default.removeItem(at: out) }
        _ = try await job(FakeSampleCatalog(count: 8).client(), store, sink: FolderSink(folder: out)).run()
        var renamed = FakeSampleCatalog(count: 8)
        renamed.hotels[0].name = "Renamed"
        let summary = try await job(renamed.client(), store, sink: FolderSink(folder: out)).run()
        #expect(summary.merge?.updated == 1)
        let rows = try Data(contentsOf: out.appendingPathComponent("hotels.jsonl"))
        var expected: [UInt8] = []
        try await store.hotels(in: #require(try store.cachedList(summary.key))).forEach { HotelJSONLines.append($0, to: &expected) }
        #expect(Array(rows) == expected)
        #expect(String(decoding: rows, as: UTF8.self).contains("\"name\":\"Renamed\""))
    }

    @Test("offline: the cached list with its banner and cached logos; fresh data required refuses it; the next run asks the network again")
    func offline() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let disk = try DiskImageCache(directory: folder().appendingPathComponent("images"))
        defer { try? FileManager.default.removeItem(at: folder()) }
        let transport = try FakeLogoTransport(answersAtOnce: true)
        _ = try await job(
            FakeSampleCatalog(count: 20).client(), store, options: .init(pageSize: 20, maxPages: 1),
            logos: logos(transport, cache: disk)
        ).run()

        let sink = MemorySink()
        var banner: String?
        let offline = try await job(
            Self.unreachable, store, logos: logos(try FakeLogoTransport(answersAtOnce: true, offline: true), cache: disk), sink: sink
        ).run {
            if case .offline(let list) = $0 { banner = list.banner() }
        }
        #expect(banner?.range(of: #"^offline: showing 20 hotels for Paris cached \d+ (s|min) ago$"#, options: .regularExpression) != nil)
        #expect(offline.offline?.list.count == 20 && offline.hotels == 20 && offline.end == nil && offline.failure == nil)
        #expect(offline.offline?.reason is TransportError)
        #expect(sink.contents.cached.count == 20)
        #expect(offline.logos.saved == 20 && offline.logos.fromCache == 20, "cached logos were not served")

        await #expect {
            try await job(Self.unreachable, store, options: .init(servesCacheWhenOffline: false)).run()
        } throws: { error in
            guard case ListSyncError.staleRefused = error else { return false }
            return ErrorMeaning(error).exitCode == 69
        }
        // Never "once offline, always offline": the next run asks the network first.
        let http = FakeSampleCatalog(count: 20).client()
        let back = try await job(http, store, options: .init(pageSize: 20)).run()
        #expect(back.offline == nil && back.end == "endMarker" && http.requests.count == 1)
    }

    @Test("offline with nothing cached: a typed error that means 69 and says how to fill the cache")
    func offlineWithNothingCached() async throws {
        await #expect {
            try await job(Self.unreachable, try SQLiteHotelStore.inMemory()).run()
        } throws: { error in
            guard case ListSyncError.nothingCached(_, let reason?) = error, reason is TransportError else { return false }
            let meaning = ErrorMeaning(error)
            return meaning.exitCode == 69 && meaning.isRetryable && meaning.hint?.contains("hotels fetch once") == true
        }
    }

    @Test("a failing middle page keeps the pages before it; the summary says which page failed and why")
    func failingMiddlePage() async throws {
        let catalog = FakeSampleCatalog(count: 12)
        let http = FakeHTTPClient { request, _ in
            let body = String(decoding: request.body ?? [], as: UTF8.self)
            if FakeSampleCatalog.value("before", in: body) == "1960" {
                return .xml(Self.fault(code: "soap:Client", reason: "Invalid page request"), status: 500)
            }
            return catalog.respond(to: body)
        }
        let store = try SQLiteHotelStore.inMemory()
        let sink = MemorySink()
        let summary = try await job(http, store, sink: sink).run()
        #expect(summary.pages == 1 && summary.failedPage == 2 && summary.hotels == 5 && summary.end == nil)
        #expect(sink.contents.list?.map(\.code) == codes(1...5))
        let meaning = ErrorMeaning(try #require(summary.failure))
        #expect(meaning.exitCode == 76 && meaning.kind == .refused && !meaning.isRetryable)
        #expect(summary.failureDescription?.contains("Invalid page request") == true)
    }

    @Test(
        "logos: saved page by page, once each; a resumed run saves those an earlier run stored without them; hostile codes stay in the folder"
    )
    func logoSaving() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let out = folder()
        defer { try? FileManager.default.removeItem(at: out) }
        let catalog = FakeSampleCatalog(count: 10)
        _ = try await job(catalog.client(), store, options: .init(pageSize: 5, maxPages: 1), sink: FolderSink(folder: out)).run()
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("logos").path))

        let transport = try FakeLogoTransport(answersAtOnce: true)
        let summary = try await job(
            catalog.client(), store, options: .init(pageSize: 5), logos: logos(transport),
            sink: FolderSink(folder: out)
        ).run()
        #expect(summary.hotels == 10 && summary.logos.saved == 10)
        let saved = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("logos").path).sorted()
        #expect(saved == codes(1...10).map { $0 + ".png" })
        #expect(Set(transport.starts).count == 10 && transport.starts.count == 10)

        var hostile = FakeSampleCatalog(count: 3)
        hostile.hotels[0].code = "../escape"
        hostile.hotels[1].code = ".hidden"
        hostile.hotels[2].code = "a/b"
        let elsewhere = folder("hostile")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let written = try await job(
            hostile.client(), try SQLiteHotelStore.inMemory(), logos: logos(try FakeLogoTransport(answersAtOnce: true)),
            sink: FolderSink(folder: elsewhere)
        ).run()
        #expect(written.logos.saved == 3)
        let names = try FileManager.default.contentsOfDirectory(atPath: elsewhere.appendingPathComponent("logos").path)
        #expect(names.count == 3 && names.allSatisfy { !$0.hasPrefix(".") && !$0.contains("/") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted() == ["hotels.jsonl", "logos"])
    }

    @Test("a folder that cannot be written is thrown as a storage failure (74), and the store keeps the pages")
    func unwritableFolder() async throws {
        let blocker = folder()
        defer { try? FileManager.default.removeItem(at: blocker) }
        try Data("a file, not a folder".utf8).write(to: blocker)
        let store = try SQLiteHotelStore.inMemory()
        let job = try job(FakeSampleCatalog(count: 12).client(), store, sink: FolderSink(folder: blocker.appendingPathComponent("out")))
        await #expect {
            try await job.run()
        } throws: { error in
            error is AtomicFileError && ErrorMeaning(error).exitCode == 74 && "\(error)".contains(blocker.path)
        }
        // Nothing was fetched: the folder is checked before the network is asked.
        #expect(try await store.cachedList(job.key) == nil)
    }

    @Test("a logo that cannot be had is an event and a count; the list goes on")
    func failedLogo() async throws {
        var failed: [String] = []
        let summary = try await job(
            FakeSampleCatalog(count: 3).client(), try SQLiteHotelStore.inMemory(),
            logos: logos(try FakeLogoTransport(answersAtOnce: true, offline: true))
        ).run {
            if case .logoFailed(let code, _, let error) = $0, error is TransportError { failed.append(code) }
        }
        #expect(summary.hotels == 3 && summary.logos.failed == 3 && summary.logos.saved == 0)
        #expect(failed.sorted() == codes(1...3))
    }

    @Test("authentication: HTTP 401 and a security fault mean 77, missing credentials 78; no secret reaches the summary")
    func authentication() async throws {
        let denied = FakeHTTPClient { _, _ in .xml("denied", status: 401) }
        let refused = try await job(denied, try SQLiteHotelStore.inMemory()).run()
        #expect(ErrorMeaning(try #require(refused.failure)) == .credentials)
        #expect(refused.pages == 0 && refused.hotels == 0)

        let secret = "s3cret-Pa55"
        let echoing = FakeHTTPClient { _, _ in
            .xml(
                Self.fault(code: "wsse:FailedAuthentication", reason: "The security token could not be authenticated: password \(secret)"),
                status: 500)
        }
        let client = try client(
            echoing, profile: Samples.url("Profiles/sample-wsse.json").path,
            credentials: ["SAMPLE_USER": "demo", "SAMPLE_PASSWORD": secret])
        let summary = try await ListJob(client: client, storage: try SQLiteHotelStore.inMemory(), city: "Paris").run()
        let meaning = ErrorMeaning(try #require(summary.failure))
        #expect(meaning.exitCode == 77 && meaning.kind == .credentials && meaning.hint?.contains("--credentials FILE") == true)
        #expect(summary.failureDescription?.contains("authenticated") == true)
        #expect(summary.failureDescription?.contains(secret) == false)

        let unset = try self.client(echoing, profile: Samples.url("Profiles/sample-wsse.json").path)
        #expect {
            try unset.requests.checkCredentials()
        } throws: { ErrorMeaning($0).exitCode == 78 }
    }

    static func fault(code: String, reason: String) -> String {
        """
        <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" \
        xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"><soap:Body><soap:Fault>\
        <faultcode>\(code)</faultcode><faultstring>\(reason)</faultstring></soap:Fault></soap:Body></soap:Envelope>
        """
    }

    func lines(_ folder: URL) throws -> [String] {
        try String(contentsOf: folder.appendingPathComponent("hotels.jsonl"), encoding: .utf8).split(separator: "\n").map { line in
            String(line.split(separator: "\"")[3])
        }
    }
}
