// The dashboard's API pages of a long list, in process: Hummingbird's router
// test client calls the application with no socket, so what is timed is the
// dashboard and its store. For scripts/compare dashboard.
//
// usage: dashboard-pages STORE LIST_ID PAGES RUNS
// Walks /api/lists/ID/hotels?limit=50 by its `next` links from the first page
// through page PAGES, timing each page; then asks for the first page and page
// PAGES again, RUNS times each. Prints one JSON line:
// {"rows": R, "walk": {"pages", "median_ms", "p99_ms", "max_ms", "first_ms", "last_ms"},
//  "first": {"best_ms", "median_ms"}, "deep": {"page", "after", "best_ms", "median_ms"}}
import Dashboard
import Foundation
import HummingbirdTesting
import PostgresStore
import Runtime

let arguments = CommandLine.arguments
guard arguments.count == 5, let listID = Int64(arguments[2]), let pages = Int(arguments[3]), let runs = Int(arguments[4]), pages > 0,
    runs > 0
else {
    FileHandle.standardError.write(Data("usage: dashboard-pages STORE LIST_ID PAGES RUNS\n".utf8))
    exit(64)
}

struct Failure: Error { var reason: String }

struct Page: Decodable {
    struct Row: Decodable { var code: String }
    var hotels: [Row]
    var next: String?
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

let runtime = try await HotelRuntime.open(.init(store: .shared(try PostgresLocation(url: arguments[1]))))
guard let list = try await runtime.storage.list(id: listID) else {
    FileHandle.standardError.write(Data("dashboard-pages: no list \(listID)\n".utf8))
    exit(66)
}
let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
let first = "/api/lists/\(listID)/hotels?limit=50"
let report = try await app.test(.router) { client in
    /// Asks for `uri`; its time and its page.
    func ask(_ uri: String) async throws -> (ms: Double, page: Page) {
        let started = ContinuousClock.now
        let body = try await client.execute(uri: uri, method: .get) { response in
            guard response.status == .ok else { throw Failure(reason: "\(uri): \(response.status)") }
            return Data(buffer: response.body)
        }
        let page = try JSONDecoder().decode(Page.self, from: body)
        return ((ContinuousClock.now - started).milliseconds, page)
    }
    var walk: [Double] = []
    var uri = first
    var deep = first
    for number in 1...pages {
        let (ms, page) = try await ask(uri)
        guard page.hotels.count == 50 else { throw Failure(reason: "page \(number) had \(page.hotels.count) rows") }
        walk.append(ms)
        deep = uri
        guard let next = page.next else { break }
        uri = next
    }
    func again(_ uri: String) async throws -> [Double] {
        var times: [Double] = []
        for _ in 0..<runs { times.append(try await ask(uri).ms) }
        return times.sorted()
    }
    let firstTimes = try await again(first)
    let deepTimes = try await again(deep)
    let sortedWalk = walk.sorted()
    return """
        {"rows": \(list.count), "walk": {"pages": \(walk.count), "median_ms": \(sortedWalk[walk.count / 2]), \
        "p99_ms": \(sortedWalk[min(walk.count - 1, walk.count * 99 / 100)]), "max_ms": \(sortedWalk[walk.count - 1]), \
        "first_ms": \(walk[0]), "last_ms": \(walk[walk.count - 1])}, \
        "first": {"best_ms": \(firstTimes[0]), "median_ms": \(firstTimes[runs / 2])}, \
        "deep": {"page": \(walk.count), "uri": "\(deep)", "best_ms": \(deepTimes[0]), "median_ms": \(deepTimes[runs / 2])}}
        """
}
await runtime.close()
print(report)
