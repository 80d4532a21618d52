import ArgumentParser
import Foundation
import Hotels
import Imaging
import OfflineStore
import SOAP

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Page through a hotel list from a SOAP service, with logos, through the offline store.",
        discussion: """
        Cache first: a cached list is written to DIR/hotels.jsonl at once, then page 1 is \
        fetched and merged (new rows inserted, changed rows updated, moved rows moved; a page \
        that shares nothing with the cache replaces it), and "load more" resumes where the \
        last run stopped. Stops at the end of the list or --max-pages; never asks for a page \
        twice. Offline, the cached list is served with a banner (exit 0, or 69 with \
        --require-fresh or nothing cached). Exit 76 for a SOAP fault.
        """
    )

    @Option(help: "A built-in profile or a profile file.") var profile = "sample"
    @Option(help: "The service's SOAP endpoint URL.") var endpoint: String
    @Option(help: "The city to list.") var city: String
    @Option(help: "A keyword, for profiles whose body uses {keyword}.") var keyword: String?
    @Option(help: "Hotels per page.") var pageSize = 50
    @Option(help: "Fetch at most this many pages in this run.") var maxPages: Int?
    @Flag(help: "Download each hotel's logo.") var logos = false
    @Option(help: "Filter chain for logos, e.g. resize:64x64:fill,round:8 (saved as PNG).") var filter = ""
    @Option(help: "Logo downloads at once.") var concurrency = 6
    @Option(help: "Output folder.") var out = "hotels-out"
    @OptionGroup var cacheOptions: CacheOptions
    @Flag(help: "Serve the cache only; do not touch the network.") var offline = false
    @Flag(help: "Skip writing the cached list first; fetch, then write.") var refresh = false
    @Flag(help: "Fail (exit 69) rather than serve cached data when offline.") var requireFresh = false
    @Flag(help: "Do not verify TLS certificates (unsafe).") var insecure = false
    @Flag(help: "Print the summary as JSON.") var json = false
    @OptionGroup var limits: XMLLimitOptions

    func validate() throws {
        guard pageSize > 0, concurrency > 0 else { throw ValidationError("--page-size and --concurrency must be at least 1") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        guard !(offline && refresh) else { throw ValidationError("--offline and --refresh contradict each other") }
        let scheme = URL(string: endpoint)?.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", URL(string: endpoint)?.host?.isEmpty == false else {
            throw ValidationError("--endpoint must be an http or https URL, not “\(endpoint)”")
        }
    }

    func run() async throws {
        let profile: ServiceProfile
        let chain: FilterChain
        do {
            profile = try ServiceProfile.named(self.profile)
            chain = try FilterChain(parsing: filter)
        } catch {
            throw Diagnostics.report(error, context: error is FilterSpecError ? "--filter" : "--profile").code
        }
        var configuration = TransportConfiguration()
        if insecure {
            configuration.verifyTLS = false
            Diagnostics.warning("--insecure: TLS certificates are NOT verified; anyone on the path can read and change the traffic")
        }
        let client = HotelServiceClient(profile: profile, endpoint: endpoint, transport: HTTPTransport(configuration: configuration),
                                        limits: limits.limits)
        let started = Date()
        let store = try cacheOptions.folder.openStore()
        let key = ListKey(profile: profile.name, endpoint: endpoint, city: city, keyword: keyword)
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let listFile = folder.appendingPathComponent("hotels.jsonl")
        var fetcher = LogoFetcher(client: client, chain: chain, diskCache: logos ? cacheOptions.folder.openImages() : nil, store: store)
        var summary = FetchSummary(out: folder.path)

        let cached = try store.cachedList(key).flatMap { $0.count > 0 ? $0 : nil }
        if let cached, !refresh || offline {
            try writeFile(listFile) { try writeList(cached, from: store, to: $0) }
            summary.cached = cached.count
        }
        if offline {
            try await serveCached(cached, store: store, fetcher: &fetcher, summary: &summary, file: listFile, reason: nil)
            return
        }

        var pager = Pager(paging: profile.paging, pageSize: pageSize)
        var pageFailure: (any Error)?
        let progress = ProgressLine(total: 0, label: "hotels", quiet: json)
        var pagesThisRun = 0
        while let parameters = pager.nextRequest(city: city, keyword: keyword), pagesThisRun < (maxPages ?? .max) {
            let number = pager.pagesRequested + 1
            do {
                let page = try await client.fetchPage(parameters) { attempt, error in
                    Diagnostics.warning("page \(number): \(error); retry \(attempt) of 3")
                }
                page.warnings.forEach { Diagnostics.warning("page \(number): \($0)") }
                pager.received(page)
                pagesThisRun += 1
                if pagesThisRun == 1 {
                    let merge = try store.mergeFirstPage(page.hotels, into: key, checkpoint: pager.checkpoint)
                    summary.merge = merge
                    // Load more goes on from where the cache stopped, unless the list started over.
                    if !merge.replaced, let checkpoint = cached?.checkpoint {
                        pager = Pager(paging: profile.paging, pageSize: pageSize, resuming: checkpoint)
                    }
                } else {
                    try store.appendPage(page.hotels, to: key, checkpoint: pager.checkpoint)
                }
                summary.fetched += page.hotels.count
                progress.advance(by: page.hotels.count)
                // Logos page by page: nothing accumulates, whatever the length of the list.
                if logos {
                    summary.logos.add(await fetcher.save(page.hotels, into: folder.appendingPathComponent("logos"), concurrency: concurrency))
                }
            } catch {
                pageFailure = error
                break
            }
        }
        progress.finish()
        if let pageFailure, pagesThisRun == 0, (pageFailure as? TransportError)?.isOffline == true {
            try await serveCached(cached, store: store, fetcher: &fetcher, summary: &summary, file: listFile, reason: pageFailure)
            return
        }
        if let list = try store.cachedList(key) {
            try writeFile(listFile) { try writeList(list, from: store, to: $0) }
            summary.hotels = list.count
        }
        summary.pages = pagesThisRun
        summary.end = (pager.end == .pageLimit ? nil : pager.end?.rawValue) ?? (pageFailure == nil && pagesThisRun > 0 ? "maxPages" : nil)
        summary.seconds = Date().timeIntervalSince(started)
        summary.error = pageFailure.map { String(describing: $0) }
        summary.print(json: json)
        if let pageFailure {
            throw Diagnostics.report(pageFailure, context: "page \(pager.pagesRequested + 1) of \(endpoint)").code
        }
    }

    /// Offline: the cached list (already written) and cached logos, with the banner; or exit 69.
    private func serveCached(_ cached: CachedList?, store: HotelStore, fetcher: inout LogoFetcher, summary: inout FetchSummary,
                             file: URL, reason: (any Error)?) async throws {
        let why = reason.map { " (\($0))" } ?? " (--offline)"
        guard let cached else {
            Diagnostics.error("offline\(why), and nothing is cached for \(city) from \(endpoint)",
                              hint: "run hotels fetch once with the service reachable; hotels cache stats shows what is cached")
            throw ExitStatus.unavailable.code
        }
        let banner = OfflineFallback.banner(hotels: cached.count, city: city, fetchedAt: cached.fetchedAt)
        if requireFresh {
            Diagnostics.error("offline\(why); --require-fresh refuses the cached list", hint: nil)
            throw ExitStatus.unavailable.code
        }
        if !json { Diagnostics.note(banner) }
        if logos {
            fetcher.offline = true
            let hotels = try store.hotels(in: cached)
            summary.logos = await fetcher.save(hotels, into: file.deletingLastPathComponent().appendingPathComponent("logos"), concurrency: concurrency)
        }
        summary.hotels = cached.count
        summary.offline = banner
        summary.print(json: json)
    }

    /// Replaces `url` with what `body` writes, atomically: a reader never sees half a list.
    private func writeFile(_ url: URL, _ body: (FileHandle) throws -> Void) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            Diagnostics.error("cannot write \(url.path)", hint: "check the --out folder's permissions")
            throw ExitStatus.ioError.code
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try body(handle)
        try handle.close()
        guard rename(temporary.path, url.path) == 0 else {
            Diagnostics.error("cannot write \(url.path): \(String(cString: strerror(errno)))", hint: nil)
            throw ExitStatus.ioError.code
        }
    }
}

/// The one-line summary of a fetch, or its JSON.
struct FetchSummary: Encodable {
    /// Pages fetched in this run.
    var pages = 0
    /// Rows in the list now, cached and fetched.
    var hotels = 0
    /// Rows that came from the network in this run.
    var fetched = 0
    /// Rows written from the cache before the network was asked.
    var cached = 0
    var merge: MergeResult?
    var end: String?
    var logos = LogoSummary()
    var seconds = 0.0
    var out: String
    var error: String?
    /// The offline banner, when the cache was served instead of the network.
    var offline: String?

    init(out: String) {
        self.out = out
    }

    func print(json: Bool) {
        let text: String
        if json {
            text = jsonLine(self)
        } else if let offline {
            text = offline + " into \(out)" + (logos.saved + logos.failed > 0 ? ", \(logos.saved) logos from the cache" : "")
        } else {
            let rate = seconds > 0 ? Double(fetched) / seconds : 0
            let merged = merge.map { ", merged: \($0.inserted) new, \($0.updated) updated, \($0.moved) moved" + ($0.replaced ? ", list replaced" : "") } ?? ""
            text = "fetched \(fetched) hotels in \(pages) pages (\(String(format: "%.0f", rate))/s, end: \(end ?? "error"))\(merged); \(hotels) in the list"
                + (logos.saved + logos.failed > 0
                    ? ", \(logos.saved) logos (\(logos.fromCache) cached, \(logos.revalidated) revalidated, \(logos.failed) failed)" : "")
                + " into \(out)"
        }
        writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }
}
