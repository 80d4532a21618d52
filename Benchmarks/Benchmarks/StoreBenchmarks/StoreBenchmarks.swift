import Benchmark
import Foundation
import Hotels
import OfflineStore

/// Hotel `index` of a synthetic list, newest first.
private func hotel(_ index: Int, addtime: Int64? = nil) -> Hotel {
    Hotel(code: String(format: "H%07d", index), name: "Grand Plaza Hotel \(index)", address: "\(index % 999) Nanjing Road, Shanghai",
          latitude: 31.2 + Double(index % 1000) / 10000, longitude: 121.4 + Double(index % 997) / 10000,
          logoURL: "http://127.0.0.1:8080/logos/H\(index).png", addtime: addtime ?? Int64(2_000_000_000 - index * 10))
}

private let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:8080/soap", city: "Shanghai")
private let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: nil)

/// A store holding one list of `count` hotels, built in pages of 5,000.
private func filledStore(_ count: Int) throws -> SQLiteHotelStore {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
    let store = try SQLiteHotelStore(folder: folder)
    for start in stride(from: 0, to: count, by: 5000) {
        try store.appendPage((start..<min(count, start + 5000)).map { hotel($0) }, to: key, checkpoint: checkpoint)
    }
    return store
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 200)
    guard let store = try? filledStore(100_000), let list = try? store.cachedList(key) else { return }

    Benchmark("First 20 rows of a 100,000-hotel list", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try store.hotels(in: list, limit: 20).count)
        }
    }

    Benchmark("Open the store, then the first 20 rows", configuration: configuration) { benchmark in
        let folder = URL(fileURLWithPath: store.path).deletingLastPathComponent()
        for _ in benchmark.scaledIterations {
            let opened = try SQLiteHotelStore(folder: folder)
            guard let cached = try opened.cachedList(key) else { continue }
            blackHole(try opened.hotels(in: cached, limit: 20).count)
        }
    }

    Benchmark("The whole 100,000-hotel list", configuration: .init(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 10)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try store.hotels(in: list).count)
        }
    }

    // Half the page is new, a quarter changed addtime (moves), a quarter is unchanged.
    Benchmark("Merge a 500-row first page into 100,000 hotels", configuration: configuration) { benchmark in
        var round = 0
        for _ in benchmark.scaledIterations {
            round += 1
            let fresh = (0..<250).map { hotel(1_000_000 + round * 1000 + $0, addtime: 3_000_000_000 + Int64(round)) }
                + (0..<125).map { hotel($0 * 7, addtime: 2_500_000_000 + Int64(round * 1000 + $0)) }
                + (0..<125).map { hotel(50_000 + $0) }
            benchmark.startMeasurement()
            blackHole(try store.mergeFirstPage(fresh, into: key, checkpoint: checkpoint).inserted)
            benchmark.stopMeasurement()
        }
    }
}
