import Fetching
import Foundation
import Imaging
import OfflineStore
import Runtime
import SampleService

/// A runtime on a new SQLite folder holding Paris as fetched, logos included, from a sample service of
/// `hotels` hotels (all cities), which is stopped again; the fetch's summary is the caller's to check.
func sampleParis(hotels: Int) async throws -> (runtime: HotelRuntime, list: CachedList?, summary: ListJobSummary) {
    var options = SampleServiceOptions()
    options.port = 0
    options.hotels = hotels
    let sample = try await SampleServer.start(options)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
    let runtime = try await HotelRuntime.open(.init(store: .folder(folder)))
    let client = try runtime.client(profile: try .named("sample"), endpoint: sample.endpoint)
    let summary = try await runtime.listJob(client, city: "Paris", logos: FilterChain(), sink: StoreOnlySink()).run()
    await sample.stop()
    return (runtime, try await runtime.storage.allLists().first, summary)
}
