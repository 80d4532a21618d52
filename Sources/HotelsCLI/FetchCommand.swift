import ArgumentParser
import Console
import Fetching
import Foundation
import Hotels
import Imaging
import OfflineStore
import Runtime

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

    @OptionGroup var service: ServiceOptions
    @Option(name: .customLong("city"), help: "The city to list; repeat it for several lists (each into OUT/CITY).")
    var cities: [String]
    @OptionGroup var query: QueryOptions
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
        guard concurrency > 0, parallel > 0 else {
            throw ValidationError("--concurrency and --parallel must be at least 1")
        }
        if let twice = cities.first(where: { city in cities.filter { $0 == city }.count > 1 }) {
            throw ValidationError("--city \(twice) is given twice")
        }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        guard !(offline && refresh) else { throw ValidationError("--offline and --refresh contradict each other") }
    }

    func run() async throws {
        let profile = try service.loadProfile()
        let chain = try reported("--filter") { try FilterChain(parsing: filter) }
        if insecure {
            Diagnostics.warning("--insecure: TLS certificates are NOT verified; anyone on the path can read and change the traffic")
        }
        let runtime = try await cacheOptions.runtime { configuration in
            try configuration.read(credentials: credentials, dump: dump, context: "--profile \(service.profile)")
            configuration.transport.verifyTLS = !insecure
            configuration.limits = limits.limits
            configuration.warningsPerKind = warningOptions.perKind
            configuration.logoConcurrency = concurrency
        }
        let client = try await runtime.client(profile, endpoint: service.endpoint, named: service.profile)
        try await interruptible(
            closing: runtime, context: "fetch",
            interrupted: "interrupted: the pages fetched so far are stored, and every session was logged out"
        ) {
            try await fetch(runtime: runtime, client: client, chain: chain)
        }
    }

    /// One list into `--out`, or each city's into `--out/CITY`, `--parallel`
    /// at once; the first failing list's exit code, in the order given.
    private func fetch(runtime: HotelRuntime, client: HotelClient, chain: FilterChain) async throws {
        let lists = ListFetch(
            runtime: runtime, client: client, keyword: query.keyword, area: try query.area(),
            options: ListSync.Options(
                pageSize: query.pageSize, maxPages: maxPages, cacheFirst: !refresh || offline, cacheOnly: offline,
                servesCacheWhenOffline: !requireFresh, readAhead: true),
            logos: logos ? chain : nil, progress: ProgressLine(total: 0, label: "hotels", quiet: json), json: json,
            labelled: cities.count > 1)
        let root = URL(fileURLWithPath: out)
        guard cities.count > 1 else { return try await lists.fetch(city: cities[0], into: root) }
        let codes = await runtime.forEach(cities, parallel: parallel) { city in
            await lists.exitCode(city: city, into: root.appendingPathComponent(SafeFileName.base(for: city)))
        }
        if let failed = codes.compactMap({ $0 }).first { throw failed }
    }
}
