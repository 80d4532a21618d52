import Foundation
import Imaging
import Testing

func temporaryFolder(_ name: String = #function) -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("hotelkit-tests-\(getpid())-\(name.filter(\.isLetter))-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("Caches")
struct CacheTests {
    @Test("the memory cache evicts the least recently used past its cost")
    func memoryLRU() {
        let cache = MemoryImageCache(costLimit: 3 * 64)
        let image = solid(4, 4, [1, 2, 3, 4])  // 64 bytes
        cache.store(image, for: "a")
        cache.store(image, for: "b")
        cache.store(image, for: "c")
        _ = cache.image(for: "a")  // a is now the most recent
        cache.store(image, for: "d")
        #expect(cache.image(for: "b") == nil)
        #expect(cache.image(for: "a") != nil && cache.image(for: "c") != nil && cache.image(for: "d") != nil)
        #expect(cache.usage == (cost: 192, count: 3))
        cache.store(solid(10, 10, [0, 0, 0, 0]), for: "huge")  // over the whole limit: not kept
        #expect(cache.image(for: "huge") == nil && cache.usage.count == 3)
    }

    @Test("the memory cache is safe from many threads")
    func memoryConcurrent() {
        let cache = MemoryImageCache(costLimit: 50 * 64)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<500 {
                cache.store(solid(4, 4, [UInt8(worker), 0, 0, 0]), for: "\(index % 80)")
                _ = cache.image(for: "\((index * 7) % 80)")
            }
        }
        #expect(cache.usage.cost <= 50 * 64)
    }

    @Test("disk entries round trip with their metadata, keyed by URL and filter")
    func diskRoundTrip() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskImageCache(directory: folder)
        let key = DiskImageCache.key(url: "http://127.0.0.1/logo.png", filter: try FilterChain(parsing: "resize:64x64"))
        #expect(key.count == 64)
        #expect(key != DiskImageCache.key(url: "http://127.0.0.1/logo.png", filter: FilterChain()))
        let metadata = CachedImageMetadata(
            url: "http://127.0.0.1/logo.png", etag: "\"abc\"", lastModified: "Sun, 22 Nov 2026 10:00:00 GMT",
            storedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try cache.store([1, 2, 3], for: key, metadata: metadata)
        #expect(cache.data(for: key) == [1, 2, 3])
        #expect(cache.metadata(for: key) == metadata)
        #expect(cache.data(for: String(repeating: "0", count: 64)) == nil)
        // Another instance on the same folder, as another process would be, sees it.
        #expect(try DiskImageCache(directory: folder).data(for: key) == [1, 2, 3])
    }

    @Test("a corrupt entry is a miss and is removed")
    func diskCorruption() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskImageCache(directory: folder)
        let key = DiskImageCache.key(url: "u", filter: FilterChain())
        try cache.store(Array(repeating: 7, count: 100), for: key)
        let file = folder.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key + ".img")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: file)
        #expect(cache.data(for: key) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        try Data("short".utf8).write(to: file)
        #expect(cache.data(for: key) == nil)
    }

    @Test("past the limit, a sweep keeps the most recently used under 70%")
    func diskSweep() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let entry = 1000
        let cache = try DiskImageCache(directory: folder, sizeLimit: 10 * (entry + 48))
        for index in 0..<10 {
            try cache.store(Array(repeating: UInt8(index), count: entry), for: DiskImageCache.key(url: "\(index)", filter: FilterChain()))
        }
        // Touch the first entry so it is the most recent, with an mtime clearly later.
        let first = DiskImageCache.key(url: "0", filter: FilterChain())
        let firstFile = folder.appendingPathComponent(String(first.prefix(2))).appendingPathComponent(first + ".img")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: firstFile.path)
        try cache.store(Array(repeating: 99, count: entry), for: DiskImageCache.key(url: "new", filter: FilterChain()))
        let usage = cache.usage()
        #expect(usage.bytes <= 7 * (entry + 48))
        #expect(cache.data(for: first) != nil)
        #expect(cache.data(for: DiskImageCache.key(url: "new", filter: FilterChain())) != nil)
    }

    @Test("concurrent writers on one folder never leave a damaged entry")
    func diskConcurrentWriters() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let caches = try (0..<2).map { _ in try DiskImageCache(directory: folder) }
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<40 {
                let key = DiskImageCache.key(url: "\(index % 10)", filter: FilterChain())
                try? caches[worker % 2].store(Array(repeating: UInt8(index % 10), count: 2000 + worker), for: key)
                if let data = caches[(worker + 1) % 2].data(for: key) {
                    #expect(Set(data) == [UInt8(index % 10)])
                }
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path)
        #expect(leftovers.isEmpty)
    }
}
