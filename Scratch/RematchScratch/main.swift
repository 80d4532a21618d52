import Foundation
import Matching
import SupplierWorlds

// `RematchScratch HOTELS [served]`: Paris of the matching tests' world, or of the served world (four cities, as
// `scripts/compare match` fetches them; Paris alone is matched here).
let hotels = Int(CommandLine.arguments.dropFirst().first ?? "5000") ?? 5000
let served = CommandLine.arguments.dropFirst(2).first == "served"
let world = SupplierWorld(
    served ? .served(hotels: hotels, seed: 1) : .matchingTests(hotels: hotels, seed: 77), suppliers: 1...(served ? 5 : 4))
let records = world.records.filter { !served || $0.listCity == "Paris" }.map { record in
    MatchRecord(
        hotel: record.hotel,
        source: MatchSource(
            listID: Int64(record.supplier), profile: "supplier\(record.supplier)",
            endpoint: "https://supplier\(record.supplier).example/soap",
            listCity: "Paris"))
}
let matcher = Matcher()
let clock = ContinuousClock()
var before: PreparedRecords!
let prepareTime = clock.measure { before = matcher.prepare(records) }
var result: MatchResult!
let firstTime = clock.measure { result = before.match() }
let previous = PreviousMatch(prepared: before, result: result, decisions: [])
// One supplier's list: 30 names edited, 20 rows gone.
var refreshed = records
let ofSupplier = refreshed.indices.filter { refreshed[$0].source.profile == "supplier2" }
for index in ofSupplier.prefix(30) { refreshed[index].hotel.name = (refreshed[index].hotel.name ?? "") + " Plaza" }
let gone = Set(ofSupplier.suffix(20))
refreshed = refreshed.indices.filter { !gone.contains($0) }.map { refreshed[$0] }
var after: PreparedRecords!
let prepareAgain = clock.measure { after = matcher.prepare(refreshed) }
var full: MatchResult!
let fullTime = clock.measure { full = after.match() }
var incremental: MatchResult?
let rematchTime = clock.measure { incremental = after.rematch(since: previous, decisions: []) }
print("records", records.count, "prepare", prepareTime, prepareAgain, "first match", firstTime, "full", fullTime, "rematch", rematchTime)
print(
    "same:", incremental?.properties == full.properties, incremental?.scoredPairs == full.scoredPairs,
    incremental?.reviewPairs == full.reviewPairs)
