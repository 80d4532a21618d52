import Crypto
import ArgumentParser
import Foundation
import HTTP
import Hotels
import Imaging
import Logos
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
        --require-fresh or nothing cached). Exit 76 for a SOAP fault, 77 when the service \
        refuses the credentials, 78 when the profile's credentials are not set.

        Credentials: the profile's {env:NAME} placeholders are read from the environment, or \
        from --credentials FILE (a JSON object of strings, readable by its owner only). They \
        never appear in any output. Sessions are logged out when the fetch ends, fails or is \
        interrupted (Ctrl-C).
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
    @Option(help: "A JSON file of credentials for the profile's {env:NAME} placeholders (mode 600).") var credentials: String?
    @Option(help: "Write every request and response, with its HTTP headers, to numbered files here; secrets redacted.")
    var dump: String?
    @OptionGroup var limits: XMLLimitOptions
    @OptionGroup var warningOptions: WarningOptions

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
        var transport = TransportConfiguration()
        if insecure {
            transport.verifyTLS = false
            Diagnostics.warning("--insecure: TLS certificates are NOT verified; anyone on the path can read and change the traffic")
        }
        let http = HTTPTransport(configuration: transport)
        let client: HotelClient
        do {
            client = HotelClient(profile: profile, endpoint: endpoint, configuration: HotelClientConfiguration(
                transport: http, limits: limits.limits, warningsPerKind: warningOptions.perKind,
                credentials: try credentials.map(Credentials.environment(overlaidWith:)) ?? .environment,
                exchangeLog: try dump.map(ExchangeDump.init(folder:))))
            Diagnostics.redact(with: client.secrets)
            try client.requests.checkCredentials()
        } catch {
            throw Diagnostics.report(error, context: "--profile \(self.profile)").code
        }
        // Ctrl-C or SIGTERM stops the fetch; its sessions are still logged out.
        let interruption = Interruption()
        let outcome = await interruption.run { try await fetch(client: client, http: http, chain: chain) }
        await client.close()
        if interruption.happened {
            Diagnostics.note("interrupted: the pages fetched so far are stored, and every session was logged out")
            throw ExitCode(130)
        }
        switch outcome {
        case .success: break
        case .failure(let error as ExitCode): throw error
        case .failure(let error): throw Diagnostics.report(error, context: "fetch").code
        }
    }

    private func fetch(client: HotelClient, http: HTTPTransport, chain: FilterChain) async throws {
        let store = try cacheOptions.folder.openStore()
        let sync = ListSync(client: client, storage: store, city: city, keyword: keyword, options: ListSync.Options(
            pageSize: pageSize, maxPages: maxPages, cacheFirst: !refresh || offline, cacheOnly: offline,
            servesCacheWhenOffline: !requireFresh, readAhead: true))
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = ListOutput(folder: folder, store: store)
        let pagesOutput = PagesOutput(folder: folder)
        defer { pagesOutput.abandon() }
        let logoSaver = logos ? LogoSaver(folder: folder.appendingPathComponent("logos"), pipeline: LogoPipeline(
            configuration: .init(transport: HTTPLogoTransport(client: http), filter: chain, diskCache: cacheOptions.folder.openImages(),
                                 index: store, downloadConcurrency: concurrency))) : nil
        logoSaver?.removeLeftovers()
        var summary = FetchSummary(out: folder.path)
        let started = Date()
        let progress = ProgressLine(total: 0, label: "hotels", quiet: json)
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
                    if !json { Diagnostics.note(offline.banner()) }
                    summary.offline = offline.banner()
                    summary.hotels = offline.list.count
                    if let logoSaver {
                        summary.logos = await logoSaver.save(try await store.hotels(in: offline.list), policy: .cacheOnly)
                    }
                    summary.print(json: json)
                    return
                case .finished(let end):
                    summary.end = end.reason
                    finished = end.list
                }
            }
        } catch let error as ListSyncError {
            progress.finish()
            throw refusal(error)
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
                Diagnostics.warning("the logos of the rows taken from the cache were not saved: \(error)")
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
        summary.print(json: json)
        if let failure = summary.failure {
            throw Diagnostics.report(failure, context: "page \(summary.pages + 1) of \(endpoint)").code
        }
    }
}

extension FetchCommand {
    /// Offline, with nothing to serve: what happened, in the words of the options.
    func refusal(_ error: ListSyncError) -> ExitCode {
        switch error {
        case .nothingCached(_, let reason):
            Diagnostics.error("offline\(Self.why(reason)), and nothing is cached for \(city) from \(endpoint)",
                              hint: "run hotels fetch once with the service reachable; hotels cache stats shows what is cached")
        case .staleRefused(_, let reason):
            Diagnostics.error("offline\(Self.why(reason)); --require-fresh refuses the cached list")
        }
        return ExitStatus.unavailable.code
    }

    private static func why(_ reason: (any Error)?) -> String {
        reason.map { " (\($0))" } ?? " (--offline)"
    }
}

/// A SOAP fault for `--json`: every part, the detail as XML and as lines.
struct FaultSummary: Encodable {
    var code: String
    var subcodes: [String]
    var reason: String
    var node: String?
    var role: String?
    var detail: String?
    var detailLines: [String]

    init(_ fault: SOAPFault) {
        code = fault.code.value
        subcodes = fault.subcodes.map(\.value)
        reason = fault.reason
        node = fault.node
        role = fault.role
        detail = fault.detail
        detailLines = fault.detailLines
    }
}

/// Saves each hotel's logo into a folder as CODE.png|jpg, through the logo pipeline.
struct LogoSaver {
    var folder: URL
    /// Its request queue runs `--concurrency` downloads at once.
    var pipeline: LogoPipeline

    func save(_ hotels: [Hotel], policy: LogoCachePolicy = .revalidate) async -> LogoSummary {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Each child saves its own logo and hands back only counts: a child
        // result holding the logo's bytes and an existential error crashed
        // release builds (Swift 6.3.1) while the group copied it out.
        return await withTaskGroup(of: LogoSummary.self) { group in
            for hotel in hotels {
                guard let url = hotel.logoURL else { continue }
                group.addTask { [self] in await saveOne(code: hotel.code, url: url, policy: policy) }
            }
            var summary = LogoSummary()
            for await one in group { summary.add(one) }
            return summary
        }
    }

    /// Removes the temporary files a killed run left behind; once per run.
    func removeLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(".") && name.hasSuffix(Self.partialSuffix) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    private static let partialSuffix = ".partial"

    /// The file name of `code`'s logo: the code itself when it is a plain
    /// name; else its plain characters and a hash of the whole. A code comes
    /// from the service, and must never name a path outside the folder
    /// (`../x`, `a/b`) or a hidden file.
    static func fileName(for code: String, ext: String) -> String {
        func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) }
        let plain = code.unicodeScalars.allSatisfy { isLetterOrDigit($0) || "-_.".unicodeScalars.contains($0) }
        if plain, !code.isEmpty, !code.hasPrefix("."), code.utf8.count <= 100 { return "\(code).\(ext)" }
        let kept = String(code.unicodeScalars.prefix(60).map { isLetterOrDigit($0) ? Character($0) : "_" })
        let hash = SHA256.hash(data: Data(code.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "\(kept)-\(hash).\(ext)"
    }

    /// Writes through a hidden temporary file beside the logo and renames it
    /// over, so a reader never sees half a logo, and a killed run leaves only
    /// a temporary file the next run removes.
    private func write(_ bytes: [UInt8], as name: String) throws {
        let partial = folder.appendingPathComponent(".\(name)\(Self.partialSuffix)")
        try Data(bytes).write(to: partial)
        guard rename(partial.path, folder.appendingPathComponent(name).path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: partial)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot write \(name): \(reason)"])
        }
    }

    private func saveOne(code: String, url: String, policy: LogoCachePolicy) async -> LogoSummary {
        var summary = LogoSummary()
        do {
            let logo = try await pipeline.data(for: url, policy: policy)
            let bytes = logo.data ?? []
            let filtered = !pipeline.configuration.filter.filters.isEmpty
            let ext = !filtered && (try? ImageFormat.detect(bytes)) == .jpeg ? "jpg" : "png"
            try write(bytes, as: Self.fileName(for: code, ext: ext))
            summary.count(logo, bytes: bytes.count)
        } catch {
            summary.failed += 1
            Diagnostics.warning("logo of \(code) (\(url)): \(error)")
        }
        return summary
    }
}

struct LogoSummary: Sendable, Codable {
    var saved = 0
    var fromCache = 0
    /// Cached logos the server confirmed with 304 Not Modified.
    var revalidated = 0
    var failed = 0
    var bytes = 0

    mutating func count(_ logo: Logo, bytes: Int) {
        saved += 1
        self.bytes += bytes
        if logo.source == .disk || logo.source == .memory { fromCache += 1 }
        if logo.source == .revalidated { revalidated += 1 }
    }

    mutating func add(_ other: LogoSummary) {
        saved += other.saved
        fromCache += other.fromCache
        revalidated += other.revalidated
        failed += other.failed
        bytes += other.bytes
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
    /// The page error that stopped the run, reported after the summary.
    var failure: (any Error)?

    /// The whole fault, when a SOAP fault stopped the run.
    var fault: FaultSummary?
    /// Record warnings by kind, every one counted.
    var warnings: [String: Int] = [:]
    /// Hotels whose logo this run has saved (or tried to).
    var logosTried: Set<String> = []

    private enum CodingKeys: String, CodingKey {
        case pages, hotels, fetched, cached, merge, end, logos, seconds, out, error, fault, offline, warnings
    }

    init(out: String) {
        self.out = out
    }

    /// Counts a fetched page, and saves its logos: page by page, so no
    /// image accumulates, whatever the length of the list.
    mutating func received(_ page: FetchedPage, progress: ProgressLine, logos: LogoSaver?) async {
        pages += 1
        fetched += page.hotels.count
        warnings.merge(page.warningsByKind, uniquingKeysWith: +)
        progress.advance(by: page.hotels.count)
        if let logos { await save(page.hotels, logos: logos) }
    }

    /// Saves the logos of `hotels` not tried yet in this run: at the end, the
    /// rows a resumed run took from the store rather than the network, whose
    /// logos an earlier run may not have saved (it failed, or was killed).
    mutating func save(_ hotels: [Hotel], logos: LogoSaver) async {
        let untried = hotels.filter { logosTried.insert($0.code).inserted }
        guard !untried.isEmpty else { return }
        self.logos.add(await logos.save(untried))
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
