import Crypto
import ArgumentParser
import Foundation
import Hotels
import Logos
import OfflineStore
import SOAP

/// One list of `hotels fetch`: its sync through the store, `hotels.jsonl` and
/// logos in its folder, and its summary. Lists fetched at once share the
/// client (and so its sessions), the store, the logo pipeline and the progress line.
struct ListFetch: Sendable {
    var client: HotelClient
    var store: HotelStore
    var keyword: String?
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
        let sync = ListSync(client: client, storage: store, city: city, keyword: keyword, options: options)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = ListOutput(folder: folder, store: store)
        let pagesOutput = PagesOutput(folder: folder)
        defer { pagesOutput.abandon() }
        let logoSaver = logos.map { LogoSaver(folder: folder.appendingPathComponent("logos"), pipeline: $0) }
        logoSaver?.removeLeftovers()
        var summary = FetchSummary(out: folder.path, city: city)
        let started = Date()
        var finished: CachedList?
        do {
            for try await event in sync {
                switch event {
                case .cached(let list):
                    try output.write(list)
                    summary.cached = list.count
                case .merged(let page, let merge):
                    summary.merge = merge
                    pagesOutput.merged(page.hotels, merge)
                    await summary.received(page, progress: progress, logos: logoSaver)
                case .appended(let page, let added):
                    pagesOutput.appended(page.hotels, added: added)
                    await summary.received(page, progress: progress, logos: logoSaver)
                case .offline(let offline):
                    progress.finish()
                    if !json { Diagnostics.note(label(city) + offline.banner()) }
                    summary.offline = offline.banner()
                    summary.hotels = offline.list.count
                    if let logoSaver {
                        summary.logos = await logoSaver.save(try await store.hotels(in: offline.list), policy: .cacheOnly)
                    }
                    summary.print(json: json, label: label(city))
                    return
                case .finished(let end):
                    summary.end = end.reason
                    finished = end.list
                }
            }
        } catch let error as ListSyncError {
            progress.finish()
            throw refusal(error, city: city)
        } catch {
            summary.error = Diagnostics.shown(String(describing: error))
            summary.fault = (error as? SOAPFault).map(FaultSummary.init)
            summary.failure = error
        }
        progress.finish()
        if let finished, let logoSaver {
            do {
                await summary.save(try await store.hotels(in: finished), logos: logoSaver)
            } catch {
                Diagnostics.warning("\(label(city))the logos of the rows taken from the cache were not saved: \(error)")
            }
        }
        // The list as the sync finished it; after an error, as the store has it.
        let list: CachedList?
        if let finished { list = finished } else { list = try await store.cachedList(sync.key) }
        if let list {
            if !pagesOutput.finish(list) { try output.write(list) }
            summary.hotels = list.count
        }
        summary.seconds = Date().timeIntervalSince(started)
        summary.print(json: json, label: label(city))
        if let failure = summary.failure {
            throw Diagnostics.report(failure, context: "\(label(city))page \(summary.pages + 1) of \(client.endpoint)").code
        }
    }

    private func label(_ city: String) -> String {
        labelled ? "\(city): " : ""
    }

    /// Offline, with nothing to serve: what happened, in the words of the options.
    private func refusal(_ error: ListSyncError, city: String) -> ExitCode {
        switch error {
        case .nothingCached(_, let reason):
            Diagnostics.error("offline\(Self.why(reason)), and nothing is cached for \(city) from \(client.endpoint)",
                              hint: "run hotels fetch once with the service reachable; hotels cache stats shows what is cached")
        case .staleRefused(_, let reason):
            Diagnostics.error("\(label(city))offline\(Self.why(reason)); --require-fresh refuses the cached list")
        }
        return ExitStatus.unavailable.code
    }

    private static func why(_ reason: (any Error)?) -> String {
        reason.map { " (\($0))" } ?? " (--offline)"
    }
}

/// A file or folder name made from text a service or a user chose (a hotel
/// code, a city): the text itself when it is a plain name; else its plain
/// characters and a hash of the whole. It never names a path outside its
/// folder (`../x`, `a/b`) or a hidden file.
enum SafeFileName {
    static func base(for text: String) -> String {
        func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) }
        let plain = text.unicodeScalars.allSatisfy { isLetterOrDigit($0) || "-_.".unicodeScalars.contains($0) }
        if plain, !text.isEmpty, !text.hasPrefix("."), text.utf8.count <= 100 { return text }
        let kept = String(text.unicodeScalars.prefix(60).map { isLetterOrDigit($0) ? Character($0) : "_" })
        let hash = SHA256.hash(data: Data(text.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "\(kept)-\(hash)"
    }
}
