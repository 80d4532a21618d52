import ArgumentParser
import Console
import Fetching
import Foundation
import Hotels
import Imaging
import OfflineStore
import Runtime

/// One list of `hotels fetch`: a ``ListJob`` into its folder, its events on
/// the progress line and stderr, and its summary on stdout. Lists fetched at
/// once share the runtime's client (and so its sessions), store, logo
/// pipeline and the progress line.
struct ListFetch: Sendable {
    var runtime: HotelRuntime
    var client: HotelClient
    var keyword: String?
    var area: SearchArea?
    var options: ListSync.Options
    /// The logos' filter chain; nil for no logos.
    var logos: FilterChain?
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
        } catch  where Task.isCancelled {
            // Ctrl-C: the command says so once, for every list.
            return ExitCode(130)
        } catch {
            return Diagnostics.report(error, context: "fetch \(city)").code
        }
    }

    /// Fetches `city` into `folder` and prints the summary; a failure is
    /// reported after it and thrown as its exit code.
    func fetch(city: String, into folder: URL) async throws {
        let job = runtime.listJob(
            client, city: city, keyword: keyword, area: area, options: options, logos: logos, sink: FolderSink(folder: folder))
        let summary: ListJobSummary
        do {
            summary = try await job.run { event in
                switch event {
                case .cached: break
                case .pageStored(let page, _): progress.advance(by: page.hotels.count)
                case .offline(let offline):
                    progress.finish()
                    if !json { Diagnostics.note(label(city) + offline.banner()) }
                case .pagingEnded: progress.finish()
                case .logoFailed(let code, let url, let error): Diagnostics.warning("logo of \(code) (\(url)): \(error)")
                case .cachedRowsLogosFailed(let error):
                    Diagnostics.warning("\(label(city))the logos of the rows taken from the cache were not saved: \(error)")
                }
            }
        } catch let error as ListSyncError {
            progress.finish()
            throw Diagnostics.report(error, context: labelled ? city : "").code
        }
        writeAll(
            Array(((json ? JSONLine.string(summary) : label(city) + Diagnostics.shown(summary.description)) + "\n").utf8), to: STDOUT_FILENO
        )
        if summary.changedRows { await rematch(city) }
        if let failure = summary.failure, let page = summary.failedPage {
            throw Diagnostics.report(failure, context: "\(label(city))page \(page) of \(client.endpoint)").code
        }
    }

    /// The city's properties follow its list, when it has been matched before; a failure is a warning, the list is stored.
    private func rematch(_ city: String) async {
        do {
            if let matched = try await runtime.catalogue.rematch(city: city) { Diagnostics.note("\(label(city))matched again: \(matched)") }
        } catch {
            Diagnostics.warning("\(label(city))the list is stored, but matching its city again failed: \(error)")
        }
    }

    private func label(_ city: String) -> String {
        labelled ? "\(city): " : ""
    }
}
