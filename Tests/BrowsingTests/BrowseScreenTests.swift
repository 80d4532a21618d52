import Browsing
import Foundation
import Hotels
import Imaging
import Scheduling
import Testing

@Suite("The browse view's frame, status and row text, without a terminal")
struct BrowseScreenTests {
    static let painter = LogoPainter(support: GraphicsSupport(mode: .symbols, colors: .truecolor, reason: "test"))

    static func text(of frame: Frame, row: Int) -> String {
        String((0..<frame.columns).map { frame[row, $0].character }.filter { $0 != "\u{0}" })
    }

    static func state(rows: Int, banner: String? = nil, first: Int = 0, count: Int = 100) -> BrowseScreenState {
        BrowseScreenState(
            title: "hotels browse: Shanghai", headline: "p90 settle→drawn 80 ms", banner: banner, status: "50 hotels, more to load",
            rows: (0..<rows).map {
                BrowseRowView(
                    name: "上海酒店 \($0)", address: "\($0) Nanjing Road, Shanghai",
                    detail: "added 2026-11-20", logo: $0 == 0 ? .placeholder : .none)
            },
            first: first, count: count)
    }

    @Test("? shows the keys in place of the rows, under the title and above the status line; the scrollbar stays")
    func help() {
        var state = Self.state(rows: 9)
        state.help = true
        let frame = BrowseScreen.frame(state, columns: 100, rows: 30, painter: Self.painter)
        let screen = (0..<30).map { Self.text(of: frame, row: $0) }
        #expect(screen[0].contains("hotels browse: Shanghai") && screen[29].contains("50 hotels, more to load"))
        #expect(screen[1].contains("Keys") && screen.contains { $0.contains("search the loaded rows") })
        #expect(screen.contains { $0.contains("Any key closes this help.") })
        #expect(!screen.contains { $0.contains("上海酒店") }, "no row under the help")
        #expect(frame[1, 99].character == "█")
    }

    @Test("100×30: the title, nine hotels of three lines (name, address, detail), the scrollbar and the status line")
    func layout() {
        let layout = BrowseLayout(columns: 100, rows: 30, hasBanner: false, hasSearchLine: false)
        #expect(layout.viewport == 9)
        let frame = BrowseScreen.frame(Self.state(rows: 9), columns: 100, rows: 30, painter: Self.painter)
        #expect(Self.text(of: frame, row: 0).contains("hotels browse: Shanghai"))
        #expect(Self.text(of: frame, row: 0).hasSuffix("p90 settle→drawn 80 ms "), "the headline at the title line's right end")
        for index in 0..<9 {
            let top = 1 + index * 3
            #expect(Self.text(of: frame, row: top).contains("上海酒店 \(index)"))
            #expect(Self.text(of: frame, row: top + 1).contains("\(index) Nanjing Road, Shanghai"))
            #expect(Self.text(of: frame, row: top + 2).contains("added 2026-11-20"))
        }
        #expect(Self.text(of: frame, row: 29).contains("50 hotels, more to load"))
        #expect(frame[1, 99].character == "█", "the thumb at the top of the scrollbar")
        #expect(frame[27, 99].character == "│")
        #expect(frame[28, 99].character == " ", "the spare line below the last hotel")
        // The first row's placeholder fills its logo box; the others have no logo.
        #expect(frame[1, 1] != .blank && frame[3, 6] != .blank)
        #expect(frame[4, 1] == .blank)
    }

    @Test("The banner takes a line; with it, eight hotels fit at 30 lines")
    func banner() {
        let state = Self.state(rows: 9, banner: "offline: showing 50 hotels for Shanghai cached 3 h ago")
        #expect(state.layout(columns: 100, rows: 30).viewport == 9, "28 - 1 lines still hold nine")
        #expect(state.layout(columns: 100, rows: 29).viewport == 8)
        let frame = BrowseScreen.frame(state, columns: 100, rows: 30, painter: Self.painter)
        #expect(Self.text(of: frame, row: 1).contains("offline: showing 50 hotels"))
        #expect(Self.text(of: frame, row: 2).contains("上海酒店 0"))
    }

    @Test("Too small for one hotel: a notice instead of rows, at every small size, without a crash")
    func tooSmall() {
        for (columns, rows) in [(24, 4), (100, 4), (29, 30), (1, 1), (0, 0)] {
            let frame = BrowseScreen.frame(Self.state(rows: 9), columns: columns, rows: rows, painter: Self.painter)
            let all = (0..<frame.rows).map { Self.text(of: frame, row: $0) }.joined()
            #expect(!all.contains("上海酒店"), "\(columns)×\(rows)")
            if columns >= 20, rows >= 1 { #expect(all.contains("too small"), "\(columns)×\(rows)") }
        }
    }

    @Test("The scrollbar's thumb follows the window, and a drag on the track maps back to the first row")
    func scrollbar() {
        let layout = BrowseLayout(columns: 100, rows: 30, hasBanner: false, hasSearchLine: false)
        #expect(layout.thumb(first: 0, count: 90).lowerBound == 1)
        #expect(layout.thumb(first: 81, count: 90).upperBound == 28)
        #expect(layout.first(forScrollbarRow: 1, count: 90) == 0)
        #expect(layout.first(forScrollbarRow: 28, count: 90) == 81)
        #expect(layout.first(forScrollbarRow: 200, count: 90) == 81)
        #expect(layout.windowRow(atScreenRow: 4) == 1)
        #expect(layout.windowRow(atScreenRow: 29) == nil)
    }

    @Test("Row text: distance from the search's centre, and the day added")
    func rowText() throws {
        let hotel = Hotel(code: "H1", name: "A", address: "B", latitude: 31.24, longitude: 121.47, addtime: 1_795_737_600)
        let area = try SearchArea(latitude: 31.23, longitude: 121.47)
        #expect(BrowseRowText.detail(for: hotel, from: area) == "1.1 km · added 2026-11-27")
        #expect(BrowseRowText.detail(for: hotel, from: nil) == "31.2400, 121.4700 · added 2026-11-27")
        #expect(BrowseRowText.detail(for: Hotel(code: "H2"), from: area) == "")
        #expect(abs(BrowseRowText.distance(from: (48.8566, 2.3522), to: (51.5074, -0.1278)) - 343.5) < 1, "Paris to London")
    }

    @Test(
        "Chain and rating follow the detail where the width leaves room: the chain goes first when narrow, then the rating, and only then is the detail cut"
    )
    func chainAndRating() throws {
        let hotel = Hotel(
            code: "H1", name: "Shanghai Grand", address: "1 Nanjing Road", latitude: 31.24, longitude: 121.47,
            addtime: 1_795_737_600, chainCode: "MC", rating: 4.5)
        let area = try SearchArea(latitude: 31.23, longitude: 121.47)
        #expect(BrowseRowText.chain(for: hotel) == "MC" && BrowseRowText.rating(for: hotel) == "★4.5")
        #expect(
            BrowseRowText.rating(for: Hotel(code: "H2", rating: 4)) == "★4"
                && BrowseRowText.rating(for: Hotel(code: "H3", rating: 0)) == "★0")
        #expect(BrowseRowText.rating(for: Hotel(code: "H4")) == "" && BrowseRowText.chain(for: Hotel(code: "H4")) == "")
        #expect(BrowseRowText.rating(for: Hotel(code: "H5", rating: .nan)) == "★nan", "whatever a store holds, no trap")
        let row = BrowseRowView(
            name: "Shanghai Grand", address: "1 Nanjing Road", detail: BrowseRowText.detail(for: hotel, from: area),
            chain: BrowseRowText.chain(for: hotel), rating: BrowseRowText.rating(for: hotel), logo: .none)
        func third(columns: Int) -> String {
            let state = BrowseScreenState(title: "hotels browse: Shanghai", status: "1 hotel", rows: [row], first: 0, count: 1)
            let frame = BrowseScreen.frame(state, columns: columns, rows: 10, painter: Self.painter)
            // The text area alone: from the text column to the scrollbar.
            let layout = state.layout(columns: columns, rows: 10)
            return String((layout.textColumn..<layout.scrollbarColumn).map { frame[3, $0].character }.filter { $0 != "\u{0}" })
                .trimmingCharacters(in: .whitespaces)
        }
        // The detail is 25 columns, " · MC ★4.5" 10 more; the text has the width less 11 columns (logo, gaps, scrollbar).
        #expect(third(columns: 100) == "1.1 km · added 2026-11-27 · MC ★4.5")
        #expect(third(columns: 46) == "1.1 km · added 2026-11-27 · MC ★4.5", "35 columns: all of it, to the last")
        #expect(third(columns: 45) == "1.1 km · added 2026-11-27 · ★4.5", "34: the chain goes first")
        #expect(third(columns: 43) == "1.1 km · added 2026-11-27 · ★4.5", "32: the rating still fits")
        #expect(third(columns: 42) == "1.1 km · added 2026-11-27", "31: the detail alone, whole")
        #expect(third(columns: 35) == "1.1 km · added 2026-11-…", "24: the detail cut")
        // The rating in its own colour, after the chain.
        let frame = BrowseScreen.frame(
            BrowseScreenState(title: "t", status: "s", rows: [row], first: 0, count: 1), columns: 100, rows: 10,
            painter: Self.painter)
        let star = try #require((0..<100).first { frame[3, $0].character == "★" })
        #expect(frame[3, star].style != frame[3, 9].style && frame[3, star - 3].character == "M")

        // Without a detail: the chain and rating alone, no separator; with one of them, that one.
        #expect(
            BrowseRowView(name: "A", address: "", detail: "", chain: "CU", rating: "★3", logo: .none).detailParts(width: 20) == (
                "", "CU", "★3"
            ))
        #expect(
            BrowseRowView(name: "A", address: "", detail: "added 2026-11-27", chain: "CU", logo: .none).detailParts(width: 30)
                == ("added 2026-11-27", "CU", ""))
        #expect(
            BrowseRowView(name: "A", address: "", detail: "added 2026-11-27", chain: "CU", logo: .none).detailParts(width: 20)
                == ("added 2026-11-27", "", ""))
        // A supplier's long chain does not push the rating out: it is dropped, the rating kept.
        let long = BrowseRowView(
            name: "A", address: "", detail: "added 2026-11-27", chain: String(repeating: "上海", count: 20), rating: "★5",
            logo: .none)
        #expect(long.detailParts(width: 40) == ("added 2026-11-27", "", "★5"))
        #expect(long.detailParts(width: 0) == ("", "", ""))
    }

    @Test("The status line counts from the loader's events: queued, in flight, cancelled, failed, cache hits, settle-to-drawn p90")
    func status() {
        let image = RGBAImage(width: 1, height: 1)
        var status = BrowseStatus()
        let visible = 0..<3
        status.record(.settle(visible: visible), at: 0, visible: visible, withoutLogo: Array(visible))
        for row in 0..<3 { status.record(.queued(row: row, priority: .normal), at: 0, visible: visible, withoutLogo: Array(visible)) }
        status.record(.start(row: 0, queueSuspended: false), at: 1, visible: visible, withoutLogo: [])
        status.record(.start(row: 1, queueSuspended: false), at: 1, visible: visible, withoutLogo: [])
        #expect(status.line(rows: 50, reachedEnd: false).contains("1 queued, 2 in flight, 0 cancelled, 0 failed"))
        status.record(.done(row: 0, downloadedBytes: 100, wasted: false), at: 90, visible: visible, withoutLogo: [])
        status.record(.display(row: 0, image: image), at: 90, visible: visible, withoutLogo: [])
        status.record(.cancel(row: 1, started: true), at: 95, visible: visible, withoutLogo: [])
        status.record(.done(row: 2, downloadedBytes: nil, wasted: false), at: 99, visible: visible, withoutLogo: [])
        status.record(.display(row: 2, image: image), at: 99, visible: visible, withoutLogo: [])
        // Row 5 came from memory: shown with no operation at all.
        status.record(.display(row: 5, image: image), at: 99, visible: visible, withoutLogo: [])
        #expect(status.p90 == nil, "nothing drawn yet")
        status.drawn(at: 120)
        let line = status.line(rows: 50, reachedEnd: true)
        #expect(line.contains("50 hotels, end of list"))
        #expect(line.contains("0 queued, 0 in flight, 1 cancelled, 0 failed"))
        #expect(line.contains("2 cache hits"))
        #expect(status.latencyLabel == "p90 settle→drawn 120 ms")
        status.record(.pageRequest(page: 2), at: 130, visible: visible, withoutLogo: [])
        #expect(status.line(rows: 50, reachedEnd: false).contains("loading more"))
        // A row already showing its logo at a settle waits for nothing: shown again later, it is not counted.
        status.record(.settle(visible: visible), at: 200, visible: visible, withoutLogo: [1])
        status.record(.display(row: 0, image: image), at: 5000, visible: visible, withoutLogo: [1])
        status.drawn(at: 5000)
        #expect(status.latencies.count == 2)
    }
}
