// A worker's match job after one list of a city changed: matched again from the city's last run kept in memory
// (MatchMemory), beside a full match of the same records, alternating, in one process; for scripts/compare match.
// The store is changed: give a copy.
//
// usage: rematch-store CACHE CITY ROUNDS
// Each round edits the city's first list as a refresh would (30 names edited, 20 rows gone, 10 new), matches the city
// from memory, then in full with no memory. Prints one JSON line per round: {"records", "list_rows",
// "matched_again", "memory_s", "full_s", "same"} ("same": the full match found nothing to write, so the store held
// its result already), then one with the memory's peak resident size.
import Foundation
import Hotels
import Matching
import OfflineStore
import Runtime

let arguments = CommandLine.arguments
guard arguments.count == 4, let rounds = Int(arguments[3]), rounds > 0 else {
    FileHandle.standardError.write(Data("usage: rematch-store CACHE CITY ROUNDS\n".utf8))
    exit(64)
}
let (store, city) = (try SQLiteHotelStore(folder: URL(fileURLWithPath: arguments[1])), arguments[2])
let scope = MatchSource.scope(ofCity: city, listID: 0)
let remembering = Catalogue(storage: store, memory: MatchMemory(recordLimit: .max, smallestCity: 0))
guard let list = try await remembering.lists(inScope: scope).max(by: { $0.count < $1.count }) else {
    FileHandle.standardError.write(Data("rematch-store: no list of \(city) in \(arguments[1])\n".utf8))
    exit(66)
}
// The memory holds the city once it has been matched in this process.
_ = try await remembering.match(cities: [city], full: true)
let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

for round in 1...rounds {
    var hotels = try store.hotels(in: list, limit: nil)
    for index in hotels.indices.prefix(30) { hotels[index].name = (hotels[index].name ?? "") + " \(round)" }
    hotels.removeLast(20)
    let newcomers = (1...10).map { number in
        var hotel = hotels[number * 97 % hotels.count]
        hotel.code = "REFRESH-\(round)-\(number)"
        hotel.name = "Hôtel Nouveau \(round) \(number)"
        return hotel
    }
    // New hotels first: a first page sharing no row with the stored list replaces it, so the rows gone go.
    _ = try store.mergeFirstPage(newcomers, into: list.key, checkpoint: checkpoint, now: Date())
    _ = try store.appendPage(hotels, to: list.key, checkpoint: checkpoint, now: Date())

    let clock = ContinuousClock()
    var again = CatalogueSummary()
    let memoryTime = try await clock.measure { again = try await remembering.match(cities: [city]) }
    var full = CatalogueSummary()
    let fullTime = try await clock.measure { full = try await Catalogue(storage: store).match(cities: [city], full: true) }
    let same = full.propertiesWritten == 0 && full.propertiesDeleted == 0 && full.reviewPairsWritten == 0
    print(
        #"{"records": \#(again.records), "list_rows": \#(hotels.count + newcomers.count), "matched_again": \#(again.recordsMatchedAgain ?? -1), "#
            + #""memory_s": \#(seconds(memoryTime)), "full_s": \#(seconds(fullTime)), "same": \#(same)}"#)
}
