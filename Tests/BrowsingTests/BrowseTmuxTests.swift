import Foundation
import TestSupport
import Testing

/// `hotels browse` in a real terminal: tmux, headless, 100×30, against
/// `hotels serve` with latency. Keys go in with send-keys; what the view
/// shows comes from capture-pane, and what it asked for from the server's
/// own request log.
@Suite("hotels browse in tmux", .serialized)
struct BrowseTmuxTests {
    /// 30 lines: the title, 9 hotels of 3 lines, the status line, one spare.
    static let visibleHotels = 9

    struct Request {
        var path: String
        var arrived: Int?
        var hungUp: Bool
        var status: Int
        var page: String?
    }

    static func requests(_ log: String) throws -> [Request] {
        try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Request(
                path: json["path"] as? String ?? "", arrived: json["arrived"] as? Int, hungUp: json["hungUp"] as? Bool ?? false,
                status: json["status"] as? Int ?? 0, page: json["page"] as? String)
        }
    }

    /// The cached list, in order: what the view showed, row for row.
    static func cachedHotels(cache: String) async throws -> [(code: String, name: String, logo: String, badge: String)] {
        let list = try await HotelsProcess.run(["list", "--city", "Shanghai", "--cache", cache])
        #expect(list.status == 0, "\(list.stderr)")
        return list.stdout.split(separator: "\n").compactMap { line in
            guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let code = json["code"] as? String, let name = json["name"] as? String
            else { return nil }
            // The chain and rating as the row shows them where the width leaves room: `MC ★4.5`.
            let badge = [json["chainCode"] as? String, (json["rating"] as? Double).map { "★" + String(format: "%g", $0) }]
                .compactMap { $0 }.joined(separator: " ")
            return (code, name, (json["logoURL"] as? String).flatMap { URL(string: $0)?.path } ?? "", badge)
        }
    }

    static func now() -> Int { Int((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Every visible row shows its logo (no placeholder ░ is left), nothing
    /// is queued or in flight, and a p90 is known.
    static func settled(_ screen: String) -> Bool {
        !screen.contains("░") && screen.contains("0 queued, 0 in flight")
            && screen.range(of: #"p90 settle→drawn \d+ ms"#, options: .regularExpression) != nil
    }

    static func number(before label: String, in screen: String) -> Int? {
        screen.range(of: #"\d+ "# + label, options: .regularExpression).flatMap { Int(screen[$0].split(separator: " ")[0]) }
    }

    static func browseCommand(_ endpoint: String, cache: String, _ extra: String = "") -> String {
        "\(HotelsProcess.executable.path) browse --endpoint \(endpoint) --city Shanghai --cache \(cache) \(extra)"
    }

    /// A pane running `hotels browse` on Shanghai against a new `hotels serve
    /// SERVE…`, with a cache of its own, once its first window has settled.
    static func browsing(serve: [String] = [], _ extra: String = "") async throws -> (pane: TmuxPane, cache: String, server: ServeProcess) {
        let pane = try await TmuxPane()
        let cache = pane.folder.appendingPathComponent("cache").path
        let server = try await ServeProcess(serve)
        try await pane.run(browseCommand(server.endpoint, cache: cache, extra))
        _ = try await pane.waitFor("a settled list") { settled($0) }
        return (pane, cache, server)
    }

    @Test("The visible rows' names and the status line show; every visible logo is drawn; q leaves a clean shell")
    func showsTheListAndQuitsCleanly() async throws {
        let (pane, cache, server) = try await Self.browsing(serve: ["--latency", "150"])
        let screen = try await pane.screen()
        #expect(screen.contains("hotels browse: Shanghai"))
        #expect(screen.contains("50 hotels, more to load"))
        #expect(Self.number(before: "failed", in: screen) == 0)

        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 3 }
        #expect(try await pane.checkRestored() == [])
        let hotels = try await Self.cachedHotels(cache: cache)
        #expect(hotels.count == 50)
        for hotel in hotels.prefix(Self.visibleHotels) {
            #expect(screen.contains(hotel.name), "\(hotel.name) is not on the screen")
        }
        // At 100 columns each row's detail line has room for its chain and rating, after the day it was added.
        let lines = screen.split(separator: "\n")
        for hotel in hotels.prefix(Self.visibleHotels) where !hotel.badge.isEmpty {
            #expect(lines.contains { $0.contains(" · \(hotel.badge)") }, "\(hotel.badge) of \(hotel.name) is not on the screen")
        }
        #expect(hotels.prefix(Self.visibleHotels).contains { !$0.badge.isEmpty }, "the sample sends chains and ratings")
        #expect(!screen.contains(hotels[Self.visibleHotels].name), "a row below the window is drawn")
        withExtendedLifetime(server) {}
    }

    @Test("A held key loads nothing; after the settle every visible row's logo is asked for; each page is asked for once")
    func heldKeyLoadsNothingUntilItSettles() async throws {
        let pane = try await TmuxPane()
        let cache = pane.folder.appendingPathComponent("cache").path
        let log = pane.folder.appendingPathComponent("requests.jsonl").path
        let server = try await ServeProcess(["--latency", "200", "--log", log])
        // A long settle, so a slow machine's pause between two repeats (a sanitized build: seconds) is not taken for the key's release.
        try await pane.run(Self.browseCommand(server.endpoint, cache: cache, "--settle-ms 5000"))
        _ = try await pane.waitFor("a settled list") { Self.settled($0) }

        // A held ↓: repeats every 40 ms, as a keyboard's autorepeat sends them.
        let pressed = Self.now()
        var presses: [Int] = []
        for _ in 0..<24 {
            presses.append(Self.now())
            try await pane.press("Down")
            try await Task.sleep(for: .milliseconds(40))
        }
        let released = Self.now()
        // A machine loaded so much that this test paused for the settle time between two repeats has let the key go.
        let letGo = zip(presses, presses.dropFirst()).contains { $1 - $0 >= 5000 }
        let hotels = try await Self.cachedHotels(cache: cache)
        let screen = try await pane.waitFor("the window at row 24, settled") { screen in
            Self.settled(screen) && screen.contains(hotels[24].name) && !screen.contains(hotels[23].name)
        }
        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 3 }

        let requests = try Self.requests(log)
        let logos = requests.filter { $0.path.hasPrefix("/logos/") }
        let duringTheHold = logos.filter { ($0.arrived ?? 0) > pressed && ($0.arrived ?? 0) < released + 500 }
        let gaps = zip(presses, presses.dropFirst()).map { $1 - $0 }
        #expect(
            letGo || duringTheHold.isEmpty,
            "logo requests while the key was held: \(duringTheHold.map(\.path)); repeats sent \(gaps) ms apart")
        for hotel in hotels[24..<24 + Self.visibleHotels] {
            #expect(screen.contains(hotel.name))
            #expect(
                logos.contains { $0.path == hotel.logo && $0.status == 200 && ($0.arrived ?? 0) >= released },
                "no request for \(hotel.logo) after the settle (released at \(released)): \(logos.filter { $0.path == hotel.logo })")
        }
        let pages = requests.compactMap(\.page)
        #expect(!pages.isEmpty && Set(pages).count == pages.count, "pages asked for twice: \(pages)")
        withExtendedLifetime(server) {}
    }

    @Test("Rows that leave are cancelled: the server sees each cancelled transfer hang up, as many as the status line counts")
    func cancelledTransfersHangUp() async throws {
        let pane = try await TmuxPane()
        let cache = pane.folder.appendingPathComponent("cache").path
        let log = pane.folder.appendingPathComponent("requests.jsonl").path
        let server = try await ServeProcess(["--latency", "2500", "--log", log])
        try await pane.run(Self.browseCommand(server.endpoint, cache: cache))
        _ = try await pane.waitFor("four logos in flight") { $0.contains("4 in flight") }
        // Both in one write: two presses a loaded machine held apart past the settle would load the page between, and cut that too.
        try await pane.press("PageDown", "PageDown")
        let screen = try await pane.waitFor("a settled list after two pages down") { Self.settled($0) && $0.contains("cancelled") }
        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 3 }

        let cancelled = try #require(Self.number(before: "cancelled", in: screen))
        #expect(cancelled >= 1)
        let hungUp = try Self.requests(log).filter { $0.path.hasPrefix("/logos/") && $0.hungUp }
        #expect(hungUp.count == cancelled, "\(hungUp.map(\.path))")
        let hotels = try await Self.cachedHotels(cache: cache)
        let firstWindow = Set(hotels.prefix(Self.visibleHotels).map(\.logo))
        #expect(hungUp.allSatisfy { firstWindow.contains($0.path) }, "only the first window's transfers were cut")
        withExtendedLifetime(server) {}
    }

    @Test(
        "The mouse: each wheel turn moves a row; the scrollbar dragged to the bottom shows the last rows, loads them on release, and loads more"
    )
    func mouse() async throws {
        let pane = try await TmuxPane()
        let cache = pane.folder.appendingPathComponent("cache").path
        let log = pane.folder.appendingPathComponent("requests.jsonl").path
        let server = try await ServeProcess(["--latency", "100", "--log", log])
        try await pane.run(Self.browseCommand(server.endpoint, cache: cache))
        _ = try await pane.waitFor("a settled list") { Self.settled($0) }
        let hotels = try await Self.cachedHotels(cache: cache)

        // SGR mouse reports, as a terminal sends them (1-based column;row): five turns down.
        for _ in 0..<5 { try await pane.tmux(["send-keys", "-t", "test", "-H"] + Self.hex("\u{1B}[<65;20;10M")) }
        _ = try await pane.waitFor("the window five rows down, settled") { screen in
            Self.settled(screen) && screen.contains(hotels[5].name) && !screen.contains(hotels[4].name)
        }

        // Press on the scrollbar (column 100), drag to its bottom (row 28), let go.
        try await pane.tmux(["send-keys", "-t", "test", "-H"] + Self.hex("\u{1B}[<0;100;2M"))
        try await pane.tmux(["send-keys", "-t", "test", "-H"] + Self.hex("\u{1B}[<32;100;15M"))
        try await pane.tmux(["send-keys", "-t", "test", "-H"] + Self.hex("\u{1B}[<32;100;28M"))
        let pressed = Self.now()
        try await Task.sleep(for: .milliseconds(600))
        // Before the release is sent: the view may see it, and ask for logos, before send-keys returns.
        let released = Self.now()
        try await pane.tmux(["send-keys", "-t", "test", "-H"] + Self.hex("\u{1B}[<0;100;28m"))
        let bottom = try await pane.waitFor("the last rows, settled, and page 2") { screen in
            Self.settled(screen) && screen.contains(hotels[49].name) && screen.contains("100 hotels")
        }
        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 3 }
        #expect(bottom.contains(hotels[41].name))
        let logos = try Self.requests(log).filter { $0.path.hasPrefix("/logos/") }
        #expect(
            !logos.contains { ($0.arrived ?? 0) > pressed + 100 && ($0.arrived ?? 0) < released },
            "a logo asked for while the scrollbar was held")
        for hotel in hotels[41..<50] {
            #expect(
                logos.contains { $0.path == hotel.logo && ($0.arrived ?? 0) >= released }, "\(hotel.logo) not asked for after the release")
        }
        withExtendedLifetime(server) {}
    }

    static func hex(_ text: String) -> [String] {
        Array(text.utf8).map { String(format: "%02x", $0) }
    }

    @Test("Cache first: a cached list shows at once, while page 1 is still on its way; then page 1 merges in")
    func cacheFirst() async throws {
        let (pane, cache, server) = try await Self.browsing()
        var first: ServeProcess? = consume server
        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 3 }
        // The same endpoint, so the same list and logo URLs: a slow server on the first one's port.
        let port = try #require(first.flatMap { URL(string: $0.endpoint)?.port })
        first = nil

        let log = pane.folder.appendingPathComponent("requests.jsonl").path
        let slow = try await ServeProcess(["--port", String(port), "--latency", "4000", "--log", log])
        try await pane.run(Self.browseCommand(slow.endpoint, cache: cache))
        let hotels = try await Self.cachedHotels(cache: cache)
        let cached = try await pane.waitFor("the cached rows with their logos") { $0.contains(hotels[0].name) && !$0.contains("░") }
        #expect(cached.contains("loading more"), "page 1 is on its way while the cached rows show")
        #expect(Self.number(before: "cache hits", in: cached) == Self.visibleHotels, "every visible logo from the cache")
        #expect(try Self.requests(log).allSatisfy { $0.page == nil }, "no page had come back when the cached rows showed")
        _ = try await pane.waitFor("page 1 merged and settled") { !$0.contains("loading more") && Self.settled($0) }
        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 4 }
        #expect(try Self.requests(log).compactMap(\.page).count == 1, "page 1, once")
        withExtendedLifetime(slow) {}
    }

    @Test("With the server stopped, the cached rows show under the offline banner; when it is back, the view finds it")
    func offlineBannerAndBack() async throws {
        let pane = try await TmuxPane()
        let cache = pane.folder.appendingPathComponent("cache").path
        var server: ServeProcess? = try await ServeProcess()
        let endpoint = try #require(server?.endpoint)
        try await pane.run(Self.browseCommand(endpoint, cache: cache))
        _ = try await pane.waitFor("a settled list") { Self.settled($0) }
        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 3 }
        server = nil

        try await pane.run(Self.browseCommand(endpoint, cache: cache, "--offline-retry 1"))
        let offline = try await pane.waitFor("the offline banner") { $0.contains("offline: showing 50 hotels for Shanghai cached") }
        let hotels = try await Self.cachedHotels(cache: cache)
        for hotel in hotels.prefix(Self.visibleHotels) { #expect(offline.contains(hotel.name)) }

        // The service comes back on the same port: the banner goes at the next try.
        let port = try #require(URL(string: endpoint)?.port)
        server = try await ServeProcess(["--port", String(port)])
        _ = try await pane.waitFor("the banner gone", timeout: .seconds(90)) { !$0.contains("offline:") && Self.settled($0) }
        try await pane.press("q")
        _ = try await pane.waitFor("the prompt after q") { $0.components(separatedBy: TmuxPane.prompt).count >= 4 }
        #expect(try await pane.checkRestored() == [])
        withExtendedLifetime(server) {}
    }

    @Test("SIGTERM restores the terminal and exits 143; Ctrl-Z gives the shell back clean, and fg redraws the view")
    func signalsRestoreTheTerminal() async throws {
        let (pane, _, server) = try await Self.browsing()
        try await pane.press("C-z")
        _ = try await pane.waitFor("the shell after Ctrl-Z") { $0.contains("Stopped") }
        #expect(try await pane.checkRestored() == [])
        try await pane.run("fg")
        _ = try await pane.waitFor("the view again") { $0.contains("hotels browse: Shanghai") && Self.settled($0) }
        #expect(try await pane.format("#{alternate_on}") == "1")

        let browse = try #require(try await pane.foregroundProcess())
        kill(browse, SIGTERM)
        // A prompt after the line of `fg`: the prompts before it show as soon as the view leaves the alternate screen,
        // before the shell has the terminal back (keys typed then went to the view; it failed so once under ThreadSanitizer).
        _ = try await pane.waitFor("the prompt after SIGTERM") { screen in
            let afterFg = screen.components(separatedBy: "\(TmuxPane.prompt) fg")
            return !screen.contains("hotels browse: Shanghai") && afterFg.count >= 2 && afterFg.last?.contains(TmuxPane.prompt) == true
        }
        try await pane.run("echo status=$?")
        _ = try await pane.waitFor("the exit status") { $0.contains("status=143") }
        #expect(try await pane.checkRestored() == [])
        withExtendedLifetime(server) {}
    }

    @Test(
        "A terminal too small for one row says so; grown again, the rows come back; / finds a loaded hotel; ? shows the keys until a key is pressed"
    )
    func resizeAndSearch() async throws {
        let (pane, cache, server) = try await Self.browsing()
        let hotels = try await Self.cachedHotels(cache: cache)
        try await pane.resize(columns: 24, rows: 4)
        _ = try await pane.waitFor("the too-small notice") { $0.contains("too small") }
        try await pane.resize(columns: 100, rows: 30)
        _ = try await pane.waitFor("the rows again") { $0.contains(hotels[0].name) && Self.settled($0) }

        let wanted = hotels[37]
        try await pane.press("/")
        try await pane.tmux(["send-keys", "-t", "test", "-l", wanted.name])
        try await pane.press("Enter")
        let found = try await pane.waitFor("the match at the top") { screen in
            screen.split(separator: "\n").dropFirst().first?.contains(wanted.name) == true
        }
        #expect(!found.contains(hotels[0].name))
        // ? shows the keys; any key takes them away, and q then quits.
        try await pane.press("?")
        _ = try await pane.waitFor("the keys") { $0.contains("search the loaded rows") && !$0.contains(wanted.name) }
        try await pane.press("j")
        _ = try await pane.waitFor("the rows after the help") { !$0.contains("search the loaded rows") && $0.contains(wanted.name) }
        try await pane.press("q")
        withExtendedLifetime(server) {}
    }

    @Test("hotels demo --browse opens the view on the sample service instead of the simulation; q ends the demo with 0")
    func demoBrowses() async throws {
        let pane = try await TmuxPane()
        try await pane.run("\(HotelsProcess.executable.path) demo --browse --latency 50 --out \(pane.folder.path)/demo; echo status=$?")
        let screen = try await pane.waitFor("the demo's view") { $0.contains("hotels demo: Shanghai") && Self.settled($0) }
        #expect(screen.contains("50 hotels"))
        try await pane.press("q")
        _ = try await pane.waitFor("the demo's end") { $0.contains("status=0") }
        #expect(try await pane.checkRestored() == [])
    }

    @Test("Without a terminal, browse exits 64 and points to hotels fetch; demo --browse to the simulation")
    func refusesWithoutATerminal() async throws {
        let result = try await HotelsProcess.run(["browse", "--endpoint", "http://127.0.0.1:9/soap", "--city", "Shanghai"], stdin: Data())
        #expect(result.status == 64)
        #expect(result.stderr.contains("hotels fetch"), "\(result.stderr)")
        let demo = try await HotelsProcess.run(
            [
                "demo", "--browse", "--latency", "0", "--out",
                FileManager.default.temporaryDirectory
                    .appendingPathComponent("demo-\(UUID().uuidString)").path,
            ], stdin: Data())
        #expect(demo.status == 64)
        #expect(demo.stderr.contains("leave out --browse"), "\(demo.stderr)")
    }
}
