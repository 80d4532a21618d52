// Fetch a city's whole list through the offline store, cache first, with
// every hotel's logo, into a folder: OUT/hotels.jsonl and OUT/logos/, as
// `hotels fetch --logos --out OUT` writes them. Run `hotels serve` and:
//   swift run FetchCity http://127.0.0.1:8080/soap Paris paris
import Failures
import Fetching
import Foundation
import Hotels
import Imaging
import Runtime

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: FetchCity ENDPOINT CITY OUT\n".utf8))
    exit(64)
}
do {
    // The store and the logo cache live in ~/.cache/hotelkit, as the tool's do.
    let runtime = try await HotelRuntime.open()
    let client = try runtime.client(profile: try .named("sample"), endpoint: arguments[1])
    let job = runtime.listJob(
        client, city: arguments[2], logos: FilterChain(), sink: FolderSink(folder: URL(fileURLWithPath: arguments[3])))
    let summary = try await job.run { event in
        switch event {
        case .cached(let list): print("cached: \(list.count) hotels, written at once")
        case .pageStored(let page, .merged(let merge)): print("page \(page.number): \(merge.inserted) new, \(merge.updated) updated")
        case .pageStored(let page, .appended(let added)): print("page \(page.number): \(added) new")
        case .offline(let offline): print(offline.banner())
        case .logoFailed(let code, _, let error): print("logo of \(code): \(error)")
        case .pagingEnded, .cachedRowsLogosFailed: break
        }
    }
    print("end: \(summary.end ?? "error"); \(summary.hotels) hotels in the list, \(summary.logos.saved) logos")
    await runtime.close()
    if let failure = summary.failure {
        // What the error means: the exit code, and what to do about it.
        let meaning = ErrorMeaning(failure)
        FileHandle.standardError.write(Data("error: \(summary.failureDescription ?? "")\n\(meaning.hint ?? "")\n".utf8))
        exit(meaning.exitCode)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(ErrorMeaning(error).exitCode)
}
