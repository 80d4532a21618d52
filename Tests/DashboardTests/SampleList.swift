import Fetching
import Foundation
import Imaging
import OfflineStore
import Runtime
import SampleService

/// A runtime on `store` (a new SQLite folder by default) holding Paris as fetched, logos included, from a
/// sample service of `hotels` hotels (all cities, Paris a fifth), which is stopped again; the fetch's summary is
/// the caller's to check, and the stopped service's endpoint is what the list is keyed by.
func sampleParis(hotels: Int, store: StoreLocation? = nil) async throws
    -> (runtime: HotelRuntime, list: CachedList?, summary: ListJobSummary, endpoint: String)
{
    var options = SampleServiceOptions()
    options.port = 0
    options.hotels = hotels
    let sample = try await SampleServer.start(options)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
    let runtime = try await HotelRuntime.open(.init(store: store ?? .folder(folder)))
    let client = try runtime.client(profile: try .named("sample"), endpoint: sample.endpoint)
    let summary = try await runtime.listJob(client, city: "Paris", logos: FilterChain(), sink: StoreOnlySink()).run()
    await sample.stop()
    return (runtime, try await runtime.storage.allLists().first, summary, sample.endpoint)
}
