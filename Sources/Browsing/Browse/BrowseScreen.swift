/// Where the browse view puts things on a screen of a given size: a title
/// line, the offline banner when there is one, the rows (a logo box beside
/// three lines of text, a scrollbar on the right), the search line while
/// searching, and the status line.
public struct BrowseLayout: Equatable, Sendable {
    /// Lines per hotel: name, address, and distance and addtime (with chain and rating where they fit).
    public static let rowHeight = 3
    /// The logo's box, in cells: about square, as cells are twice as tall as wide.
    public static let logoColumns = 6
    public static let minimumColumns = 30

    public var columns: Int
    public var rows: Int
    public var hasBanner: Bool
    public var hasSearchLine: Bool

    public init(columns: Int, rows: Int, hasBanner: Bool, hasSearchLine: Bool) {
        self.columns = columns
        self.rows = rows
        self.hasBanner = hasBanner
        self.hasSearchLine = hasSearchLine
    }

    public var bodyTop: Int { hasBanner ? 2 : 1 }
    public var bodyRows: Int { max(0, rows - bodyTop - 1 - (hasSearchLine ? 1 : 0)) }
    /// Hotels that fit at once.
    public var viewport: Int { bodyRows / Self.rowHeight }
    /// Whether one hotel fits at all.
    public var fits: Bool { viewport >= 1 && columns >= Self.minimumColumns }
    public var scrollbarColumn: Int { columns - 1 }
    public var logoColumn: Int { 1 }
    public var textColumn: Int { logoColumn + Self.logoColumns + 2 }
    public var textWidth: Int { max(0, scrollbarColumn - 1 - textColumn) }
    public var statusRow: Int { rows - 1 }

    /// The hotel at a screen row, as an offset into the window (nil: not a hotel's line).
    public func windowRow(atScreenRow row: Int) -> Int? {
        guard row >= bodyTop, row < bodyTop + viewport * Self.rowHeight else { return nil }
        return (row - bodyTop) / Self.rowHeight
    }

    /// The scrollbar's thumb, as screen rows, for `count` rows with the window at `first`.
    public func thumb(first: Int, count: Int) -> Range<Int> {
        let track = viewport * Self.rowHeight
        guard count > viewport, track > 0 else { return bodyTop..<bodyTop + track }
        let length = max(1, track * viewport / count)
        let start = (track - length) * first / max(1, count - viewport)
        return bodyTop + start..<bodyTop + start + length
    }

    /// The first row for a scrollbar held at screen row `row`.
    public func first(forScrollbarRow row: Int, count: Int) -> Int {
        let track = max(1, viewport * Self.rowHeight - 1)
        let fraction = Double(min(max(0, row - bodyTop), track)) / Double(track)
        return Int((fraction * Double(max(0, count - viewport))).rounded())
    }
}

/// A hotel's logo box as the screen shows it.
public enum LogoCell: Sendable, Equatable {
    /// The hotel has no logo.
    case none
    /// A logo is on its way.
    case placeholder
    /// The logo, painted for the box; `id` names the picture, so an unchanged one is not sent again.
    case painted(id: String, Painting)
}

/// One hotel as the screen shows it.
public struct BrowseRowView: Sendable, Equatable {
    public var name: String
    public var address: String
    /// Distance and addtime.
    public var detail: String
    /// The chain code (`MC`), after the detail where the width leaves room; empty without one.
    public var chain: String
    /// The rating (`★4.5`), after the detail where the width leaves room; empty without one.
    public var rating: String
    public var logo: LogoCell
    /// A search's match.
    public var highlighted: Bool

    public init(
        name: String, address: String, detail: String, chain: String = "", rating: String = "", logo: LogoCell,
        highlighted: Bool = false
    ) {
        self.name = name
        self.address = address
        self.detail = detail
        self.chain = chain
        self.rating = rating
        self.logo = logo
        self.highlighted = highlighted
    }

    /// The third line's parts, as many as fit in `width` columns: the detail, then ` · MC ★4.5`. A narrow
    /// line drops the chain and rating before it cuts the detail: first the chain, then the rating; what
    /// is left is the detail, cut to the width.
    public func detailParts(width: Int) -> (detail: String, chain: String, rating: String) {
        let separator = detail.isEmpty ? 0 : displayWidth(of: " · ")
        let detailWidth = displayWidth(of: detail)
        let both = [chain, rating].filter { !$0.isEmpty }.map { displayWidth(of: $0) }
        if !both.isEmpty, detailWidth + separator + both.reduce(both.count - 1, +) <= width { return (detail, chain, rating) }
        if !rating.isEmpty, detailWidth + separator + displayWidth(of: rating) <= width { return (detail, "", rating) }
        return (truncate(detail, toColumns: width), "", "")
    }
}

/// Everything one frame shows.
public struct BrowseScreenState: Sendable, Equatable {
    public var title: String
    /// Shown at the title line's right end when there is room: the settle-to-drawn p90.
    public var headline: String?
    /// The offline banner.
    public var banner: String?
    /// `/query` while the user types a search.
    public var searchLine: String?
    public var status: String
    /// The visible hotels, top to bottom.
    public var rows: [BrowseRowView]
    /// Index of the first visible hotel in the list, and the list's length, for the scrollbar.
    public var first: Int
    public var count: Int
    /// The keys, over the rows (`?`), as `less` and `htop` show theirs.
    public var help = false

    public init(
        title: String, headline: String? = nil, banner: String? = nil, searchLine: String? = nil, status: String,
        rows: [BrowseRowView], first: Int, count: Int, help: Bool = false
    ) {
        self.title = title
        self.headline = headline
        self.banner = banner
        self.searchLine = searchLine
        self.status = status
        self.rows = rows
        self.first = first
        self.count = count
        self.help = help
    }

    public func layout(columns: Int, rows: Int) -> BrowseLayout {
        BrowseLayout(columns: columns, rows: rows, hasBanner: banner != nil, hasSearchLine: searchLine != nil)
    }
}

/// Draws a ``BrowseScreenState`` into a ``Frame``: no terminal, no state of
/// its own, so a frame can be built, tested and timed anywhere.
public enum BrowseScreen {
    static let titleStyle = CellStyle(foreground: .indexed(15), background: .indexed(24), bold: true)
    static let bannerStyle = CellStyle(foreground: .indexed(16), background: .indexed(214), bold: true)
    static let statusStyle = CellStyle(foreground: .indexed(252), background: .indexed(238))
    static let nameStyle = CellStyle(bold: true)
    static let matchStyle = CellStyle(foreground: .indexed(16), background: .indexed(150), bold: true)
    static let addressStyle = CellStyle(foreground: .indexed(250))
    static let detailStyle = CellStyle(foreground: .indexed(244))
    static let chainStyle = CellStyle(foreground: .indexed(250))
    static let ratingStyle = CellStyle(foreground: .indexed(178))
    static let trackStyle = CellStyle(foreground: .indexed(238))
    static let thumbStyle = CellStyle(foreground: .indexed(250))

    /// What `?` shows.
    static let helpLines = [
        "Keys",
        "",
        "  ↑ ↓   j k           a row",
        "  PgUp PgDn   b space a screen",
        "  Home End   g G      the top, the end of what is loaded (more loads at 90%)",
        "  /                   search the loaded rows: Enter jumps, Esc cancels",
        "  n                   the next match",
        "  Ctrl-L              draw the screen again",
        "  q   Ctrl-C          quit",
        "",
        "  The mouse: the wheel moves a row; drag the scrollbar on the right.",
        "  Logos load for the rows on screen once the list has settled.",
        "",
        "Any key closes this help.",
    ]

    public static func frame(_ state: BrowseScreenState, columns: Int, rows: Int, painter: LogoPainter) -> Frame {
        var frame = Frame(columns: columns, rows: rows)
        let layout = state.layout(columns: columns, rows: rows)
        guard layout.fits else {
            let message =
                "terminal too small: \(columns)×\(rows), needs \(BrowseLayout.minimumColumns)×\(5 + (state.banner == nil ? 0 : 1))"
            frame.put(truncate(message, toColumns: columns), row: rows / 2, column: max(0, (columns - displayWidth(of: message)) / 2))
            return frame
        }
        line(&frame, row: 0, text: state.title, style: titleStyle)
        if let headline = state.headline {
            let width = displayWidth(of: headline)
            // Only where it leaves the title whole.
            if displayWidth(of: state.title) + width + 4 <= columns {
                frame.put(headline, row: 0, column: columns - width - 1, style: titleStyle)
            }
        }
        if let banner = state.banner { line(&frame, row: 1, text: banner, style: bannerStyle) }
        if state.help {
            // In place of the rows, not over them: a logo drawn by kitty or sixel would cover the text.
            for (index, line) in helpLines.prefix(layout.viewport * BrowseLayout.rowHeight).enumerated() {
                frame.put(
                    truncate(line, toColumns: layout.scrollbarColumn - 1), row: layout.bodyTop + index, column: 1,
                    style: index == 0 ? nameStyle : CellStyle())
            }
        } else {
            for (index, hotel) in state.rows.prefix(layout.viewport).enumerated() {
                draw(hotel, at: layout.bodyTop + index * BrowseLayout.rowHeight, layout: layout, into: &frame, painter: painter)
            }
        }
        let thumb = layout.thumb(first: state.first, count: state.count)
        for row in layout.bodyTop..<layout.bodyTop + layout.viewport * BrowseLayout.rowHeight {
            frame.put(
                thumb.contains(row) ? "█" : "│", row: row, column: layout.scrollbarColumn,
                style: thumb.contains(row) ? thumbStyle : trackStyle)
        }
        if let search = state.searchLine { frame.put(truncate(search, toColumns: columns), row: layout.statusRow - 1, column: 0) }
        line(&frame, row: layout.statusRow, text: state.status, style: statusStyle)
        return frame
    }

    /// A full-width line: the text, then the style's background to the edge.
    private static func line(_ frame: inout Frame, row: Int, text: String, style: CellStyle) {
        var fill = Cell.blank
        fill.style = style
        frame.fill(row: row, column: 0, columns: frame.columns, rows: 1, with: fill)
        frame.put(truncate(" " + text, toColumns: frame.columns), row: row, column: 0, style: style)
    }

    private static func draw(_ hotel: BrowseRowView, at top: Int, layout: BrowseLayout, into frame: inout Frame, painter: LogoPainter) {
        let width = layout.textWidth
        frame.put(
            truncate(hotel.name, toColumns: width), row: top, column: layout.textColumn, style: hotel.highlighted ? matchStyle : nameStyle)
        frame.put(truncate(hotel.address, toColumns: width), row: top + 1, column: layout.textColumn, style: addressStyle)
        let (detail, chain, rating) = hotel.detailParts(width: width)
        var column = layout.textColumn + frame.put(detail, row: top + 2, column: layout.textColumn, style: detailStyle)
        if !chain.isEmpty || !rating.isEmpty {
            if !detail.isEmpty { column += frame.put(" · ", row: top + 2, column: column, style: detailStyle) }
            if !chain.isEmpty { column += frame.put(chain, row: top + 2, column: column, style: chainStyle) }
            if !chain.isEmpty && !rating.isEmpty { column += frame.put(" ", row: top + 2, column: column, style: detailStyle) }
            if !rating.isEmpty { frame.put(rating, row: top + 2, column: column, style: ratingStyle) }
        }
        let box = (columns: BrowseLayout.logoColumns, rows: BrowseLayout.rowHeight)
        switch hotel.logo {
        case .none:
            break
        case .placeholder:
            put(painter.placeholder(columns: box.columns, rows: box.rows), at: top, column: layout.logoColumn, into: &frame)
        case .painted(_, .cells(let cells)):
            put(cells, at: top, column: layout.logoColumn, into: &frame)
        case .painted(let id, .escape(let bytes)):
            frame.images.append(
                ImagePlacement(
                    id: id, row: top, column: layout.logoColumn, columns: box.columns, rows: box.rows,
                    bytes: bytes, isKitty: painter.support.mode == .kitty,
                    throughTmux: painter.support.throughTmux))
        }
    }

    private static func put(_ cells: [[Cell]], at top: Int, column: Int, into frame: inout Frame) {
        for (line, row) in cells.prefix(BrowseLayout.rowHeight).enumerated() {
            for (offset, cell) in row.prefix(BrowseLayout.logoColumns).enumerated() { frame[top + line, column + offset] = cell }
        }
    }
}
