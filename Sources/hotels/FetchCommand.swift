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
        refuses the credentials, 78 when the profile's credentials are not set. With several \
        --city, each list goes into OUT/CITY, --parallel at once, sharing the profile's sessions; \
        every list runs to its end, and the exit code is the first failed list's.

        Credentials: the profile's {env:NAME} placeholders are read from the environment, or \
        from --credentials FILE (a JSON object of strings, readable by its owner only). They \
        never appear in any output. Sessions are logged out when the fetch ends, fails or is \
        interrupted (Ctrl-C).
        """
    )

    @Option(help: "A built-in profile or a profile file.") var profile = "sample"
    @Option(help: "The service's SOAP endpoint URL.") var endpoint: String
    @Option(name: .customLong("city"), help: "The city to list; repeat it for several lists (each into OUT/CITY).")
    var cities: [String]
    @Option(help: "A keyword, for profiles whose body uses {keyword}.") var keyword: String?
    @Option(help: "Hotels per page.") var pageSize = 50
    @Option(help: "Fetch at most this many pages in this run.") var maxPages: Int?
    @Flag(help: "Download each hotel's logo.") var logos = false
    @Option(help: "Filter chain for logos, e.g. resize:64x64:fill,round:8 (saved as PNG).") var filter = ""
    @Option(help: "Logo downloads at once.") var concurrency = 6
    @Option(help: "Lists fetched at once, with several --city. They share the profile's sessions (session.pool).")
    var parallel = 4
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
        guard pageSize > 0, concurrency > 0, parallel > 0 else {
            throw ValidationError("--page-size, --concurrency and --parallel must be at least 1")
        }
        if let twice = cities.first(where: { city in cities.filter { $0 == city }.count > 1 }) {
            throw ValidationError("--city \(twice) is given twice")
        }
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
        if let code = interruption.exitCode {
            Diagnostics.note("interrupted: the pages fetched so far are stored, and every session was logged out")
            throw code
        }
        switch outcome {
        case .success: break
        case .failure(let error as ExitCode): throw error
        case .failure(let error): throw Diagnostics.report(error, context: "fetch").code
        }
    }

    /// One list into `--out`, or each city's into `--out/CITY`, `--parallel`
    /// at once; the first failing list's exit code, in the order given.
    private func fetch(client: HotelClient, http: HTTPTransport, chain: FilterChain) async throws {
        let store = try cacheOptions.folder.openStore()
        let lists = ListFetch(client: client, store: store, keyword: keyword, options: ListSync.Options(
            pageSize: pageSize, maxPages: maxPages, cacheFirst: !refresh || offline, cacheOnly: offline,
            servesCacheWhenOffline: !requireFresh, readAhead: true),
            logos: logos ? LogoPipeline(configuration: .init(
                transport: HTTPLogoTransport(client: http), filter: chain, diskCache: cacheOptions.folder.openImages(),
                index: store, downloadConcurrency: concurrency)) : nil,
            progress: ProgressLine(total: 0, label: "hotels", quiet: json), json: json, labelled: cities.count > 1)
        let root = URL(fileURLWithPath: out)
        guard cities.count > 1 else { return try await lists.fetch(city: cities[0], into: root) }
        let codes = await withTaskGroup(of: (Int, ExitCode?).self) { group in
            var codes = [ExitCode?](repeating: nil, count: cities.count)
            var next = 0
            func start(_ group: inout TaskGroup<(Int, ExitCode?)>) {
                let (index, city) = (next, cities[next])
                next += 1
                group.addTask { (index, await lists.exitCode(city: city, into: root.appendingPathComponent(SafeFileName.base(for: city)))) }
            }
            while next < min(parallel, cities.count) { start(&group) }
            for await (index, code) in group {
                codes[index] = code
                if next < cities.count { start(&group) }
            }
            return codes
        }
        if let failed = codes.compactMap({ $0 }).first { throw failed }
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

    /// The file name of `code`'s logo (see ``SafeFileName``).
    static func fileName(for code: String, ext: String) -> String {
        SafeFileName.base(for: code) + "." + ext
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
    var city: String
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
        case city, pages, hotels, fetched, cached, merge, end, logos, seconds, out, error, fault, offline, warnings
    }

    init(out: String, city: String) {
        self.out = out
        self.city = city
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

    /// One line, or one JSON object; `label` (the city, when a fetch has several lists) leads the line.
    func print(json: Bool, label: String = "") {
        let text: String
        if json {
            text = jsonLine(self)
        } else if let offline {
            text = label + offline + " into \(out)" + (logos.saved + logos.failed > 0 ? ", \(logos.saved) logos from the cache" : "")
        } else {
            let rate = seconds > 0 ? Double(fetched) / seconds : 0
            let merged = merge.map { ", merged: \($0.inserted) new, \($0.updated) updated, \($0.moved) moved" + ($0.replaced ? ", list replaced" : "") } ?? ""
            text = label + "fetched \(fetched) hotels in \(pages) pages (\(String(format: "%.0f", rate))/s, end: \(end ?? "error"))\(merged); \(hotels) in the list"
                + (logos.saved + logos.failed > 0
                    ? ", \(logos.saved) logos (\(logos.fromCache) cached, \(logos.revalidated) revalidated, \(logos.failed) failed)" : "")
                + " into \(out)"
        }
        writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }
}
