/// A picture drawn over a block of cells.
public struct ImagePlacement: Hashable, Sendable {
    /// Identifies the picture (the same id at the same place and size = nothing to redraw).
    public var id: String
    public var row: Int
    public var column: Int
    public var columns: Int
    public var rows: Int
    /// Escape bytes that draw it from the cursor at (row, column), covering exactly columns × rows cells;
    /// for kitty, the image's transmission (`ESC _G a=t,…`) without an image number: ``FrameRenderer``
    /// numbers it, sends it once, and places it by number wherever it shows.
    public var bytes: [UInt8]
    /// kitty images live on their own layer: text written over them does not
    /// remove them; they must be deleted. Sixel and iTerm2 images are pixels in
    /// the cell grid: text over them replaces them.
    public var isKitty: Bool
    /// A kitty picture from inside tmux: ``FrameRenderer`` sends it through tmux's passthrough with a
    /// virtual placement, and writes its cells as Unicode placeholders, which tmux keeps like text.
    public var throughTmux: Bool

    public init(id: String, row: Int, column: Int, columns: Int, rows: Int, bytes: [UInt8], isKitty: Bool, throughTmux: Bool = false) {
        self.id = id
        self.row = row
        self.column = column
        self.columns = columns
        self.rows = rows
        self.bytes = bytes
        self.isKitty = isKitty
        self.throughTmux = throughTmux
    }
}

/// The screen as it should look: a grid of cells and the pictures over them.
///
/// The grid keeps wide characters whole: a wide character is always followed
/// by ``Cell/continuation``, and overwriting either half blanks the other.
public struct Frame: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    /// Row-major, `rows * columns` cells.
    private(set) var cells: [Cell]
    /// Pictures to draw over the cells. Placements not entirely inside the frame are not drawn.
    public var images: [ImagePlacement] = []

    /// The widest frame: no real screen is wider, and a TTY claiming more
    /// (`stty cols 60000`) must not make billions of cells.
    public static let largestColumns = 1000
    /// The tallest frame, for the same reason as ``largestColumns``.
    public static let largestRows = 500

    /// All blank; sizes below 1 give an empty frame, sizes above
    /// ``largestColumns`` × ``largestRows`` are cut to it.
    public init(columns: Int, rows: Int) {
        let columns = min(max(0, columns), Self.largestColumns)
        let rows = min(max(0, rows), Self.largestRows)
        // An empty frame in either direction has no cells at all.
        self.columns = rows == 0 ? 0 : columns
        self.rows = columns == 0 ? 0 : rows
        cells = Array(repeating: .blank, count: self.columns * self.rows)
    }

    /// The cell at (row, column), 0-based. Reading outside gives `.blank`;
    /// writing outside is ignored. Writing keeps wide characters whole: a
    /// wide character also sets the cell to its right to ``Cell/continuation``
    /// (in the last column it becomes a space), a lone continuation or a
    /// zero-width character becomes a space, a control character U+FFFD.
    public subscript(row: Int, column: Int) -> Cell {
        get {
            guard row >= 0, row < rows, column >= 0, column < columns else { return .blank }
            return cells[row * columns + column]
        }
        set {
            guard row >= 0, row < rows, column >= 0, column < columns else { return }
            if newValue.character == Cell.continuation.character {
                // Only meaningful right of a wide character, where it already is.
                if column > 0, cells[row * columns + column] == .continuation { return }
                set(Cell(" ", style: newValue.style), row: row, column: column, width: 1)
                return
            }
            var cell = newValue
            var width = displayWidth(of: cell.character)
            if isControl(cell.character) {
                cell.character = "\u{FFFD}"
                width = 1
            } else if width == 0 {
                cell.character = " "
                width = 1
            }
            set(cell, row: row, column: column, width: width)
        }
    }

    /// Stores a sanitized cell of known width, blanking halves it orphans.
    private mutating func set(_ cell: Cell, row: Int, column: Int, width: Int) {
        let base = row * columns
        var cell = cell
        var width = width
        if width == 2 && column == columns - 1 {
            // No room for the right half.
            cell.character = " "
            width = 1
        }
        unpair(base, column)
        if width == 2 { unpair(base, column + 1) }
        cells[base + column] = cell
        if width == 2 { cells[base + column + 1] = .continuation }
    }

    /// Before (row, column) is overwritten: blanks the other half of a wide character there.
    private mutating func unpair(_ base: Int, _ column: Int) {
        let i = base + column
        if cells[i] == .continuation {
            if column > 0 { cells[i - 1].character = " " }
        } else if column + 1 < columns, cells[i + 1] == .continuation {
            cells[i + 1] = Cell(" ", style: cells[i].style)
        }
    }

    /// Writes `text` from (row, column), clipped at `maxColumns` (default: to
    /// the right edge), with `style`; wide characters take two cells (a wide
    /// char that would straddle the clip edge becomes a space); control
    /// characters are written as U+FFFD; combining marks join the previous
    /// character; other zero-width characters (format controls such as bidi
    /// overrides) are dropped. Returns the number of columns used.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, style: CellStyle = .plain, maxColumns: Int? = nil) -> Int {
        guard row >= 0, row < rows, column < columns else { return 0 }
        var limit = columns
        if let maxColumns { limit = min(limit, saturatingSum(column, max(0, maxColumns))) }
        var x = column
        // Where the last character written by this call is, for a combining mark after a control.
        var last: Int? = nil
        for character in text {
            guard x < limit else { break }
            if isControl(character) {
                if x >= 0 {
                    set(Cell("\u{FFFD}", style: style), row: row, column: x, width: 1)
                    last = row * columns + x
                }
                x += 1
                continue
            }
            let width = displayWidth(of: character)
            if width == 0 {
                // A combining mark Swift did not join (after a control, or
                // leading): joins what this call wrote last, else is dropped.
                if let last, character.unicodeScalars.allSatisfy(isCombining) {
                    cells[last].character = Character(String(cells[last].character) + String(character))
                }
                continue
            }
            if x + width > limit {
                // A wide character cut by the edge: its visible half is a space.
                if x >= 0 { set(Cell(" ", style: style), row: row, column: x, width: 1) }
                x += 1
                break
            }
            if x >= 0 {
                set(Cell(character, style: style), row: row, column: x, width: width)
                last = row * columns + x
            } else if x + width > 0 {
                // Left half clipped off the left edge.
                set(Cell(" ", style: style), row: row, column: 0, width: 1)
            }
            x += width
        }
        return max(0, x - max(column, 0))
    }

    /// Sets every cell in the rectangle (clipped to the frame) to `cell`; a
    /// wide character is repeated every second column.
    public mutating func fill(row: Int, column: Int, columns: Int, rows: Int, with cell: Cell) {
        guard row < self.rows, column < self.columns else { return }
        let top = max(0, row)
        let bottom = min(self.rows, saturatingSum(row, max(0, rows)))
        let left = max(0, column)
        let right = min(self.columns, saturatingSum(column, max(0, columns)))
        guard top < bottom, left < right else { return }
        let step = cell == .continuation ? 1 : max(1, displayWidth(of: cell.character))
        for y in top..<bottom {
            var x = left
            while x < right {
                if x + step > right {
                    self[y, x] = Cell(" ", style: cell.style)
                } else {
                    self[y, x] = cell
                }
                x += step
            }
        }
    }
}

/// `a + b`, stopping at Int.max instead of trapping: sizes may be anything.
func saturatingSum(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b > 0 ? Int.max : Int.min) : sum
}

/// Whether the character is a control code (C0, DEL, C1, or CR LF), which must never reach the terminal.
func isControl(_ character: Character) -> Bool {
    guard let first = character.unicodeScalars.first else { return true }
    let v = first.value
    return v < 0x20 || (v >= 0x7F && v < 0xA0)
}

/// Combining marks (Mn, Me) take no column of their own and join the character before them.
func isCombining(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark: return true
    default: return false
    }
}

/// Columns one scalar takes: 0, 1 or 2, like wcwidth but from a built-in
/// table, so it does not depend on the process locale.
func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if v < 0x300 { return v < 0x20 || (v >= 0x7F && v < 0xA0) ? 0 : 1 }
    if v >= 0x1160 && v <= 0x11FF { return 0 }  // Hangul medial vowels and final consonants join the syllable
    if v == 0x200B { return 0 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    case .unassigned where v >= 0x20000: break  // CJK planes default to wide
    default: break
    }
    if v < wideRanges[0].0 { return 1 }
    var low = 0
    var high = wideRanges.count - 1
    while low <= high {
        let mid = (low + high) / 2
        let range = wideRanges[mid]
        if v < range.0 { high = mid - 1 } else if v > range.1 { low = mid + 1 } else { return 2 }
    }
    return 1
}

/// Columns a character takes in a terminal (wcwidth-like: East Asian wide and
/// fullwidth = 2, combining = 0). A cluster takes the width of its first
/// scalar that has one (emoji sequences and flags are 2). Control characters
/// count 1: ``Frame/put(_:row:column:style:maxColumns:)`` writes them as U+FFFD.
public func displayWidth(of character: Character) -> Int {
    // Fast path: ASCII, the overwhelming case.
    if character.asciiValue != nil { return 1 }
    if isControl(character) { return 1 }
    for scalar in character.unicodeScalars {
        let width = scalarWidth(scalar)
        if width > 0 { return width }
    }
    return 0
}

/// Columns a string takes in a terminal: the sum of its characters' ``displayWidth(of:)-(Character)``.
public func displayWidth(of text: String) -> Int {
    var total = 0
    for character in text { total += displayWidth(of: character) }
    return total
}

/// Truncates to at most `columns` columns, ending with "…" when cut.
public func truncate(_ text: String, toColumns columns: Int) -> String {
    guard columns > 0 else { return "" }
    if displayWidth(of: text) <= columns { return text }
    var result = ""
    var used = 0
    for character in text {
        let width = displayWidth(of: character)
        if used + width > columns - 1 { break }
        result.append(character)
        used += width
    }
    return result + "…"
}

/// East Asian Wide and Fullwidth ranges (Unicode 14, plus the CJK planes 2
/// and 3 and regional indicators), sorted, for a binary search.
private let wideRanges: [(UInt32, UInt32)] = [
    (0x1100, 0x115F), (0x231A, 0x231B), (0x2329, 0x232A), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3),
    (0x25FD, 0x25FE), (0x2614, 0x2615), (0x2648, 0x2653), (0x267F, 0x267F), (0x2693, 0x2693), (0x26A1, 0x26A1),
    (0x26AA, 0x26AB), (0x26BD, 0x26BE), (0x26C4, 0x26C5), (0x26CE, 0x26CE), (0x26D4, 0x26D4), (0x26EA, 0x26EA),
    (0x26F2, 0x26F3), (0x26F5, 0x26F5), (0x26FA, 0x26FA), (0x26FD, 0x26FD), (0x2705, 0x2705), (0x270A, 0x270B),
    (0x2728, 0x2728), (0x274C, 0x274C), (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2795, 0x2797),
    (0x27B0, 0x27B0), (0x27BF, 0x27BF), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x2E80, 0x303E),
    (0x3041, 0x3247), (0x3250, 0x4DBF), (0x4E00, 0xA4C6), (0xA960, 0xA97C), (0xAC00, 0xD7A3), (0xF900, 0xFAD9),
    (0xFE10, 0xFE19), (0xFE30, 0xFE6B), (0xFF01, 0xFF60), (0xFFE0, 0xFFE6), (0x16FE0, 0x1B2FB), (0x1F004, 0x1F004),
    (0x1F0CF, 0x1F0CF), (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A), (0x1F1E6, 0x1F320), (0x1F32D, 0x1F335), (0x1F337, 0x1F37C),
    (0x1F37E, 0x1F393), (0x1F3A0, 0x1F3CA), (0x1F3CF, 0x1F3D3), (0x1F3E0, 0x1F3F0), (0x1F3F4, 0x1F3F4), (0x1F3F8, 0x1F43E),
    (0x1F440, 0x1F440), (0x1F442, 0x1F4FC), (0x1F4FF, 0x1F53D), (0x1F54B, 0x1F54E), (0x1F550, 0x1F567), (0x1F57A, 0x1F57A),
    (0x1F595, 0x1F596), (0x1F5A4, 0x1F5A4), (0x1F5FB, 0x1F64F), (0x1F680, 0x1F6C5), (0x1F6CC, 0x1F6CC), (0x1F6D0, 0x1F6D2),
    (0x1F6D5, 0x1F6DF), (0x1F6EB, 0x1F6EC), (0x1F6F4, 0x1F6FC), (0x1F7E0, 0x1F7F0), (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945),
    (0x1F947, 0x1F9FF), (0x1FA70, 0x1FAFF), (0x20000, 0x3FFFD),
]
