import ArgumentParser
import Foundation
import Hotels
import Imaging
import SOAP
import Synchronization

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Page through a hotel list from a SOAP service, with logos.",
        discussion: """
        Writes DIR/hotels.jsonl page by page (the keys of hotels parse) and, with --logos, \
        DIR/logos/. Stops at the end of the list, a repeated cursor, an empty page or \
        --max-pages; never asks for a page twice. An error on a later page keeps the pages \
        before it. Exit 69 when the service cannot be reached, 76 for a SOAP fault.
        """
    )

    @Option(help: "A built-in profile or a profile file.") var profile = "sample"
    @Option(help: "The service's SOAP endpoint URL.") var endpoint: String
    @Option(help: "The city to list.") var city: String
    @Option(help: "A keyword, for profiles whose body uses {keyword}.") var keyword: String?
    @Option(help: "Hotels per page.") var pageSize = 50
    @Option(help: "Stop after this many pages.") var maxPages: Int?
    @Flag(help: "Download each hotel's logo.") var logos = false
    @Option(help: "Filter chain for logos, e.g. resize:64x64:fill,round:8 (saved as PNG).") var filter = ""
    @Option(help: "Logo downloads at once.") var concurrency = 6
    @Option(help: "Output folder.") var out = "hotels-out"
    @Option(help: "Disk cache folder for logos (default $XDG_CACHE_HOME/hotelkit/images).") var cache: String?
    @Flag(help: "Do not verify TLS certificates (unsafe).") var insecure = false
    @Flag(help: "Print the summary as JSON.") var json = false
    @OptionGroup var limits: XMLLimitOptions

    func validate() throws {
        guard pageSize > 0, concurrency > 0 else { throw ValidationError("--page-size and --concurrency must be at least 1") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
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
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let listFile = folder.appendingPathComponent("hotels.jsonl")
        _ = FileManager.default.createFile(atPath: listFile.path, contents: nil)
        let list = try FileHandle(forWritingTo: listFile)
        defer { try? list.close() }

        var diskCache: DiskImageCache?
        if logos {
            do {
                diskCache = try DiskImageCache(directory: cache.map { URL(fileURLWithPath: $0) } ?? DiskImageCache.defaultDirectory)
            } catch {
                Diagnostics.warning("logo cache unavailable, going on without it: \(error)")
            }
        }
        var pager = Pager(paging: profile.paging, pageSize: pageSize)
        var hotelCount = 0
        var logoSummary = LogoSummary()
        var pageFailure: (any Error)?
        let progress = ProgressLine(total: 0, label: "hotels", quiet: json)
        while let parameters = pager.nextRequest(city: city, keyword: keyword) {
            do {
                let number = pager.pagesRequested + 1
                let page = try await client.fetchPage(parameters) { attempt, error in
                    Diagnostics.warning("page \(number): \(error); retry \(attempt) of 3")
                }
                var lines: [UInt8] = []
                page.hotels.forEach { HotelJSONLines.append($0, to: &lines) }
                try list.write(contentsOf: Data(lines))
                page.warnings.forEach { Diagnostics.warning("page \(number): \($0)") }
                hotelCount += page.hotels.count
                pager.received(page, maxPages: maxPages)
                progress.advance(by: page.hotels.count)
                // Logos page by page: nothing accumulates, whatever the length of the list.
                if logos {
                    logoSummary.add(await downloadLogos(page.hotels, client: client, chain: chain, cache: diskCache,
                                                        folder: folder.appendingPathComponent("logos")))
                }
            } catch {
                pageFailure = error
                break
            }
        }
        progress.finish()
        let summary = FetchSummary(
            pages: pager.pagesRequested, hotels: hotelCount, end: pager.end?.rawValue,
            logos: logoSummary, seconds: Date().timeIntervalSince(started), out: folder.path,
            error: pageFailure.map { String(describing: $0) }
        )
        summary.print(json: json)
        if let pageFailure {
            throw Diagnostics.report(pageFailure, context: "page \(pager.pagesRequested + 1) of \(endpoint)").code
        }
    }

    private func downloadLogos(_ hotels: [Hotel], client: HotelServiceClient, chain: FilterChain, cache diskCache: DiskImageCache?,
                               folder: URL) async -> LogoSummary {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pipeline = ImagePipeline(filter: chain)
        let work = hotels.compactMap { hotel in hotel.logoURL.map { (hotel.code, $0) } }
        let summary = LogoTally()
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < work.count else { return }
                let (code, url) = work[next]
                next += 1
                group.addTask {
                    do {
                        let key = DiskImageCache.key(url: url, filter: chain)
                        var bytes = diskCache?.data(for: key)
                        let cached = bytes != nil
                        if bytes == nil {
                            let (head, body) = try await client.download(url)
                            guard head.status == 200 else { throw TransportError.httpStatus(head.status, snippet: "") }
                            bytes = chain.filters.isEmpty ? body : try pipeline.process(body).encoded
                            try? diskCache?.store(bytes ?? [], for: key, metadata: CachedImageMetadata(
                                url: url, etag: head.headers["etag"], lastModified: head.headers["last-modified"]))
                        }
                        let ext = chain.filters.isEmpty ? ((try? ImageFormat.detect(bytes ?? [])) == .jpeg ? "jpg" : "png") : "png"
                        try Data(bytes ?? []).write(to: folder.appendingPathComponent("\(code).\(ext)"), options: .atomic)
                        summary.state.withLock {
                            $0.saved += 1
                            $0.bytes += bytes?.count ?? 0
                            if cached { $0.fromCache += 1 }
                        }
                    } catch {
                        summary.state.withLock { $0.failed += 1 }
                        Diagnostics.warning("logo of \(code) (\(url)): \(error)")
                    }
                }
            }
            for _ in 0..<concurrency { startNext() }
            while await group.next() != nil { startNext() }
        }
        return summary.state.withLock { $0 }
    }
}

/// Counts shared by the download tasks.
final class LogoTally: Sendable {
    let state = Mutex(LogoSummary())
}

struct LogoSummary: Sendable, Codable {
    var saved = 0
    var fromCache = 0
    var failed = 0
    var bytes = 0

    mutating func add(_ other: LogoSummary) {
        saved += other.saved
        fromCache += other.fromCache
        failed += other.failed
        bytes += other.bytes
    }
}

/// The one-line summary of a fetch, or its JSON.
struct FetchSummary: Codable {
    var pages: Int
    var hotels: Int
    var end: String?
    var logos: LogoSummary
    var seconds: Double
    var out: String
    var error: String?

    func print(json: Bool) {
        let text: String
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            text = String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
        } else {
            let rate = seconds > 0 ? Double(hotels) / seconds : 0
            text = "fetched \(hotels) hotels in \(pages) pages (\(String(format: "%.0f", rate))/s, end: \(end ?? "error"))"
                + (logos.saved + logos.failed > 0 ? ", \(logos.saved) logos (\(logos.fromCache) cached, \(logos.failed) failed)" : "")
                + " into \(out)"
        }
        writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }
}
