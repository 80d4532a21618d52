@testable import Browsing

let esc = "\u{1B}"

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The characters of a frame row, continuation cells left out.
func rowText(_ frame: Frame, _ row: Int) -> String {
    var s = ""
    for c in 0..<frame.columns where frame[row, c] != .continuation { s.append(frame[row, c].character) }
    return s
}

/// Test image bytes the virtual terminal understands: a DCS (sixel-like) naming the picture, or a kitty
/// transmission (`a=t`, with no id: the renderer gives it one) whose data names it.
func placement(_ id: String, row: Int, column: Int, columns: Int, rows: Int, kitty: Bool) -> ImagePlacement {
    let bytes = kitty ? "\(esc)_Ga=t,f=32,s=8,v=8,q=2,m=1\(esc)\\\(esc)_Gm=0;\(id)\(esc)\\" : "\(esc)Pq\(id);\(columns);\(rows)\(esc)\\"
    return ImagePlacement(id: id, row: row, column: column, columns: columns, rows: rows, bytes: Array(bytes.utf8), isKitty: kitty)
}

extension Array where Element == String {
    /// The first element and the second (or ""), as a `;`-split kitty command's control and payload.
    func splitFirst() -> (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

/// Interprets what the renderer writes: CUP, SGR, ED 2, DEC private modes,
/// printable characters (wide ones take two cells, autowrap off stops at the
/// edge), and the test image escapes: DCS = pixels in the cells, APC = kitty
/// placements and deletes. Anything else is recorded as an error.
struct VirtualTerminal {
    private(set) var columns: Int
    private(set) var rows: Int
    private var cells: [Cell]
    /// Sixel-like pixels: which picture covers a cell.
    private var pixels: [String?]
    private var kitty: [ImagePlacement] = []
    /// kitty images the terminal holds, by number: their data (the test's picture id).
    var images: [UInt32: String] = [:]
    /// The image whose chunks are arriving.
    private var transmitting: UInt32?
    /// Images sent so far.
    private(set) var transmissions = 0
    /// Virtual placements (`U=1`) by image number: their columns and rows.
    private(set) var virtualPlacements: [UInt32: (columns: Int, rows: Int)] = [:]
    /// Sequences that came through tmux's passthrough.
    private(set) var passedThrough = 0

    /// What the screen shows at `row`, `column`.
    func cell(_ row: Int, _ column: Int) -> Cell { cells[row * columns + column] }
    private var cursor = (row: 0, column: 0)
    private var style = CellStyle.plain
    private var autowrap = true
    private var errors: [String] = []

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Cell("?"), count: columns * rows)
        pixels = Array(repeating: nil, count: columns * rows)
    }

    /// A new size: the screen is garbage, but the kitty images stay, as in a terminal.
    mutating func resize(columns: Int, rows: Int) {
        let images = images
        self = VirtualTerminal(columns: columns, rows: rows)
        self.images = images
    }

    /// Garbage on screen, as if something else drew there.
    mutating func scribble() {
        for i in cells.indices { cells[i] = Cell("%", style: CellStyle(bold: true)) }
    }

    mutating func run(_ bytes: [UInt8]) {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                guard i + 1 < bytes.count else {
                    errors.append("ESC at end")
                    return
                }
                switch bytes[i + 1] {
                case UInt8(ascii: "["):
                    var j = i + 2
                    while j < bytes.count, (0x30...0x3F).contains(bytes[j]) { j += 1 }
                    guard j < bytes.count else {
                        errors.append("cut CSI")
                        return
                    }
                    csi(String(decoding: bytes[(i + 2)..<j], as: UTF8.self), final: bytes[j])
                    i = j + 1
                case UInt8(ascii: "P") where bytes[(i + 2)...].starts(with: Array("tmux;".utf8)):
                    // tmux's passthrough: the sequence inside, each ESC doubled, reaches the terminal.
                    var inner: [UInt8] = []
                    var j = i + 7
                    while j + 1 < bytes.count, !(bytes[j] == 0x1B && bytes[j + 1] == UInt8(ascii: "\\")) {
                        if bytes[j] == 0x1B {
                            guard bytes[j + 1] == 0x1B else {
                                errors.append("a lone ESC in passthrough")
                                return
                            }
                            j += 1
                        }
                        inner.append(bytes[j])
                        j += 1
                    }
                    guard j + 1 < bytes.count else {
                        errors.append("cut passthrough")
                        return
                    }
                    passedThrough += 1
                    run(inner)
                    i = j + 2
                case UInt8(ascii: "P"), UInt8(ascii: "_"):
                    var j = i + 2
                    while j + 1 < bytes.count, !(bytes[j] == 0x1B && bytes[j + 1] == UInt8(ascii: "\\")) { j += 1 }
                    guard j + 1 < bytes.count else {
                        errors.append("cut string")
                        return
                    }
                    let body = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
                    if bytes[i + 1] == UInt8(ascii: "P") { dcs(body) } else { apc(body) }
                    i = j + 2
                default:
                    errors.append("unknown ESC \(bytes[i + 1])")
                    i += 2
                }
            } else if b < 0x20 || b == 0x7F {
                errors.append("control byte \(b)")
                i += 1
            } else {
                var j = i
                while j < bytes.count, bytes[j] >= 0x20, bytes[j] != 0x7F { j += 1 }
                for character in String(decoding: bytes[i..<j], as: UTF8.self) { print(character) }
                i = j
            }
        }
    }

    private mutating func csi(_ params: String, final: UInt8) {
        switch final {
        case UInt8(ascii: "H"):
            let parts = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
            let row = (parts.first ?? 1) - 1
            let column = (parts.count > 1 ? parts[1] : 1) - 1
            guard row >= 0, row < rows, column >= 0, column < columns else {
                errors.append("CUP outside: \(params)")
                return
            }
            cursor = (row, column)
        case UInt8(ascii: "m"):
            sgr(params)
        case UInt8(ascii: "J"):
            guard params == "2" else {
                errors.append("ED \(params)")
                return
            }
            for k in cells.indices {
                cells[k] = Cell(" ", style: CellStyle(background: style.background))
                pixels[k] = nil
            }
        case UInt8(ascii: "h"), UInt8(ascii: "l"):
            if params == "?7" {
                autowrap = final == UInt8(ascii: "h")
            } else if params != "?2026" {
                errors.append("mode \(params)")
            }
        default:
            errors.append("CSI \(params) \(final)")
        }
    }

    private mutating func sgr(_ params: String) {
        var values = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
        while let v = values.popFirst() {
            switch v {
            case 0: style = .plain
            case 1: style.bold = true
            case 2: style.dim = true
            case 4: style.underline = true
            case 7: style.inverse = true
            case 38, 48:
                let color: TerminalColor?
                switch values.popFirst() {
                case 2:
                    let r = values.popFirst() ?? 0
                    let g = values.popFirst() ?? 0
                    let b = values.popFirst() ?? 0
                    color = .rgb(UInt8(r), UInt8(g), UInt8(b))
                case 5: color = .indexed(UInt8(values.popFirst() ?? 0))
                default:
                    color = nil
                    errors.append("bad colour in \(params)")
                }
                if v == 38 { style.foreground = color } else { style.background = color }
            default: errors.append("SGR \(v)")
            }
        }
    }

    private mutating func print(_ character: Character) {
        let width = displayWidth(of: character)
        guard width > 0 else {
            errors.append("zero-width \(character)")
            return
        }
        if autowrap { errors.append("printed with autowrap on") }
        if width == 2 && cursor.column == columns - 1 {
            errors.append("wide at the edge")
            return
        }
        let base = cursor.row * columns
        for k in cursor.column..<(cursor.column + width) {
            clearHalf(base, k)
            pixels[base + k] = nil
        }
        cells[base + cursor.column] = Cell(character, style: style)
        if width == 2 { cells[base + cursor.column + 1] = .continuation }
        // Autowrap off: the cursor stays in the last column.
        cursor.column = min(cursor.column + width, columns - 1)
    }

    /// Like xterm: overwriting half of a wide character blanks the other half.
    private mutating func clearHalf(_ base: Int, _ column: Int) {
        if cells[base + column] == .continuation, column > 0 {
            cells[base + column - 1] = Cell(" ", style: cells[base + column - 1].style)
        } else if column + 1 < columns, cells[base + column + 1] == .continuation {
            cells[base + column + 1] = Cell(" ", style: cells[base + column].style)
        }
    }

    /// `q<id>;<columns>;<rows>`: pixels over the cells from the cursor.
    private mutating func dcs(_ body: String) {
        let parts = body.dropFirst().split(separator: ";")
        guard parts.count == 3, let w = Int(parts[1]), let h = Int(parts[2]) else {
            errors.append("DCS \(body)")
            return
        }
        guard cursor.row + h <= rows, cursor.column + w <= columns else {
            errors.append("sixel off screen")
            return
        }
        for y in cursor.row..<(cursor.row + h) {
            for x in cursor.column..<(cursor.column + w) { pixels[y * columns + x] = String(parts[0]) }
        }
    }

    private mutating func apc(_ body: String) {
        guard body.hasPrefix("G") else {
            errors.append("APC \(body)")
            return
        }
        let (control, payload) = body.dropFirst().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            .splitFirst()
        var keys: [String: String] = [:]
        for pair in control.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { keys[String(kv[0])] = String(kv[1]) }
        }
        if let number = transmitting {
            // A later chunk of a transmission: only m and the data.
            guard keys.keys.allSatisfy({ $0 == "m" }) else {
                errors.append("keys in a later chunk: \(body)")
                return
            }
            images[number, default: ""] += payload
            if keys["m"] == "0" { transmitting = nil }
            return
        }
        switch keys["a"] {
        case "t":
            guard keys["q"] == "2", let number = keys["i"].flatMap({ UInt32($0) }), number > 0 else {
                errors.append("transmission \(body)")
                return
            }
            images[number] = payload
            transmissions += 1
            if keys["m"] == "1" { transmitting = number }
        case "p" where keys["U"] == "1":
            // A virtual placement: the picture shows where placeholder cells name it.
            guard keys["q"] == "2", let number = keys["i"].flatMap({ UInt32($0) }), images[number] != nil,
                let w = keys["c"].flatMap({ Int($0) }), let h = keys["r"].flatMap({ Int($0) })
            else {
                errors.append("virtual placement \(body)")
                return
            }
            virtualPlacements[number] = (w, h)
        case "p":
            guard keys["q"] == "2", keys["C"] == "1", let number = keys["i"].flatMap({ UInt32($0) }),
                let w = keys["c"].flatMap({ Int($0) }), let h = keys["r"].flatMap({ Int($0) })
            else {
                errors.append("placement \(body)")
                return
            }
            guard let image = images[number] else {
                errors.append("placement of image \(number), never sent or freed")
                return
            }
            kitty.append(ImagePlacement(id: image, row: cursor.row, column: cursor.column, columns: w, rows: h, bytes: [], isKitty: true))
        case "d":
            switch keys["d"] {
            case "a":
                kitty = []
            case "p":
                guard let x = keys["x"].flatMap({ Int($0) }), let y = keys["y"].flatMap({ Int($0) }) else {
                    errors.append("delete \(body)")
                    return
                }
                kitty.removeAll { p in
                    (p.column..<(p.column + p.columns)).contains(x - 1) && (p.row..<(p.row + p.rows)).contains(y - 1)
                }
            case "I":
                guard let number = keys["i"].flatMap({ UInt32($0) }) else {
                    errors.append("free \(body)")
                    return
                }
                // Freeing an image takes its placements along.
                if let image = images.removeValue(forKey: number) { kitty.removeAll { $0.id == image } }
            default:
                errors.append("delete \(body)")
            }
        default:
            errors.append("APC \(body)")
        }
    }

    /// nil when the screen shows `frame`; else what differs.
    func matches(_ frame: Frame) -> String? {
        if let error = errors.first { return "terminal error: \(error)" }
        guard frame.columns == columns, frame.rows == rows else { return "size" }
        if !autowrap { return "autowrap left off" }
        if style != .plain { return "SGR not reset" }
        let fits = frame.images.filter {
            $0.row >= 0 && $0.column >= 0 && $0.row + $0.rows <= rows && $0.column + $0.columns <= columns
        }
        var expectedPixels: [String?] = Array(repeating: nil, count: columns * rows)
        for p in fits where !p.isKitty {
            for y in p.row..<(p.row + p.rows) {
                for x in p.column..<(p.column + p.columns) { expectedPixels[y * columns + x] = p.id }
            }
        }
        for r in 0..<rows {
            for c in 0..<columns {
                if cells[r * columns + c] != frame[r, c] {
                    return "cell \(r),\(c): screen \(cells[r * columns + c]) frame \(frame[r, c])"
                }
                if pixels[r * columns + c] != expectedPixels[r * columns + c] {
                    return "pixels \(r),\(c): screen \(pixels[r * columns + c] ?? "-") frame \(expectedPixels[r * columns + c] ?? "-")"
                }
            }
        }
        let shownKitty = Set(kitty.map { "\($0.id)@\($0.row),\($0.column) \($0.columns)x\($0.rows)" })
        let wantedKitty = Set(fits.filter(\.isKitty).map { "\($0.id)@\($0.row),\($0.column) \($0.columns)x\($0.rows)" })
        if shownKitty != wantedKitty || kitty.count != shownKitty.count { return "kitty: screen \(kitty.map(\.id)) frame \(wantedKitty)" }
        return nil
    }
}
