import ArgumentParser
import Fetching
import Foundation
import Hotels
import Logos
import OfflineStore
import SOAP

/// One list of `hotels fetch`: a ``ListJob`` into its folder, its events on
/// the progress line and stderr, and its summary on stdout. Lists fetched at
/// once share the client (and so its sessions), the store, the logo
/// pipeline and the progress line.
struct ListFetch: Sendable {
    var client: HotelClient
    var storage: any ListStorage
    var keyword: String?
    var area: SearchArea?
    var options: ListSync.Options
    var logos: LogoPipeline?
    var progress: ProgressLine
    var json: Bool
    /// Names the city in the summary and in errors: when several lists are fetched.
    var labelled = false

    /// Fetches `city` into `folder`; returns its failure's exit code, reported on stderr, or nil.
    func exitCode(city: String, into folder: URL) async -> ExitCode? {
        do {
            try await fetch(city: city, into: folder)
            return nil
        } catch let code as ExitCode {
            return code
        } catch where Task.isCancelled {
            // Ctrl-C: the command says so once, for every list.
            return ExitCode(130)
        } catch {
            return Diagnostics.report(error, context: "fetch \(city)").code
        }
    }

    /// Fetches `city` into `folder` and prints the summary; a failure is
    /// reported after it and thrown as its exit code.
    func fetch(city: String, into folder: URL) async throws {
        let job = ListJob(client: client, storage: storage, city: city, keyword: keyword, area: area, options: options, logos: logos,
                          sink: FolderSink(folder: folder))
        var offlineBanner: String?
        let summary: ListJobSummary
        do {
            summary = try await job.run { event in
                switch event {
                case .cached: break
                case .pageStored(let page, _): progress.advance(by: page.hotels.count)
                case .offline(let offline):
                    progress.finish()
                    offlineBanner = offline.banner()
                    if !json, let offlineBanner { Diagnostics.note(label(city) + offlineBanner) }
                case .pagingEnded: progress.finish()
                case .logoFailed(let code, let url, let error): Diagnostics.warning("logo of \(code) (\(url)): \(error)")
                case .cachedRowsLogosFailed(let error):
                    Diagnostics.warning("\(label(city))the logos of the rows taken from the cache were not saved: \(error)")
                }
            }
        } catch let error as ListSyncError {
            progress.finish()
            throw refusal(error, city: city)
        }
        FetchReport(summary, offlineBanner: offlineBanner, out: folder.path).print(json: json, label: label(city))
        if let failure = summary.failure, let page = summary.failedPage {
            throw Diagnostics.report(failure, context: "\(label(city))page \(page) of \(client.endpoint)").code
        }
    }

    private func label(_ city: String) -> String {
        labelled ? "\(city): " : ""
    }

    /// Offline, with nothing to serve: what happened, in the words of the options.
    private func refusal(_ error: ListSyncError, city: String) -> ExitCode {
        let meaning = ErrorMeaning(error)
        switch error {
        case .nothingCached(_, let reason):
            Diagnostics.error("offline\(Self.why(reason)), and nothing is cached for \(city) from \(client.endpoint)", hint: meaning.hint)
        case .staleRefused(_, let reason):
            Diagnostics.error("\(label(city))offline\(Self.why(reason)); --require-fresh refuses the cached list")
        }
        return ExitCode(meaning.exitCode)
    }

    private static func why(_ reason: (any Error)?) -> String {
        reason.map { " (\($0))" } ?? " (--offline)"
    }
}

/// The one-line summary of a fetch, or its JSON: a ``ListJobSummary`` in the words of `hotels fetch`.
struct FetchReport: Encodable {
    var city: String
    /// The search's position, when it was one (`--near`).
    var near: String?
    var pages: Int
    var hotels: Int
    var fetched: Int
    var cached: Int
    /// Rows new to the list in this run, page 1's and the later pages'.
    var added: Int
    var merge: MergeResult?
    var end: String?
    var logos: LogoCounts
    var seconds: Double
    var out: String
    var error: String?
    /// The whole fault, when a SOAP fault stopped the run.
    var fault: FaultSummary?
    /// The offline banner, when the cache was served instead of the network.
    var offline: String?
    /// Record warnings by kind, every one counted.
    var warnings: [String: Int]

    init(_ summary: ListJobSummary, offlineBanner: String?, out: String) {
        city = summary.key.city
        near = summary.key.area?.description
        pages = summary.pages
        hotels = summary.hotels
        fetched = summary.fetched
        cached = summary.cached
        added = summary.added
        merge = summary.merge
        end = summary.end
        logos = summary.logos
        seconds = summary.seconds
        self.out = out
        error = summary.failureDescription.map(Diagnostics.shown)
        fault = (summary.failure as? SOAPFault).map(FaultSummary.init)
        offline = offlineBanner
        warnings = summary.warnings
    }

    /// One line, or one JSON object; `label` (the city, when a fetch has several lists) leads the line.
    func print(json: Bool, label: String = "") {
        let text: String
        if json {
            text = jsonLine(self)
        } else if let offline {
            text = label + offline + " into \(out)" + (logos.saved + logos.failed > 0 ? ", \(logos.saved) logos from the cache" : "")
        } else {
            let rate = seconds > 0 ? Double(fetched) / seconds : 0
            // Page 1's merge counts only its own rows: the run's new rows are said first, so no reader takes the difference for losses.
            let merged = merge.map { " (page 1 merged: \($0.inserted) new, \($0.updated) updated, \($0.moved) moved" + ($0.replaced ? ", list replaced" : "") + ")" } ?? ""
            text = label + "fetched \(fetched) hotels in \(pages) pages (\(String(format: "%.0f", rate))/s, end: \(end ?? "error")): "
                + "\(added) new to the list\(merged); \(hotels) in the list"
                + (logos.saved + logos.failed > 0
                    ? ", \(logos.saved) logos (\(logos.fromCache) cached, \(logos.revalidated) revalidated, \(logos.failed) failed)" : "")
                + " into \(out)"
        }
        writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }
}
