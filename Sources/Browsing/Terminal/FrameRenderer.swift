/// Turns a sequence of frames into the bytes that update the terminal from
/// one to the next, writing only what changed.
///
/// It assumes it is the only thing writing to the screen, with autowrap and
/// SGR as it leaves them; call ``invalidate()`` whenever that may not hold.
public struct FrameRenderer: Sendable {
    /// The frame the screen shows, or nil when unknown.
    private var shown: Frame?
    /// Whether kitty placements may be on the screen (then a full redraw deletes them all).
    private var kittyMayBeShown = false
    /// Whether the kitty images went through tmux (then so must their deletes).
    private var kittyThroughTmux = false
    /// The kitty images the terminal holds, sent once each and placed by number.
    private var kittyImages: KittyImages
    /// Set by ``invalidate()``: the terminal may have lost the images, so they are freed and sent again.
    private var kittyImagesInDoubt = false

    /// What every render starts with: synchronized update on, autowrap off.
    private static let header = "\u{1B}[?2026h\u{1B}[?7l"

    /// A gap of unchanged cells this short between two changed runs is
    /// rewritten rather than skipped: cheaper than a cursor move (~8 bytes).
    private static let mergeGap = 4

    /// - Parameter kittyImageLimit: kitty images kept in the terminal at most; past it, the one
    ///   placed longest ago (and not on screen) is freed.
    public init(kittyImageLimit: Int = 512) {
        kittyImages = KittyImages(limit: kittyImageLimit)
    }

    /// Forget the screen (after resume from Ctrl-Z, or when the terminal may
    /// have been drawn over): the next render is a full redraw, which frees
    /// the kitty images sent so far and sends those it shows again.
    public mutating func invalidate() {
        shown = nil
        kittyImagesInDoubt = true
    }

    /// The bytes that turn the screen from the last rendered frame into
    /// `frame`: only changed cells (cursor moves with CUP, SGR only when the
    /// style changes, runs of adjacent changed cells written together), then
    /// the image placements that are new or moved. The first frame, a size
    /// change, or ``invalidate()`` gives a full redraw (clear screen then
    /// every non-blank cell). Everything is wrapped in synchronized-update
    /// markers (`ESC[?2026h` … `ESC[?2026l`) so terminals that know them show
    /// no tearing, autowrap is off while drawing so nothing can scroll, and it
    /// ends with SGR reset. An unchanged frame gives an empty array (no write at all).
    ///
    /// Placements not entirely inside the frame are not drawn.
    public mutating func render(_ frame: Frame) -> [UInt8] {
        var out = Output()
        out.bytes.reserveCapacity(frame.columns * frame.rows * 2 + 64)
        out.append(Self.header)
        if kittyImagesInDoubt {
            for number in kittyImages.removeAll() { out.freeKittyImage(number, throughTmux: kittyThroughTmux) }
            kittyImagesInDoubt = false
        }
        // Pictures through tmux become text: their images are sent (once) first, then their cells diff like any other.
        let frame = placeholders(in: frame, into: &out)

        let full: Bool
        if let shown, shown.columns == frame.columns, shown.rows == frame.rows { full = false } else { full = true }
        let newImages = frame.images.filter { Self.fits($0, in: frame) }
        // A full redraw starts from a cleared screen: the diff against a
        // blank frame then writes every cell that is not blank.
        let old: Frame
        let oldImages: [ImagePlacement]
        if !full, let shown {
            old = shown
            oldImages = shown.images.filter { Self.fits($0, in: shown) }
        } else {
            old = Frame(columns: frame.columns, rows: frame.rows)
            oldImages = []
            if kittyMayBeShown || newImages.contains(where: \.isKitty) {
                out.append("\u{1B}_Ga=d,d=a,q=2\u{1B}\\")
            }
            out.append("\u{1B}[0m\u{1B}[2J")
        }

        // Anything past this is a change; an incremental render that adds nothing is no write at all.
        let headerLength = full || out.bytes.count > Self.header.count ? -1 : out.bytes.count
        let oldKeys = Set(oldImages.map(PlacementKey.init))
        let newKeys = Set(newImages.map(PlacementKey.init))
        let columns = frame.columns
        var dirty: [Bool]? = nil
        func markDirty(_ p: ImagePlacement) {
            if dirty == nil { dirty = Array(repeating: false, count: frame.rows * columns) }
            for y in p.row..<(p.row + p.rows) {
                for x in p.column..<(p.column + p.columns) { dirty?[y * columns + x] = true }
            }
        }
        // Cells where kitty placements were deleted: a kept one there went with them.
        var deletedAt: [(row: Int, column: Int)] = []
        for p in oldImages where !newKeys.contains(PlacementKey(p)) {
            if p.isKitty {
                // Text does not cover kitty images: delete what intersects its first cell.
                out.append("\u{1B}_Ga=d,d=p,x=")
                out.decimal(p.column + 1)
                out.append(",y=")
                out.decimal(p.row + 1)
                out.append(",q=2\u{1B}\\")
                deletedAt.append((p.row, p.column))
            } else {
                // Its pixels are in the cells: rewriting them removes it.
                markDirty(p)
            }
        }
        // Cells under a new picture are rewritten first, clearing whatever pixels were there.
        for p in newImages where !oldKeys.contains(PlacementKey(p)) { markDirty(p) }
        let keptInGrid = newImages.contains { !$0.isKitty && oldKeys.contains(PlacementKey($0)) }
        var written: [Bool]? = keptInGrid ? Array(repeating: false, count: frame.rows * columns) : nil

        diffCells(from: old, to: frame, dirty: dirty, written: &written, into: &out)

        // In the frame's order, so later placements stay over earlier ones:
        // new ones; kept kitty ones a delete took along; kept sixel/iTerm ones
        // whose cells were rewritten or that an earlier redrawn one overlaps.
        var redrawn: [ImagePlacement] = []
        let kittyShown = Set(newImages.lazy.filter(\.isKitty).map(\.id))
        for p in newImages {
            let redraw: Bool
            if !oldKeys.contains(PlacementKey(p)) {
                redraw = true
            } else if p.isKitty {
                redraw = deletedAt.contains { Self.covers(p, row: $0.row, column: $0.column) }
            } else {
                redraw =
                    (written.map { Self.touches(p, $0, columns: columns) } ?? false)
                    || redrawn.contains { !$0.isKitty && Self.overlap($0, p) }
            }
            guard redraw else { continue }
            // Plain SGR, so a picture's background is the default one.
            out.setStyle(.plain)
            out.moveTo(row: p.row, column: p.column)
            if p.isKitty {
                place(p, keeping: kittyShown, into: &out)
                kittyMayBeShown = true
            } else {
                out.bytes.append(contentsOf: p.bytes)
            }
            out.cursorUnknown()
            redrawn.append(p)
        }

        shown = frame
        if out.bytes.count == headerLength { return [] }
        out.append("\u{1B}[0m\u{1B}[?7h\u{1B}[?2026l")
        return out.bytes
    }

    /// `frame` with its pictures through tmux turned into Unicode placeholder cells: `U+10EEEE`
    /// with the row's and the column's diacritics, coloured with the image's number. Each image is
    /// sent through tmux's passthrough the first time, with a virtual placement (`U=1`) of its size.
    private mutating func placeholders(in frame: Frame, into out: inout Output) -> Frame {
        guard frame.images.contains(where: \.throughTmux) else { return frame }
        kittyThroughTmux = true
        var frame = frame
        let shown = Set(frame.images.lazy.filter { $0.isKitty }.map(\.id))
        for p in frame.images where p.throughTmux && Self.fits(p, in: frame) {
            let rows = min(p.rows, KittyPlaceholder.diacritics.count)
            let columns = min(p.columns, KittyPlaceholder.diacritics.count)
            guard let (number, sent) = kittyImage(p, keeping: shown, throughTmux: true, into: &out) else { continue }
            if sent {
                out.bytes.append(
                    contentsOf: KittyPlaceholder.throughTmux(Array("\u{1B}_Ga=p,U=1,i=\(number),c=\(columns),r=\(rows),q=2\u{1B}\\".utf8)))
            }
            let color = TerminalColor.rgb(
                UInt8(truncatingIfNeeded: number >> 16), UInt8(truncatingIfNeeded: number >> 8),
                UInt8(truncatingIfNeeded: number))
            for row in 0..<rows {
                for column in 0..<columns {
                    frame[p.row + row, p.column + column] = Cell(
                        KittyPlaceholder.cell(row: row, column: column),
                        style: CellStyle(foreground: color))
                }
            }
        }
        frame.images.removeAll(where: \.throughTmux)
        return frame
    }

    /// The picture's kitty number: its image sent first (the transmission given `i=`), when the terminal does not
    /// hold it, and whatever the limit pushes out freed; `sent` says whether it was sent now. Nil when the bytes
    /// are not a transmission (`ESC _G…`).
    private mutating func kittyImage(
        _ p: ImagePlacement, keeping: Set<String>, throughTmux: Bool,
        into out: inout Output
    ) -> (number: UInt32, sent: Bool)? {
        let prefix = Array("\u{1B}_G".utf8)
        guard p.bytes.starts(with: prefix) else { return nil }
        let (number, isNew, freed) = kittyImages.number(for: p.id, keeping: keeping)
        for old in freed { out.freeKittyImage(old, throughTmux: throughTmux) }
        if isNew {
            let transmission = prefix + Array("i=\(number),".utf8) + p.bytes.dropFirst(prefix.count)
            out.bytes.append(contentsOf: throughTmux ? KittyPlaceholder.throughTmux(transmission) : transmission)
        }
        return (number, isNew)
    }

    /// A kitty placement at the cursor: its image sent first if the terminal does not hold it, then placed by
    /// number (`a=p`), a few dozen bytes however large the image.
    private mutating func place(_ p: ImagePlacement, keeping: Set<String>, into out: inout Output) {
        guard let (number, _) = kittyImage(p, keeping: keeping, throughTmux: false, into: &out) else { return }
        out.append("\u{1B}_Ga=p,i=")
        out.decimal(Int(number))
        out.append(",c=")
        out.decimal(p.columns)
        out.append(",r=")
        out.decimal(p.rows)
        // C=1: the cursor stays, so a placement in the last row cannot scroll; q=2: no answer in the input.
        out.append(",C=1,q=2\u{1B}\\")
    }

    /// Writes the cells of `new` that differ from `old` (or are dirty), in runs.
    private func diffCells(from old: Frame, to new: Frame, dirty: [Bool]?, written: inout [Bool]?, into out: inout Output) {
        let columns = new.columns
        let oldCells = old.cells
        let newCells = new.cells
        var spans: [(start: Int, end: Int)] = []
        for row in 0..<new.rows {
            let base = row * columns
            spans.removeAll(keepingCapacity: true)
            var c = 0
            // Glyph by glyph: a wide character and its continuation are one unit.
            while c < columns {
                let i = base + c
                let width = c + 1 < columns && newCells[i + 1] == .continuation && newCells[i] != .continuation ? 2 : 1
                var changed = newCells[i] != oldCells[i] || (dirty?[i] ?? false)
                if width == 2 && !changed {
                    changed = newCells[i + 1] != oldCells[i + 1] || (dirty?[i + 1] ?? false)
                }
                if changed {
                    if let last = spans.last, c - last.end <= Self.mergeGap {
                        spans[spans.count - 1].end = c + width
                    } else {
                        spans.append((c, c + width))
                    }
                }
                c += width
            }
            for span in spans {
                out.moveTo(row: row, column: span.start)
                var x = span.start
                while x < span.end {
                    let cell = newCells[base + x]
                    out.setStyle(cell.style)
                    if cell == .continuation {
                        // A right half with no left half: cannot happen through
                        // Frame's API, but a space keeps the cursor in step.
                        out.bytes.append(0x20)
                        x += 1
                    } else {
                        out.bytes.append(contentsOf: cell.character.utf8)
                        x += x + 1 < span.end && newCells[base + x + 1] == .continuation ? 2 : 1
                    }
                }
                if written != nil {
                    for k in span.start..<span.end { written?[base + k] = true }
                }
                out.advance(row: row, to: span.end, columns: columns)
            }
        }
    }

    private static func fits(_ p: ImagePlacement, in frame: Frame) -> Bool {
        // Subtraction, so huge sizes cannot overflow.
        p.row >= 0 && p.column >= 0 && p.rows > 0 && p.columns > 0
            && p.rows <= frame.rows - p.row && p.columns <= frame.columns - p.column
    }

    private static func covers(_ p: ImagePlacement, row: Int, column: Int) -> Bool {
        row >= p.row && row < p.row + p.rows && column >= p.column && column < p.column + p.columns
    }

    private static func overlap(_ a: ImagePlacement, _ b: ImagePlacement) -> Bool {
        a.row < b.row + b.rows && b.row < a.row + a.rows && a.column < b.column + b.columns && b.column < a.column + a.columns
    }

    private static func touches(_ p: ImagePlacement, _ written: [Bool], columns: Int) -> Bool {
        for y in p.row..<(p.row + p.rows) {
            for x in p.column..<(p.column + p.columns) where written[y * columns + x] { return true }
        }
        return false
    }
}

/// What identifies a placement on screen: all but its bytes.
private struct PlacementKey: Hashable {
    let id: String
    let row: Int, column: Int, columns: Int, rows: Int
    let isKitty: Bool

    init(_ p: ImagePlacement) {
        id = p.id
        row = p.row
        column = p.column
        columns = p.columns
        rows = p.rows
        isKitty = p.isKitty
    }
}

/// The kitty images a terminal holds: a number for each picture id, sent once, freed when the
/// limit is passed (the one placed longest ago that is not on screen goes first).
private struct KittyImages: Sendable {
    let limit: Int
    private var numbers: [String: UInt32] = [:]
    /// Picture ids, the one placed longest ago first.
    private var order: [String] = []
    private var next: UInt32 = 1

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The picture's number, whether it must be sent, and the numbers to free first: pictures past
    /// the limit, none of them in `keeping` (those on screen).
    mutating func number(for id: String, keeping: Set<String>) -> (number: UInt32, isNew: Bool, freed: [UInt32]) {
        if let number = numbers[id] {
            if let index = order.firstIndex(of: id) { order.remove(at: index) }
            order.append(id)
            return (number, false, [])
        }
        var freed: [UInt32] = []
        var index = 0
        while numbers.count >= limit, index < order.count {
            if keeping.contains(order[index]) {
                index += 1
            } else if let number = numbers.removeValue(forKey: order.remove(at: index)) {
                freed.append(number)
            }
        }
        let number = next
        // 0 means none, and placeholders carry the number in a 24-bit colour: after 16 million pictures the
        // numbers start again, long after the first was freed.
        next = next == 0xFF_FFFF ? 1 : next + 1
        numbers[id] = number
        order.append(id)
        return (number, true, freed)
    }

    /// Forgets every image; their numbers, to free.
    mutating func removeAll() -> [UInt32] {
        defer {
            numbers = [:]
            order = []
        }
        return order.compactMap { numbers[$0] }
    }
}

/// The output buffer, tracking the cursor and SGR state to skip redundant moves and styles.
private struct Output {
    var bytes: [UInt8] = []
    /// Where the cursor is, or nil when unknown.
    private var cursor: (row: Int, column: Int)? = nil
    /// The SGR in effect; every render starts from the reset it ended with.
    private var style: CellStyle = .plain

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func decimal(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            decimal(-value)
            return
        }
        if value >= 10 { decimal(value / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// CUP to a 0-based position, unless the cursor is already there.
    mutating func moveTo(row: Int, column: Int) {
        if let cursor, cursor.row == row, cursor.column == column { return }
        bytes.append(0x1B)
        bytes.append(UInt8(ascii: "["))
        decimal(row + 1)
        if column > 0 {
            bytes.append(UInt8(ascii: ";"))
            decimal(column + 1)
        }
        bytes.append(UInt8(ascii: "H"))
        cursor = (row, column)
    }

    /// After text up to `end`: the cursor is there, except at the right edge
    /// where terminals differ (it stays in the last column with autowrap off).
    mutating func advance(row: Int, to end: Int, columns: Int) {
        cursor = end < columns ? (row, end) : nil
    }

    mutating func cursorUnknown() {
        cursor = nil
    }

    /// Deletes a kitty image and its data (`d=I`: its placements go with it).
    mutating func freeKittyImage(_ number: UInt32, throughTmux: Bool) {
        let delete = Array("\u{1B}_Ga=d,d=I,i=\(number),q=2\u{1B}\\".utf8)
        bytes.append(contentsOf: throughTmux ? KittyPlaceholder.throughTmux(delete) : delete)
    }

    /// SGR for `newStyle`, from a reset so no attribute lingers; nothing if already in effect.
    mutating func setStyle(_ newStyle: CellStyle) {
        if newStyle == style { return }
        style = newStyle
        bytes.append(0x1B)
        bytes.append(UInt8(ascii: "["))
        bytes.append(UInt8(ascii: "0"))
        if newStyle.bold { append(";1") }
        if newStyle.dim { append(";2") }
        if newStyle.underline { append(";4") }
        if newStyle.inverse { append(";7") }
        if let foreground = newStyle.foreground { color(foreground, base: 38) }
        if let background = newStyle.background { color(background, base: 48) }
        bytes.append(UInt8(ascii: "m"))
    }

    private mutating func color(_ color: TerminalColor, base: Int) {
        bytes.append(UInt8(ascii: ";"))
        decimal(base)
        switch color {
        case .rgb(let r, let g, let b):
            append(";2;")
            decimal(Int(r))
            bytes.append(UInt8(ascii: ";"))
            decimal(Int(g))
            bytes.append(UInt8(ascii: ";"))
            decimal(Int(b))
        case .indexed(let n):
            append(";5;")
            decimal(Int(n))
        }
    }
}
