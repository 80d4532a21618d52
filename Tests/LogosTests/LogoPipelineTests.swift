import Dispatch
import Foundation
import HTTP
import Imaging
import Locking
import Logos
import Scheduling
import TestSupport
import Testing

/// Records what the pipeline notes in its index.
final class FakeIndex: ImageIndex {
    let entries = PosixMutex<[ImageIndexEntry]>([])
    func noteImage(_ entry: ImageIndexEntry) throws { entries.withLock { $0.append(entry) } }
}

/// A shared index in memory: hands out the logos it was given, as a shared store would to another machine.
final class FakeSharedIndex: SharedImageIndex {
    let logos: PosixMutex<[String: IndexedLogo]>
    let lookups = PosixMutex<[String]>([])
    let notes = PosixMutex<[ImageIndexEntry]>([])
    init(_ logos: [String: IndexedLogo] = [:]) { self.logos = PosixMutex(logos) }
    func noteImage(_ entry: ImageIndexEntry) throws { notes.withLock { $0.append(entry) } }
    func indexedLogo(url: String, filter: String) throws -> IndexedLogo? {
        lookups.withLock { $0.append(url) }
        return logos.withLock { $0[url + " " + filter] }
    }
}

@Suite("LogoPipeline")
struct LogoPipelineTests {
    let url = "http://logos.test/H1.png"

    func temporaryCache() throws -> DiskImageCache {
        try DiskImageCache(
            directory: FileManager.default.temporaryDirectory
                .appendingPathComponent("hotelkit-logos-\(getpid())-\(UUID().uuidString)"))
    }

    @Test("memory, then disk, then network: each logo is downloaded once and noted in the index")
    func stages() async throws {
        let server = try FakeLogoTransport(answersAtOnce: true)
        let disk = try temporaryCache()
        let index = FakeIndex()
        let configuration = LogoPipeline.Configuration(
            transport: server, filter: try FilterChain(parsing: "resize:16x16:fill"),
            diskCache: disk, index: index)
        let pipeline = LogoPipeline(configuration: configuration)
        let first = try await pipeline.image(for: url)
        #expect(first.source == .network && first.image?.width == 16 && first.downloadedBytes == server.png.count)
        #expect(try await pipeline.image(for: url).source == .memory)
        // A new process: an empty memory cache, the same disk cache, within max-age.
        var later = configuration
        later.memoryCache = MemoryImageCache()
        let laterPipeline = LogoPipeline(configuration: later)
        let again = try await laterPipeline.image(for: url)
        #expect(again.source == .disk && again.image == first.image)
        #expect(server.requests.count == 1)
        await pipeline.indexWritten()
        await laterPipeline.indexWritten()
        #expect(index.entries.withLock { $0.map(\.filter) } == ["resize:16x16:fill", "resize:16x16:fill"])
    }

    @Test(
        "a logo whose original the disk cache keeps (a pipeline with no filter loaded it) is filtered from there under another chain, not downloaded again"
    )
    func filteredFromTheOriginal() async throws {
        let server = try FakeLogoTransport(answersAtOnce: true)
        let disk = try temporaryCache()
        let original = LogoPipeline(configuration: .init(transport: server, diskCache: disk))
        let bytes = try await original.data(for: url)
        #expect(bytes.source == .network && bytes.data == server.png)
        let index = FakeIndex()
        let thumbnails = LogoPipeline(
            configuration: .init(
                transport: server, filter: try FilterChain(parsing: "resize:16x16:fill"),
                diskCache: disk, index: index))
        let thumbnail = try await thumbnails.image(for: url)
        #expect(thumbnail.source == .disk && thumbnail.image?.width == 16 && thumbnail.image?.height == 16)
        #expect(server.requests.count == 1, "the original was not downloaded again")
        // Kept under its own chain: the next request is a plain disk hit.
        #expect(disk.data(for: thumbnails.cacheKey(for: url)) == thumbnail.data)
        await thumbnails.indexWritten()
        #expect(index.entries.withLock { $0.map(\.filter) } == ["resize:16x16:fill"])
    }

    @Test("a stale entry is revalidated with its validators, and a 304 keeps it")
    func revalidates() async throws {
        let server = try FakeLogoTransport(answersAtOnce: true, maxAge: nil)  // no max-age: always ask
        let disk = try temporaryCache()
        let configuration = LogoPipeline.Configuration(transport: server, diskCache: disk)
        let stored = try await LogoPipeline(configuration: configuration).data(for: url)
        #expect(stored.source == .network && stored.data == server.png)  // no filter: the original bytes
        let revalidated = try await LogoPipeline(configuration: configuration).data(for: url)
        #expect(revalidated.source == .revalidated && revalidated.data == server.png)
        #expect(server.requests.map(\.headers["If-None-Match"]) == [nil, "\"v1\""])
        #expect(server.requests.last?.headers["If-Modified-Since"] == "Mon, 23 Nov 2026 07:00:00 GMT")
    }

    @Test("a cold machine revalidates a stale logo from the shared index with its validators (304), and a fresh one asks nothing")
    func sharedIndex() async throws {
        let server = try FakeLogoTransport(answersAtOnce: true, maxAge: nil)
        let stale = CachedImageMetadata(
            url: url, etag: "\"v1\"", lastModified: "Mon, 23 Nov 2026 07:00:00 GMT",
            storedAt: Date(timeIntervalSinceNow: -7200), maxAge: 3600)
        let index = FakeSharedIndex([url + " ": IndexedLogo(data: server.png, metadata: stale)])
        let disk = try temporaryCache()
        let pipeline = LogoPipeline(configuration: .init(transport: server, diskCache: disk, index: index))
        let revalidated = try await pipeline.data(for: url)
        #expect(revalidated.source == .revalidated && revalidated.data == server.png && revalidated.downloadedBytes == nil)
        #expect(server.requests.map(\.headers["If-None-Match"]) == ["\"v1\""])
        // The logo is now on this machine's disk, renewed: neither the index nor the server is asked again.
        #expect(disk.data(for: pipeline.cacheKey(for: url)) == server.png)
        #expect(
            try await LogoPipeline(configuration: .init(transport: server, diskCache: disk, index: index)).data(for: url).source == .disk)
        #expect(server.requests.count == 1)
        #expect(index.lookups.withLock { $0 } == [url])
        await pipeline.indexWritten()
        #expect(index.notes.withLock { $0.first?.storedAt.map { $0 > stale.storedAt } } == true, "the 304 renews the index's entry")

        // Within its max-age the index's copy is served as it is, offline too.
        let fresh = FakeSharedIndex([
            url + " ": IndexedLogo(data: server.png, metadata: CachedImageMetadata(url: url, etag: "\"v1\"", maxAge: 3600))
        ])
        let down = try FakeLogoTransport(answersAtOnce: true, offline: true)
        let cold = LogoPipeline(configuration: .init(transport: down, diskCache: try temporaryCache(), index: fresh))
        #expect(try await cold.image(for: url).source == .disk)
        #expect(
            try await LogoPipeline(configuration: .init(transport: down, diskCache: try temporaryCache(), index: fresh))
                .data(for: url, policy: .cacheOnly).data == server.png)
        #expect(down.requests.isEmpty)
        // What the index lacks is downloaded as before.
        let missing = try await LogoPipeline(
            configuration: .init(transport: server, diskCache: try temporaryCache(), index: FakeSharedIndex())
        )
        .data(for: url)
        #expect(missing.source == .network)
    }

    @Test("offline, a stale copy beats nothing; cache only never asks; a miss is notCached")
    func offline() async throws {
        let disk = try temporaryCache()
        _ = try await LogoPipeline(
            configuration: .init(transport: try FakeLogoTransport(answersAtOnce: true, maxAge: nil), diskCache: disk)
        ).data(for: url)
        let down = try FakeLogoTransport(answersAtOnce: true, offline: true)
        let pipeline = LogoPipeline(configuration: .init(transport: down, diskCache: disk))
        #expect(try await pipeline.data(for: url).source == .disk)
        #expect(try await pipeline.data(for: url, policy: .cacheOnly).source == .disk)
        await #expect(throws: LogoError.notCached("http://logos.test/other.png")) {
            try await pipeline.data(for: "http://logos.test/other.png", policy: .cacheOnly)
        }
        #expect(down.requests.count == 1)
    }

    @Test("rows that want the same URL share one transfer; it is cancelled only when the last one leaves")
    func coalesces() async throws {
        let server = try FakeLogoTransport()
        let worker = DispatchQueue(label: "test.worker")
        let events = PosixMutex<[LogoPipelineEvent]>([])
        let pipeline = LogoPipeline(
            configuration: .init(transport: server, observe: { event in events.withLock { $0.append(event) } }),
            decodeExecutor: worker)
        let queue = WorkQueue(name: "rows", maxConcurrentOperationCount: 4, executor: worker, completionQueue: worker)
        let results = PosixMutex<[LogoResult]>([])
        let operations = (0..<3).map { row in
            pipeline.operation(
                name: "row \(row)", url: url, priority: .normal, completion: { result in results.withLock { $0.append(result) } })
        }
        operations.forEach(queue.addOperation)
        worker.sync {}
        #expect(server.requests.count == 1)
        operations[0].cancel()
        operations[1].cancel()
        #expect(server.cancels.isEmpty)
        operations[2].cancel()
        worker.sync {}
        #expect(server.cancels == [url])
        #expect(events.withLock { $0 } == [.transferStarted(url: url), .transferEnded(url: url, .cancelled)])
        #expect(results.withLock { $0 }.allSatisfy { if case .cancelled = $0 { true } else { false } })
    }

    @Test("cancelling the task cancels its request and the transfer")
    func cancellation() async throws {
        let server = try FakeLogoTransport()
        let pipeline = LogoPipeline(configuration: .init(transport: server))
        let task = Task { try await pipeline.image(for: url) }
        while server.requests.isEmpty { await Task.yield() }
        task.cancel()
        await #expect(throws: LogoError.cancelled) { try await task.value }
        #expect(server.cancels == [url])
    }
}
