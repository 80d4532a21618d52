import ArgumentParser
import Browsing
import Console
import Failures
import Fetching
import Imaging
import Logging
import Runtime

struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Scroll a hotel list in the terminal, with logos drawn inline for the rows on screen.",
        discussion: """
            The tutorials' table view: cached rows show at once and page 1 merges in as it arrives; \
            "load more" runs at 90% of the loaded rows. Logos load only for the rows on screen: \
            a held key, the wheel or a scrollbar drag counts as dragging, and nothing starts until \
            the list settles; rows that leave are cancelled. Offline, a banner shows over the \
            cached rows and the service is asked again now and then.

            Keys: ↑/↓ or j/k a row, PgUp/PgDn (b/space) a screen, Home/End (g/G), / to search the \
            loaded rows (Enter jumps, n to the next match, Esc cancels), ? shows the keys, Ctrl-L redraws, q quits. \
            Mouse: the wheel, and dragging the scrollbar on the right.

            Logos are drawn with libchafa: kitty, sixel or iTerm2 graphics where the terminal has \
            them (detected from TERM, TERM_PROGRAM, KITTY_WINDOW_ID and a device-attributes query), \
            else Unicode symbols in truecolor or 256 colours; under tmux, symbols. Needs a terminal \
            (exit 64 without one: use hotels fetch).
            """
    )

    @OptionGroup var service: ServiceOptions
    @Option(help: "The city to list.") var city: String
    @OptionGroup var query: QueryOptions
    @OptionGroup var cacheOptions: CacheOptions
    @Flag(help: "Show the cache only; do not touch the network.") var offline = false
    @Option(help: "auto, kitty, sixel, iterm, symbols or none.") var graphics = "auto"
    @Option(help: "Filter chain for logos before they are drawn.") var filter = "resize:64x64:fit"
    @Option(help: "Logo downloads at once.") var concurrency = 4
    @Option(help: "Milliseconds without movement after which the list has settled and the visible rows load.") var settleMs = 300
    @Option(help: "Seconds to wait, offline, before asking the service again (doubled each time, up to 8 times).") var offlineRetry = 10
    @Option(help: "A JSON file of credentials for the profile's {env:NAME} placeholders (mode 600).") var credentials: String?

    func validate() throws {
        guard concurrency > 0, (1...60_000).contains(settleMs), (1...3600).contains(offlineRetry) else {
            throw ValidationError("--concurrency must be at least 1, --settle-ms 1 to 60000, --offline-retry 1 to 3600")
        }
        guard graphics == "auto" || GraphicsMode(rawValue: graphics) != nil else {
            throw ValidationError("--graphics must be auto, kitty, sixel, iterm, symbols or none, not “\(graphics)”")
        }
    }

    func run() async throws {
        let chain = try reported("--filter") { try FilterChain(parsing: filter) }
        let profile = try service.loadProfile()
        let runtime = try await cacheOptions.runtime { configuration in
            try configuration.read(credentials: credentials, context: "--profile \(service.profile)")
            configuration.logger = browseLogger
            configuration.logoConcurrency = concurrency
        }
        let client = try await runtime.client(profile, endpoint: service.endpoint, named: service.profile)
        var configuration = BrowseConfiguration(
            runtime: runtime, client: client, city: city, keyword: query.keyword, area: try query.area(),
            pageSize: query.pageSize, filter: chain)
        configuration.offline = offline
        configuration.concurrency = concurrency
        configuration.graphics = GraphicsMode(rawValue: graphics)
        configuration.settleDelay = .milliseconds(settleMs)
        configuration.offlineRetry = .seconds(offlineRetry)
        try await runBrowse(configuration)
    }
}

/// The runtime's logger while the view owns the screen: a log line on stderr
/// would land in the middle of a frame. The view shows what matters itself
/// (the offline banner, a failed list).
let browseLogger = Logger(label: "hotelkit.browse") { _ in SwiftLogNoOpLogHandler() }

/// Runs the view for `browse` and `demo --browse`: 64 without a terminal;
/// the terminal is restored however the view ends; a signal's exit status is 128 + its number.
func runBrowse(
    _ configuration: BrowseConfiguration,
    withoutTerminal hint: String = "to fetch a list without one, use hotels fetch --endpoint URL --city CITY (it writes hotels.jsonl)"
) async throws {
    let session = BrowseSession(configuration: configuration)
    let end: BrowseEnd
    do {
        end = try await session.run()
    } catch {
        await configuration.runtime.close()
        Diagnostics.error("hotels browse needs a terminal: \(error)", hint: hint)
        throw ExitStatus.usage.code
    }
    // A stateful service's sessions end with the view.
    await configuration.runtime.close()
    if case .signal(let signal) = end { throw ExitCode(128 + signal) }
    if let error = session.lastError { throw Diagnostics.report(error, context: "browse").code }
}
