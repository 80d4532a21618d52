// A cold read in process: open the store, read the first 20 rows of a
// city's newest list, close it; for scripts/compare store, beside
// StoreBenchmarks' "open the store, then the first 20 rows" (SQLite).
// The process's start-up is not in it, so the two stores' own costs show.
//
// usage: first-rows STORE CITY RUNS   (STORE: a postgres:// URL or a cache folder)
// Prints one JSON line: {"store": "postgres"|"sqlite", "rows": 20, "best_ms": B, "median_ms": M}.
import Foundation
import OfflineStore
import PostgresStore

let arguments = CommandLine.arguments
guard arguments.count == 4, let runs = Int(arguments[3]), runs > 0 else {
    FileHandle.standardError.write(Data("usage: first-rows STORE CITY RUNS\n".utf8))
    exit(64)
}
let (target, city) = (arguments[1], arguments[2])
let isShared = target.hasPrefix("postgres")

func open() async throws -> any HotelStorage {
    isShared
        ? PostgresHotelStore(database: try await PostgresDatabase.open(try PostgresLocation(url: target)))
        : try SQLiteHotelStore(folder: URL(fileURLWithPath: target))
}

var times: [Double] = []
var rows = 0
for _ in 0..<runs {
    let started = ContinuousClock.now
    let store = try await open()
    guard let list = try await store.latestList(city: city, profile: nil, keyword: nil, area: nil) else {
        FileHandle.standardError.write(Data("first-rows: no list of \(city) in \(target)\n".utf8))
        exit(66)
    }
    rows = try await store.hotels(in: list, limit: 20).count
    let elapsed = ContinuousClock.now - started
    await (store as? PostgresHotelStore)?.database.close()
    times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
}
times.sort()
print(#"{"store": "\#(isShared ? "postgres" : "sqlite")", "rows": \#(rows), "best_ms": \#(times[0]), "median_ms": \#(times[runs / 2])}"#)
