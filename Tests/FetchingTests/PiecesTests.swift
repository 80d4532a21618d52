import AtomicFiles
import Failures
import Fetching
import Foundation
import HTTP
import Hotels
import Imaging
import OfflineStore
import SOAP
import Scheduling
import TestSupport
import Testing

/// The pull face, the atomic write, and what errors mean.
@Suite("ListJob pieces")
struct PiecesTests {
    func folder(_ name: String = #function) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-pieces-\(getpid())-\(name.filter(\.isLetter))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func feed(_ http: FakeHTTPClient, _ store: SQLiteHotelStore) throws -> ListFeed {
        let client = HotelClient(
            profile: try .named("sample"), endpoint: "http://hotels.test/soap",
            configuration: HotelClientConfiguration(transport: http, retry: RetryPolicy(maxRetries: 0)))
        return ListJob(client: client, storage: store, city: "Paris", options: .init(pageSize: 5, firstPage: .resume)).feed()
    }

    @Test(
        "several lists' cities: the given ones, then the file's (blank lines and # comments skipped), each once; a missing or binary file is UnreadableFile, exit 66"
    )
    func cityList() throws {
        let file = try folder().appendingPathComponent("cities.txt")
        try Data("# suppliers' cities\nParis\n\n  Tokyo  \nLondon\nParis\n".utf8).write(to: file)
        #expect(try CityList.merge(["London", "Rome"], file: file.path) == ["London", "Rome", "Paris", "Tokyo"])
        #expect(try CityList.merge(["Rome"], file: nil) == ["Rome"])
        #expect(throws: UnreadableFile.self) { try CityList.merge([], file: file.path + ".missing") }
        try Data([0xFF, 0xFE, 0x00]).write(to: file)
        let binary = #expect(throws: UnreadableFile.self) { try CityList.merge([], file: file.path) }
        #expect(binary?.description.contains("not UTF-8") == true)
        #expect(ErrorMeaning(UnreadableFile(path: "x", errorNumber: ENOENT)).status == .noInput)
    }

    @Test("the pull face: one page per ask, each asked for once; a later feed shows the cache whole, then goes on from it")
    func pullsPages() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let http = FakeSampleCatalog(count: 12).client()
        let pages = try feed(http, store)
        let first = try await pages.nextPage()
        #expect(first.hotels.count == 5 && !first.isLast && http.requests.count == 1)
        let second = try await pages.nextPage()
        #expect(second.hotels.first?.code == "H0006" && !second.isLast && http.requests.count == 2)

        let later = FakeSampleCatalog(count: 12).client()
        let resumed = try feed(later, store)
        let cached = try await resumed.nextPage()
        #expect(cached.hotels.count == 10 && !cached.isLast && later.requests.isEmpty)
        let third = try await resumed.nextPage()
        #expect(third.hotels.map(\.code) == ["H0011", "H0012"] && third.isLast)
        #expect(later.bodies.map { FakeSampleCatalog.value("before", in: $0) } == ["1910"])
        let after = try await resumed.nextPage()
        #expect(after.hotels.isEmpty && after.isLast && later.requests.count == 1)
    }

    @Test(
        "the pull face with refresh: the cached rows, then the whole list with page 1 merged in its place, then load more; the requester says which replace"
    )
    func pullsWithRefresh() async throws {
        let store = try SQLiteHotelStore.inMemory()
        let warm = try feed(FakeSampleCatalog(count: 12).client(), store)
        _ = try await warm.nextPage()
        _ = try await warm.nextPage()
        let http = FakeSampleCatalog(count: 12).client()
        let client = HotelClient(
            profile: try .named("sample"), endpoint: "http://hotels.test/soap",
            configuration: HotelClientConfiguration(transport: http, retry: RetryPolicy(maxRetries: 0)))
        let pages = ListJob(client: client, storage: store, city: "Paris", options: .init(pageSize: 5, firstPage: .refresh)).feed()
        let cached = try await pages.nextPage()
        #expect(cached.hotels.count == 10 && cached.replacesList && cached.refreshFollows && !cached.isLast && http.requests.isEmpty)
        let merged = try await pages.nextPage()
        #expect(merged.hotels.count == 10, "the whole list, not page 1's five rows")
        #expect(merged.replacesList && !merged.refreshFollows && !merged.isLast && http.requests.count == 1)
        let requester = pages.pageRequester(onPage: { page in #expect(!page.replacesList) })
        let more = await withCheckedContinuation { continuation in requester { continuation.resume(returning: $0) } }
        guard case .rows(let rows, isLast: true) = more else {
            Issue.record("load more after the merge appends the last page: \(more)")
            return
        }
        #expect(rows.map(\.code) == ["H0011", "H0012"])
    }

    @Test("the pull face offline: the cached rows are the first and last page; with nothing cached, the network's error")
    func pullsOffline() async throws {
        let store = try SQLiteHotelStore.inMemory()
        _ = try await feed(FakeSampleCatalog(count: 12).client(), store).nextPage()
        let down = FakeHTTPClient { _, _ in throw TransportError.unreachable("down") }
        let client = HotelClient(
            profile: try .named("sample"), endpoint: "http://hotels.test/soap",
            configuration: HotelClientConfiguration(transport: down, retry: RetryPolicy(maxRetries: 0)))
        let offline = ListJob(client: client, storage: store, city: "Paris", options: .init(pageSize: 5)).feed()
        _ = try await offline.nextPage()  // the cached list
        let page = try await offline.nextPage()
        #expect(page.isLast && page.hotels.count == 5 && page.offline?.list.count == 5)

        await #expect(throws: TransportError.self) { try await feed(down, try SQLiteHotelStore.inMemory()).nextPage() }
    }

    @Test("an atomic write replaces the whole file and leaves nothing beside it; a discarded one leaves the old file")
    func atomicWrite() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("list.jsonl")
        try AtomicFile.write(Array("old\n".utf8), to: file)
        let replacing = try AtomicFile(replacing: file)
        try replacing.write(Array("new, ".utf8))
        #expect(try String(contentsOf: file, encoding: .utf8) == "old\n")
        try replacing.write(Array("whole\n".utf8))
        try replacing.commit()
        #expect(try String(contentsOf: file, encoding: .utf8) == "new, whole\n")
        let dropped = try AtomicFile(replacing: file)
        try dropped.write(Array("half".utf8))
        dropped.discard()
        #expect(try String(contentsOf: file, encoding: .utf8) == "new, whole\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["list.jsonl"])
        #expect(throws: AtomicFileError.self) { try dropped.commit() }
    }

    @Test("a killed writer's temporary file is removed; a running writer's is kept")
    func leftovers() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let running = try AtomicFile(replacing: folder.appendingPathComponent("a"))
        // pid 2^22 + 1 is above Linux's pid_max: no such process.
        let dead = folder.appendingPathComponent(".4194305-0000.partial")
        try Data("x".utf8).write(to: dead)
        #expect(AtomicFile.removeLeftovers(in: folder) == 1)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: running.temporary.path))
        running.discard()
    }

    @Test("a file that cannot be written is a typed error naming it, and a storage failure (74)")
    func unwritable() throws {
        let missing = try folder().appendingPathComponent("no/such/folder/hotels.jsonl")
        #expect {
            try AtomicFile.write(Array("x".utf8), to: missing)
        } throws: { error in
            guard let error = error as? AtomicFileError else { return false }
            return error.path == missing.path && error.code == ENOENT && ErrorMeaning(error).exitCode == 74
        }
    }

    @Test(
        "what errors mean: retry, credentials, configuration, bad data, refused, each with its exit code",
        arguments: [
            (TransportError.unreachable("down") as any Error, ErrorMeaning.Kind.transient, Int32(69), true),
            (TransportError.timeout("slow"), .transient, 69, true),
            (TransportError.httpStatus(503, snippet: ""), .transient, 69, true),
            (TransportError.httpStatus(404, snippet: ""), .refused, 76, false),
            (TransportError.httpStatus(403, snippet: ""), .credentials, 77, false),
            (TransportError.tls("bad certificate"), .unavailable, 69, false),
            (TransportError.tooLarge(limit: 10), .badData, 65, false),
            (MissingCredentialsError(profile: "p", names: ["P_PASSWORD"]), .configuration, 78, false),
            (StoreError(path: "/x", reason: "locked"), .storage, 74, false),
            (ImageError.corrupt(format: .png, reason: "crc"), .badData, 65, false),
            (SessionExpiredDuringSearch(pages: 2), .transient, 76, true),
        ])
    func meanings(error: any Error, kind: ErrorMeaning.Kind, exitCode: Int32, isRetryable: Bool) {
        let meaning = ErrorMeaning(error)
        #expect(meaning.kind == kind && meaning.exitCode == exitCode && meaning.isRetryable == isRetryable)
    }

    @Test("a fault means what its codes say: a Server fault may pass, a Client fault is final, a security fault is the credentials")
    func faultMeanings() {
        func fault(_ code: String) -> SOAPFault {
            let localName = String(code.split(separator: ":").last ?? "")
            return SOAPFault(version: .v1_1, code: .init(value: code, localName: localName), reasons: [.init(text: "no")])
        }
        #expect(ErrorMeaning(fault("soap:Server")).isRetryable && ErrorMeaning(fault("soap:Server")).exitCode == 76)
        #expect(ErrorMeaning(fault("soap:Client")).kind == .refused && !ErrorMeaning(fault("soap:Client")).isRetryable)
        #expect(ErrorMeaning(fault("wsse:InvalidSecurity")) == .credentials)
        // WS-Addressing's missing header wants the profile's addressing, not another soapAction.
        #expect(ErrorMeaning(fault("wsa:MessageAddressingHeaderRequired")).hint?.contains(#""addressing": {"version": "1.0"}"#) == true)
        #expect(ErrorMeaning(fault("soap:Client.ActionNotSupported")).hint?.contains("soapAction") == true)
    }
}
