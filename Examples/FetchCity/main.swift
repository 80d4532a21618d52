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

    var rows: [Hotel] = []
    for try await event in sync {
        switch event {
        case .cached(let list): print("cached: \(list.count) hotels, shown at once")
        case .merged(let page, let merge): rows = page.hotels; print("page 1: \(merge.inserted) new, \(merge.updated) updated")
        case .appended(let page, let added): rows += page.hotels; print("page \(page.number): \(added) new")
        case .offline(let offline): print(offline.banner())
        case .finished(let end): print("end: \(end.reason); \(end.list?.count ?? 0) hotels in the list")
        }
    }

    // The visible window: the first ten rows. One transfer per URL, decoded off
    // the caller's thread, filtered, and kept in memory for the next time.
    let pipeline = LogoPipeline(configuration: .init(filter: try FilterChain(parsing: "resize:64x64:fill,round:8")))
    let visible = rows.prefix(10).compactMap { hotel in hotel.logoURL.map { (hotel.code, $0) } }
    try await withThrowingTaskGroup(of: (String, Logo).self) { group in
        for (code, url) in visible {
            group.addTask { (code, try await pipeline.image(for: url)) }
        }
        for try await (code, logo) in group {
            print(code, logo.image.map { "\($0.width)×\($0.height)" } ?? "no image", "from", logo.source)
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
