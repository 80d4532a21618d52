// Fetch a city through the offline store, cache first, then load the logos
// of the rows a user can see. Run `hotels serve` and:
//   swift run FetchCity http://127.0.0.1:8080/soap Paris
import Foundation
import Hotels
import Imaging
import Logos
import OfflineStore

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: FetchCity ENDPOINT CITY\n".utf8))
    exit(64)
}
do {
    let client = HotelClient(profile: try ServiceProfile.named("sample"), endpoint: arguments[1])
    let store = try HotelStore.inMemory() // HotelStore() keeps it in ~/.cache/hotelkit
    let sync = ListSync(client: client, storage: store, city: arguments[2], options: .init(pageSize: 50, maxPages: 3))

    // The list as it stands: the cache at once, the service's pages as they come.
    var list: CachedList?
    for try await event in sync {
        switch event {
        case .cached(let cached): list = cached; print("cached: \(cached.count) hotels, shown at once")
        case .merged(_, let merge): print("page 1: \(merge.inserted) new, \(merge.updated) updated")
        case .appended(let page, let added): print("page \(page.number): \(added) new")
        case .offline(let offline): print(offline.banner())
        case .finished(let end): list = end.list; print("end: \(end.reason); \(end.list?.count ?? 0) hotels in the list")
        }
    }

    // The visible window: the top ten rows. One transfer per URL, decoded off
    // the caller's thread, filtered, and kept in memory for the next time.
    var visible: [Hotel] = []
    if let list { visible = try await store.hotels(in: list, offset: 0, limit: 10) }
    let pipeline = LogoPipeline(configuration: .init(filter: try FilterChain(parsing: "resize:64x64:fill,round:8")))
    try await withThrowingTaskGroup(of: (String, Logo).self) { group in
        for hotel in visible {
            guard let url = hotel.logoURL else { continue }
            group.addTask { (hotel.code, try await pipeline.image(for: url)) }
        }
        for try await (code, logo) in group {
            print(code, logo.image.map { "\($0.width)×\($0.height)" } ?? "no image", "from", logo.source)
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
