import Dispatch
import Failures
import Fetching
import Foundation
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import Runtime
import Scheduling

/// The tutorials' table view in a real terminal: the list through a list
/// job's pull face (cache first, page 1 merged in, "load more" at 90%),
/// logos through a ``/Logos/LogoPipeline`` for the visible rows only, under
/// the ``/Scheduling/VisibleWindowLoader``; keys and the mouse drive it as
/// a finger drives a table.
///
/// ```swift
/// let session = BrowseSession(configuration: BrowseConfiguration(runtime: runtime, client: client, city: "Shanghai"))
/// let end = try await session.run()   // on this process's terminal, until `q`
/// ```
///
/// The runtime's logger must not write to the terminal while the view is on
/// it: a log line lands in the middle of a frame.
// @unchecked Sendable: every mutable property is touched only on `mainQueue`
// (the loader's, the terminal's events' and the timers' queue).
public final class BrowseSession: @unchecked Sendable {
    public let configuration: BrowseConfiguration
    public let mainQueue = DispatchQueue(label: "hotelkit.browse.main")
    private let clock = WallClock()
    private let downloads: WorkQueue
    private let logos: LogoPipeline
    private var loader: VisibleWindowLoader?
    private let feed: PosixMutex<ListFeed>

    private var terminal: Terminal?
    private var painter = LogoPainter(support: GraphicsSupport(mode: .symbols, colors: .indexed256, reason: "not yet detected"))
    private var renderer = FrameRenderer()
    private var status = BrowseStatus()
    private var hotels: [String: Hotel] = [:]
    /// Decoded logos of the rows on screen, and their paintings, by hotel code.
    private var images: [String: RGBAImage] = [:]
    private var paintings: [String: Painting] = [:]
    private var dragging = false
    private var scrollbarHeld = false
    /// Key events in a row, with no other input between: 1 is a single press so far.
    private var keyRun = 0
    private var settleGeneration = 0
    private var drawScheduled = false
    private var offlineBanner: String?
    /// When the service is asked again: ` · retrying in 10 s`, ` · retrying now`, or nothing.
    private var retryNote = ""
    private var offlineAttempts = 0
    private var refreshPending = false
    private var search = BrowseSearch()
    /// `?`'s keys are on screen; the next key takes them away.
    private var helpShown = false
    private var notice: String?
    private var failure: (any Error)?
    private var finish: CheckedContinuation<BrowseEnd, Never>?

    public init(configuration: BrowseConfiguration) {
        self.configuration = configuration
        downloads = WorkQueue(name: "browse.logos", maxConcurrentOperationCount: configuration.concurrency, completionQueue: mainQueue)
        logos = configuration.runtime.makeLogos(filter: configuration.filter, memoryCacheLimit: configuration.memoryCacheLimit)
        feed = PosixMutex(Self.feed(configuration, cacheFirst: true))
    }

    private static func feed(_ configuration: BrowseConfiguration, cacheFirst: Bool) -> ListFeed {
        let options = ListSync.Options(
            pageSize: configuration.pageSize, cacheFirst: cacheFirst, firstPage: .refresh,
            cacheOnly: configuration.offline)
        return configuration.runtime.listJob(
            configuration.client, city: configuration.city, keyword: configuration.keyword,
            area: configuration.area, options: options
        ).feed()
    }

    /// The last error the view showed (a page that failed for good, say), for the caller's exit status.
    public var lastError: (any Error)? { mainQueue.sync { failure } }

    /// Runs the view on this process's terminal (standard input and output):
    /// raw mode and the alternate screen for as long as it runs, and the
    /// terminal as it was afterwards, however the view ends. Throws
    /// ``NotATerminal`` when either is not a TTY, before touching anything.
    public func run() async throws -> BrowseEnd {
        let terminal = try Terminal()
        try terminal.enter()
        defer { terminal.restore() }
        return await run(on: terminal)
    }

    /// Runs the view on `terminal`, which the caller has entered
    /// (``Terminal/enter()``) and restores on every way out. Returns when
    /// the user quits or a signal ends it.
    public func run(on terminal: Terminal, environment: [String: String] = ProcessInfo.processInfo.environment) async -> BrowseEnd {
        let support = GraphicsDetection.detect(
            environment: environment, terminal: terminal, override: configuration.graphics,
            tmux: { TmuxCommand.output($0) })
        let end = await withCheckedContinuation { continuation in
            mainQueue.async { [self] in
                finish = continuation
                self.terminal = terminal
                painter = LogoPainter(support: support, cellPixelSize: terminal.cellPixelSize)
                let layout = BrowseLayout(columns: terminal.size.columns, rows: terminal.size.rows, hasBanner: false, hasSearchLine: false)
                let loader = VisibleWindowLoader(
                    viewport: max(1, layout.viewport), policy: WindowPolicy(kind: .tutorial), logos: logos, downloadQueue: downloads,
                    mainQueue: mainQueue, clock: clock, requestPage: { [self] completion in requestPage(completion) },
                    observe: { [weak self] loader, at, event in self?.observe(loader, at, event) })
                self.loader = loader
                terminal.start(on: mainQueue) { [weak self] event in self?.handle(event) }
                draw()
                loader.loadFirstPage { [weak self] result in self?.firstPageShown(result) }
            }
        }
        mainQueue.sync {
            loader?.close()
            downloads.cancelAll()
            terminal.stop()
            loader = nil
        }
        return end
    }

    // MARK: The list

    private func requestPage(_ completion: @escaping @Sendable (PageResult) -> Void) {
        let current = feed.withLock { $0 }
        current.pageRequester(onPage: { [weak self] page in
            guard let self else { return }
            // Queued before the loader's own hop with the rows, so the hotels are there when the rows are.
            mainQueue.async { self.received(page) }
        })({ [weak self] result in
            if case .failed(let error) = result, let self { mainQueue.async { self.pageFailed(error) } }
            completion(result)
        })
    }

    /// A page that failed says so on the notice line; the loader asks again
    /// when the user next nears the end. One that will not mend by itself
    /// (a fault about the request, refused credentials) is the view's error.
    private func pageFailed(_ error: any Error) {
        guard loader?.rows.isEmpty == false else { return }  // page 1: the banner says it
        let meaning = ErrorMeaning(error)
        notice = "a page failed: \(error)" + (meaning.isRetryable ? "; asked again as you scroll" : "")
        if !meaning.isRetryable { failure = error }
        setNeedsDraw()
    }

    private func received(_ page: ListFeed.Page) {
        for hotel in page.hotels { hotels[hotel.code] = hotel }
        refreshPending = page.refreshFollows
        if let offline = page.offline { goOffline(offline.banner(), reason: offline.reason) }
    }

    private func firstPageShown(_ result: PageResult) {
        guard let loader else { return }
        if case .failed(let error) = result {
            // Nothing cached to stand in: the banner says why, and the view tries again later.
            goOffline("offline: nothing cached for \(configuration.city) (\(error))", reason: error)
        } else if refreshPending {
            loader.loadMore()
        }
        setNeedsDraw()
    }

    private func goOffline(_ banner: String, reason: (any Error)?) {
        offlineBanner = banner
        retryNote = ""
        // Asked for the cache alone: no retry. A fault about the request, or refused credentials, will not mend by itself: no retry either.
        guard !configuration.offline, reason.map({ ErrorMeaning($0).isRetryable }) ?? true else {
            if let reason {
                failure = reason
                offlineBanner = "cannot load \(configuration.city): \(reason)"
            }
            setNeedsDraw()
            return
        }
        let milliseconds = Self.milliseconds(configuration.offlineRetry) * (1 << min(offlineAttempts, 3))
        offlineAttempts += 1
        retryNote = " · retrying in \((milliseconds + 999) / 1000) s"
        mainQueue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self] in self?.retryService() }
        setNeedsDraw()
    }

    /// Offline once is not offline forever: a fresh feed asks for page 1, and
    /// if the service answers, its list takes the cached one's place.
    private func retryService() {
        guard loader != nil else { return }
        let fresh = Self.feed(configuration, cacheFirst: false)
        retryNote = " · retrying now"
        setNeedsDraw()
        Task { [weak self] in
            let result: Result<ListFeed.Page, any Error>
            do { result = .success(try await fresh.nextPage()) } catch { result = .failure(error) }
            guard let self else { return }
            mainQueue.async { self.retried(fresh, result) }
        }
    }

    private func retried(_ fresh: ListFeed, _ result: Result<ListFeed.Page, any Error>) {
        guard let loader else { return }
        switch result {
        case .success(let page) where page.offline == nil:
            feed.withLock { $0 = fresh }
            offlineBanner = nil
            retryNote = ""
            offlineAttempts = 0
            for hotel in page.hotels { hotels[hotel.code] = hotel }
            let rows = page.hotels.map { ListRow(code: $0.code, logoURL: $0.logoURL) }
            if loader.rows.isEmpty {
                loader.showFirstPage(rows, isLast: page.isLast)
            } else {
                loader.replaceRows(rows, isLast: page.isLast)
            }
            setNeedsDraw()
        case .success(let page):
            goOffline(page.offline?.banner() ?? "offline", reason: page.offline?.reason)
        case .failure(let error):
            goOffline(offlineBanner ?? "offline: \(error)", reason: error)
        }
    }

    // MARK: Events

    private func observe(_ loader: VisibleWindowLoader, _ at: Double, _ event: WindowEvent) {
        status.record(event, at: at, visible: loader.visibleRows, withoutLogo: loader.visibleRowsWithoutLogo)
        if case .display(let row, let image) = event, row < loader.rows.count {
            let code = loader.rows[row].code
            images[code] = image
            // The hotel's logo may have changed: paint it anew.
            paintings[code] = nil
        }
        setNeedsDraw()
    }

    private func handle(_ event: TerminalEvent) {
        switch event {
        case .input(let events):
            events.forEach(handle)
        case .resized:
            // The terminal may have cut or reflowed what it showed: draw everything.
            renderer.invalidate()
            painter = LogoPainter(support: painter.support, cellPixelSize: terminal?.cellPixelSize)
            paintings = [:]
            setNeedsDraw()
        case .resumed:
            renderer.invalidate()
            releaseScrollbar()
            setNeedsDraw()
        case .terminate(let signal):
            end(.signal(signal))
        }
    }

    private func handle(_ input: InputEvent) {
        guard let loader else { return }
        // Any input but a drag ends a scrollbar drag: its release, or whatever
        // comes after a release that was lost (let go outside the window).
        if scrollbarHeld, !isScrollbarDrag(input) { releaseScrollbar() }
        if search.typing != nil, case .key(let key) = input { return typeSearch(key) }
        if helpShown, case .key(let key) = input {
            helpShown = false
            if key == .control("c") { end(.quit) }
            return setNeedsDraw()
        }
        notice = nil
        keyRun = if case .key = input { keyRun + 1 } else { 0 }
        switch input {
        case .key(.character("q")), .key(.control("c")): end(.quit)
        case .key(.up), .key(.character("k")): scroll(by: -1)
        case .key(.down), .key(.character("j")): scroll(by: 1)
        case .key(.pageUp), .key(.character("b")): scroll(by: -loader.viewport)
        case .key(.pageDown), .key(.character(" ")): scroll(by: loader.viewport)
        case .key(.home), .key(.character("g")): scroll(to: 0)
        case .key(.end), .key(.character("G")): scroll(to: loader.rows.count)
        case .key(.character("/")): search.open()
        case .key(.character("?")): helpShown = true
        case .key(.character("n")): if let query = search.lastQuery { find(query) }
        case .key(.control("l")): renderer.invalidate()
        case .mouse(let mouse): handle(mouse)
        case .key: break
        }
        setNeedsDraw()
    }

    private func handle(_ mouse: MouseEvent) {
        guard let loader else { return }
        let layout = currentLayout
        switch mouse.kind {
        case .wheelUp: scroll(by: -1)
        case .wheelDown: scroll(by: 1)
        case .press(button: 0) where mouse.column >= layout.scrollbarColumn, .drag(button: 0) where scrollbarHeld:
            scrollbarHeld = true
            scroll(to: layout.first(forScrollbarRow: mouse.row, count: loader.rows.count))
        default: break
        }
    }

    private func isScrollbarDrag(_ input: InputEvent) -> Bool {
        if case .mouse(let mouse) = input, case .drag(button: 0) = mouse.kind { true } else { false }
    }

    private func releaseScrollbar() {
        guard scrollbarHeld else { return }
        scrollbarHeld = false
        settle()
    }

    private func typeSearch(_ key: Key) {
        switch search.type(key) {
        case .find(let query): find(query)
        case .quit: end(.quit)
        case .typing: break
        }
        setNeedsDraw()
    }

    /// Jumps to the next loaded row after the top whose name or address holds `query`, wrapping.
    private func find(_ query: String) {
        guard let loader else { return }
        if let row = BrowseSearch.row(matching: query, after: Int(loader.top), in: loader.rows, hotels: hotels) {
            search.match = loader.rows[row].code
            scroll(to: row)
        } else {
            search.match = nil
            notice = "no loaded hotel matches “\(query)”"
        }
    }

    // MARK: Scrolling

    private func scroll(by rows: Int) { scroll(to: Int(loader?.top ?? 0) + rows) }

    /// A move: the first of a run of them begins a drag (the queue
    /// suspends); the run settles when the moves stop for `settleDelay`,
    /// or when the scrollbar is let go.
    private func scroll(to row: Int) {
        guard let loader else { return }
        let target = Double(min(max(0, row), max(0, loader.rows.count - loader.viewport)))
        // A key that cannot move the list (↑ at the top) is no drag.
        guard target != loader.top || dragging else { return }
        if !dragging {
            dragging = true
            loader.willBeginDragging()
        }
        if target != loader.top { loader.scroll(to: target) }
        settleGeneration += 1
        let generation = settleGeneration
        guard !scrollbarHeld else { return }
        // One key press may be the start of a held key, whose repeats begin only after the first-repeat delay.
        let wait = keyRun == 1 ? max(configuration.keyRepeatDelay, configuration.settleDelay) : configuration.settleDelay
        mainQueue.asyncAfter(deadline: .now() + .milliseconds(Self.milliseconds(wait))) { [weak self] in
            guard let self, generation == settleGeneration, !scrollbarHeld else { return }
            settle()
        }
        setNeedsDraw()
    }

    /// Whole milliseconds, at least 1 and at most a day: what a timer on the main queue takes.
    static func milliseconds(_ duration: Duration) -> Int {
        Int(min(86_400_000, max(1, (duration / .milliseconds(1)).rounded())))
    }

    private func settle() {
        guard dragging, let loader else { return }
        dragging = false
        keyRun = 0
        loader.didEndDragging(willDecelerate: false)
        setNeedsDraw()
    }

    private func end(_ end: BrowseEnd) {
        guard let finish else { return }
        self.finish = nil
        finish.resume(returning: end)
    }

    // MARK: Drawing

    private var currentLayout: BrowseLayout {
        let size = terminal?.size ?? (columns: 80, rows: 24)
        return BrowseLayout(
            columns: size.columns, rows: size.rows, hasBanner: offlineBanner != nil, hasSearchLine: search.typing != nil || notice != nil)
    }

    private func setNeedsDraw() {
        guard !drawScheduled else { return }
        drawScheduled = true
        mainQueue.async { [weak self] in
            self?.drawScheduled = false
            self?.draw()
        }
    }

    /// Builds the frame and writes what changed, in one write.
    private func draw() {
        guard let terminal, let loader, finish != nil else { return }
        let layout = currentLayout
        if layout.fits, layout.viewport != loader.viewport { loader.resize(viewport: layout.viewport) }
        let state = screenState(layout: layout, loader: loader)
        let frame = BrowseScreen.frame(state, columns: layout.columns, rows: layout.rows, painter: painter)
        let bytes = renderer.render(frame)
        if !bytes.isEmpty { terminal.write(bytes) }
        if status.hasUndrawnLogos {
            status.drawn(at: clock.milliseconds)
            // The p90 on the status line now includes these rows.
            setNeedsDraw()
        }
    }

    private func screenState(layout: BrowseLayout, loader: VisibleWindowLoader) -> BrowseScreenState {
        let visible = loader.visibleRows
        let codes = visible.map { loader.rows[$0].code }
        // Only the rows on screen keep their pictures; a row coming back shows its logo from the memory cache.
        images = images.filter { codes.contains($0.key) }
        paintings = paintings.filter { images[$0.key] != nil }
        let rows = visible.map { row -> BrowseRowView in
            let listRow = loader.rows[row]
            let hotel = hotels[listRow.code]
            let logo: LogoCell
            if listRow.logoURL == nil {
                logo = .none
            } else if let image = images[listRow.code] {
                let painting =
                    paintings[listRow.code] ?? painter.paint(image, columns: BrowseLayout.logoColumns, rows: BrowseLayout.rowHeight)
                paintings[listRow.code] = painting
                // The id names the picture: a hotel whose logo changed gets a new one, and is drawn again.
                logo = .painted(id: listRow.code + "|" + (listRow.logoURL ?? ""), painting)
            } else {
                logo = .placeholder
            }
            return BrowseRowView(
                name: hotel?.name ?? listRow.code, address: hotel?.address ?? "",
                detail: hotel.map { BrowseRowText.detail(for: $0, from: configuration.area) } ?? "",
                chain: hotel.map(BrowseRowText.chain) ?? "", rating: hotel.map(BrowseRowText.rating) ?? "",
                logo: logo, highlighted: listRow.code == search.match)
        }
        let searchLine = search.typing.map { "/" + $0 } ?? notice
        return BrowseScreenState(
            title: configuration.title, headline: status.latencyLabel, banner: offlineBanner.map { $0 + retryNote }, searchLine: searchLine,
            status: status.line(rows: loader.rows.count, reachedEnd: loader.reachedEnd),
            rows: rows, first: visible.lowerBound, count: loader.rows.count, help: helpShown)
    }
}
