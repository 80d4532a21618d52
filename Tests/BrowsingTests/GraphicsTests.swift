import Foundation
import Imaging
import Testing

@testable import Browsing

// MARK: - Helpers

/// `Samples/Terminal/NAME`, found from this file's place in the tree.
private func terminalSample(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples/Terminal/\(name)")
}

/// The recorded bytes; with `HOTELKIT_RECORD_GRAPHICS=1` in the environment, `bytes` are recorded first.
private func recorded(_ name: String, recording bytes: [UInt8]) throws -> [UInt8] {
    let url = terminalSample(name)
    if ProcessInfo.processInfo.environment["HOTELKIT_RECORD_GRAPHICS"] == "1" {
        try Data(bytes).write(to: url)
    }
    return try [UInt8](Data(contentsOf: url))
}

/// Red, green / blue, white.
private let fourColours = RGBAImage(
    width: 2, height: 2,
    pixels: [
        255, 0, 0, 255, 0, 255, 0, 255,
        0, 0, 255, 255, 255, 255, 255, 255,
    ])

private func support(_ mode: GraphicsMode, _ colors: SymbolColors = .truecolor) -> GraphicsSupport {
    GraphicsSupport(mode: mode, colors: colors, reason: "test")
}

private func escapeBytes(_ painting: Painting) -> [UInt8]? {
    if case .escape(let bytes) = painting { return bytes }
    return nil
}

private func cells(_ painting: Painting) -> [[Cell]]? {
    if case .cells(let cells) = painting { return cells }
    return nil
}

/// Where two byte strings first differ (the shorter one's length if one is a prefix), or nil when equal:
/// a failure then names an offset instead of printing kilobytes.
private func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
    if a == b { return nil }
    return zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
}

private func starts(_ bytes: [UInt8], with text: String) -> Bool {
    bytes.starts(with: Array(text.utf8))
}

private func ends(_ bytes: [UInt8], with text: String) -> Bool {
    bytes.reversed().starts(with: Array(text.utf8).reversed())
}

/// The APC sequences `ESC _G keys ; payload ESC \` in `bytes`, split at the `;`.
private func kittyCommands(_ bytes: [UInt8]) -> [(keys: String, payload: String)] {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.components(separatedBy: "\u{1B}\\").dropLast().map { part in
        let body = part.hasPrefix("\u{1B}_G") ? String(part.dropFirst(3)) : "NOT-APC:" + part
        let pieces = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : "")
    }
}

/// The pixels the chunks carry. chafa encodes each chunk's 512 bytes on its
/// own, padding included, and kitty decodes chunk by chunk: so does this.
private func kittyPixels(_ chunks: ArraySlice<(keys: String, payload: String)>) -> [UInt8]? {
    var pixels: [UInt8] = []
    for chunk in chunks {
        guard let data = Data(base64Encoded: chunk.payload) else { return nil }
        pixels += data
    }
    return pixels
}

/// The brightness a cell shows: its background where it is a space, its foreground where a full block, else both mixed.
private func shownLevel(_ cell: Cell) -> Double? {
    func level(_ color: TerminalColor?) -> Double? {
        guard case .rgb(let r, let g, let b) = color else { return nil }
        return (Double(r) + Double(g) + Double(b)) / 3
    }
    switch cell.character {
    case " ": return level(cell.style.background)
    case "█": return level(cell.style.foreground)
    default:
        guard let fg = level(cell.style.foreground), let bg = level(cell.style.background) else { return nil }
        return (fg + bg) / 2
    }
}

/// Records what it was asked and answers from a script.
private final class ScriptedTerminal: TerminalQuerying {
    let answer: [UInt8]
    private(set) var queries: [[UInt8]] = []
    private(set) var timeouts: [Duration] = []
    private(set) var answerWasComplete: Bool?

    init(_ answer: String) { self.answer = Array(answer.utf8) }

    func ask(_ query: [UInt8], timeout: Duration, isComplete: ([UInt8]) -> Bool) -> [UInt8] {
        queries.append(query)
        timeouts.append(timeout)
        answerWasComplete = isComplete(answer)
        return answer
    }
}

// MARK: - Pixel protocols

@Suite struct PixelPaintingTests {
    @Test func kittyMatchesTheRecordingAndDecodesToTheImage() throws {
        let painted = try #require(escapeBytes(LogoPainter(support: support(.kitty)).paint(fourColours, columns: 2, rows: 1)))
        let bytes = try recorded("logo-2x2-kitty.bin", recording: painted)

        // The recording is a real kitty image on its own, not whatever a broken build wrote.
        #expect(starts(bytes, with: "\u{1B}_G"))
        #expect(ends(bytes, with: "\u{1B}\\"))
        let commands = kittyCommands(bytes)
        let first = try #require(commands.first)
        let keys = Set(first.keys.split(separator: ",").map(String.init))
        // A transmission alone, with no number: FrameRenderer numbers it, sends it once and places it by number.
        #expect(keys == ["a=t", "f=32", "s=20", "v=20", "c=2", "r=1", "q=2", "m=1"])
        #expect(commands.last?.keys == "m=0")
        let chunks = commands.dropFirst().dropLast()
        #expect(!chunks.isEmpty)
        #expect(chunks.allSatisfy { $0.keys == "m=1" && $0.payload.utf8.count <= 4096 })
        let rgba = try #require(kittyPixels(chunks))
        #expect(rgba.count == 20 * 20 * 4)
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<4).map { Int(rgba[(y * 20 + x) * 4 + $0]) } }
        let near = { (a: [Int], b: [Int]) in zip(a, b).allSatisfy { abs($0 - $1) <= 40 } }
        #expect(near(pixel(0, 0), [255, 0, 0, 255]))
        #expect(near(pixel(19, 0), [0, 255, 0, 255]))
        #expect(near(pixel(0, 19), [0, 0, 255, 255]))
        #expect(near(pixel(19, 19), [255, 255, 255, 255]))

        #expect(firstDifference(painted, bytes) == nil)
    }

    @Test func sixelMatchesTheRecording() throws {
        let painted = try #require(escapeBytes(LogoPainter(support: support(.sixel)).paint(fourColours, columns: 2, rows: 1)))
        let bytes = try recorded("logo-2x2-sixel.bin", recording: painted)

        // DCS P1;P2;P3 q, raster attributes for 20 × 18 pixels (sixel bands are 6 high, so 20 rounds down), ST.
        #expect(starts(bytes, with: "\u{1B}P"))
        #expect(ends(bytes, with: "\u{1B}\\"))
        let text = String(decoding: bytes, as: UTF8.self)
        let introducer = try #require(text.firstIndex(of: "q"))
        #expect(text[text.index(text.startIndex, offsetBy: 2)..<introducer].allSatisfy { $0.isNumber || $0 == ";" })
        #expect(text[text.index(after: introducer)...].hasPrefix("\"1;1;20;18#"))
        // Among the palette (#n;2;r;g;b in percent) there is a red, a green and a blue.
        let palette = text.split(separator: "#").compactMap { entry -> [Int]? in
            let numbers = entry.prefix { $0.isNumber || $0 == ";" }.split(separator: ";").compactMap { Int($0) }
            return numbers.count == 5 && numbers[1] == 2 ? Array(numbers[2...]) : nil
        }
        #expect(palette.contains { $0[0] >= 85 && $0[1] <= 15 && $0[2] <= 15 })
        #expect(palette.contains { $0[1] >= 85 && $0[0] <= 15 && $0[2] <= 15 })
        #expect(palette.contains { $0[2] >= 85 && $0[0] <= 15 && $0[1] <= 15 })

        #expect(firstDifference(painted, bytes) == nil)
    }

    @Test func itermNamesTheCellBox() throws {
        let bytes = try #require(escapeBytes(LogoPainter(support: support(.iterm)).paint(fourColours, columns: 2, rows: 1)))
        #expect(starts(bytes, with: "\u{1B}]1337;File=inline=1;width=2;height=1;preserveAspectRatio=0:"))
        #expect(bytes.last == 0x07)
    }

    @Test func pixelModesDrawOverTheWholeBoxWithTheLogoCentred() throws {
        // 4 × 2 pixels of opaque red in a 4 × 2 cell box of 10 × 20-pixel cells (40 × 40): padded to 4 × 4, centred.
        let wide = RGBAImage(width: 4, height: 2, pixels: Array([UInt8]([255, 0, 0, 255]).repeated(8)))
        let bytes = try #require(escapeBytes(LogoPainter(support: support(.kitty)).paint(wide, columns: 4, rows: 2)))
        let commands = kittyCommands(bytes)
        let keys = Set((commands.first?.keys ?? "").split(separator: ",").map(String.init))
        #expect(keys.isSuperset(of: ["s=40", "v=40"]))
        let rgba = try #require(kittyPixels(commands.dropFirst().dropLast()))
        #expect(rgba.count == 40 * 40 * 4)
        func alpha(_ x: Int, _ y: Int) -> UInt8 { rgba[(y * 40 + x) * 4 + 3] }
        #expect(alpha(20, 0) < 20)  // the band above is transparent
        #expect(alpha(20, 39) < 20)  // and the band below
        #expect(alpha(20, 20) > 235)
        #expect(rgba[(20 * 40 + 20) * 4] > 235)
    }

    @Test func paintsTheSameFromManyThreads() async {
        let painter = LogoPainter(support: support(.sixel))
        let expected = painter.paint(fourColours, columns: 3, rows: 2)
        let results = await withTaskGroup(of: Painting.self) { group in
            for _ in 0..<16 { group.addTask { painter.paint(fourColours, columns: 3, rows: 2) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 == expected })
    }
}

// MARK: - Symbols

@Suite struct SymbolPaintingTests {
    /// 16 × 16: left half black, right half white.
    static let halves = RGBAImage(
        width: 16, height: 16,
        pixels: (0..<256).flatMap { index -> [UInt8] in
            let level: UInt8 = index % 16 < 8 ? 0 : 255
            return [level, level, level, 255]
        })

    @Test func givesOneColumnCellsDarkOnTheLeftLightOnTheRight() throws {
        // 4 × 2 cells of 10 × 20 pixels is square, like the image: no padding.
        let grid = try #require(cells(LogoPainter(support: support(.symbols)).paint(Self.halves, columns: 4, rows: 2)))
        #expect(grid.count == 2)
        #expect(grid.allSatisfy { $0.count == 4 })
        for row in grid {
            for cell in row {
                let scalars = cell.character.unicodeScalars
                // Space or a block element: one column in every Western font.
                #expect(scalars.count == 1)
                #expect(scalars.allSatisfy { $0 == " " || (0x2580...0x259F).contains($0.value) })
                #expect(cell != .continuation)
            }
            let left = try #require(shownLevel(row[0]))
            let right = try #require(shownLevel(row[3]))
            #expect(left < 40)
            #expect(right > 215)
        }
        #expect(grid.joined().contains { $0.style.background != nil || $0.style.foreground != nil })
    }

    @Test func indexed256GivesPaletteColours() throws {
        let grid = try #require(cells(LogoPainter(support: support(.symbols, .indexed256)).paint(Self.halves, columns: 4, rows: 2)))
        let colours = grid.joined().flatMap { [$0.style.foreground, $0.style.background] }.compactMap { $0 }
        #expect(!colours.isEmpty)
        #expect(colours.allSatisfy { if case .indexed = $0 { true } else { false } })
        // 16 is the palette's black, 231 its white (and 232…255 the grey ramp).
        #expect(colours.contains { $0 == .indexed(16) || $0 == .indexed(0) || $0 == .indexed(232) })
        #expect(colours.contains { $0 == .indexed(231) || $0 == .indexed(15) || $0 == .indexed(255) })
    }

    @Test func transparentPaddingLeavesTheTerminalBackground() throws {
        // A wide red bar in a square box: the rows above and below show the terminal's own background.
        let bar = RGBAImage(width: 16, height: 2, pixels: Array([UInt8]([200, 0, 0, 255]).repeated(32)))
        let grid = try #require(cells(LogoPainter(support: support(.symbols)).paint(bar, columns: 8, rows: 4)))
        #expect(grid.count == 4)
        #expect(grid[0].allSatisfy { $0.character == " " && $0.style.background == nil })
        #expect(grid[3].allSatisfy { $0.character == " " && $0.style.background == nil })
        #expect(
            grid.joined().contains { cell in
                [cell.style.foreground, cell.style.background].contains { if case .rgb(let r, _, _) = $0 { r > 150 } else { false } }
            })
    }
}

// MARK: - Degenerate input

@Suite struct DegeneratePaintingTests {
    @Test(arguments: GraphicsMode.allCases)
    func malformedImagesAndBoxesGivePlaceholders(mode: GraphicsMode) {
        let painter = LogoPainter(support: support(mode))
        let placeholder = painter.placeholder(columns: 3, rows: 2)
        #expect(placeholder.count == 2 && placeholder.allSatisfy { $0.count == 3 })
        #expect(placeholder.joined().allSatisfy { $0.character == "░" && $0.style.dim })

        // RGBAImage checks its pixel count itself, so an empty image is the malformed one a decoder can hand over.
        let empty = RGBAImage(width: 0, height: 4, pixels: [])
        let flat = RGBAImage(width: 4, height: 0, pixels: [])
        for image in [empty, flat] {
            #expect(painter.paint(image, columns: 3, rows: 2) == .cells(placeholder))
        }
        #expect(painter.paint(fourColours, columns: 0, rows: 2) == .cells(painter.placeholder(columns: 0, rows: 2)))
        #expect(painter.paint(fourColours, columns: 3, rows: -1) == .cells([]))
        #expect(painter.placeholder(columns: -4, rows: -4).isEmpty)
    }

    @Test func aVeryThinImageIsShrunkNotPaddedToAHugeSquare() throws {
        let line = RGBAImage(width: 20_000, height: 1, pixels: Array([UInt8]([0, 0, 255, 255]).repeated(20_000)))
        let grid = try #require(cells(LogoPainter(support: support(.symbols)).paint(line, columns: 4, rows: 2)))
        #expect(grid.count == 2 && grid.allSatisfy { $0.count == 4 })
    }
}

// MARK: - Detection

@Suite struct GraphicsDetectionTests {
    static let da1Sixel = "\u{1B}[?62;4;22c"
    static let da1Plain = "\u{1B}[?1;2c"

    @Test func theQueryIsKittysThenDA1() {
        let text = String(decoding: GraphicsDetection.query, as: UTF8.self)
        #expect(text == "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[c")
    }

    @Test(
        "inside tmux: kitty through passthrough when tmux lets escapes through and runs in a kitty-graphics terminal; else symbols saying how"
    )
    func insideTmux() {
        func found(passthrough: String?, client: String?) -> GraphicsSupport {
            GraphicsDetection.detect(
                environment: ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color", "COLORTERM": "truecolor"],
                terminal: ScriptedTerminal(""),
                tmux: { arguments in
                    arguments.contains("allow-passthrough") ? passthrough.map { $0 + "\n" } : client.map { $0 + "\n" }
                })
        }
        let through = found(passthrough: "on", client: "xterm-kitty")
        #expect(through.mode == .kitty && through.throughTmux && through.colors == .truecolor, "\(through)")
        #expect(found(passthrough: "all", client: "xterm-ghostty").throughTmux)
        let off = found(passthrough: "off", client: "xterm-kitty")
        #expect(off.mode == .symbols && !off.throughTmux && off.reason.contains("tmux set -g allow-passthrough on"), "\(off.reason)")
        #expect(found(passthrough: "on", client: "xterm-256color").mode == .symbols)
        #expect(found(passthrough: nil, client: nil).mode == .symbols, "tmux not answering")
        // Without a way to ask tmux, the environment decides: symbols.
        #expect(GraphicsDetection.detect(environment: ["TMUX": "x"], terminal: ScriptedTerminal("")).mode == .symbols)
        // --graphics kitty inside tmux can only work through it.
        #expect(GraphicsDetection.detect(environment: ["TMUX": "x"], terminal: ScriptedTerminal(""), override: .kitty).throughTmux)
    }

    @Test("asking tmux gives the command's output, and nil for one that fails or does not end by its deadline")
    func askingTmux() {
        #expect(TmuxCommand.output(["on"], program: "echo") == "on\n")
        #expect(TmuxCommand.output([], program: "false") == nil)
        #expect(TmuxCommand.output(["600"], program: "sleep", deadline: .milliseconds(100)) == nil)
    }

    @Test func kittyAnswer() {
        let terminal = ScriptedTerminal("\u{1B}_Gi=31;OK\u{1B}\\" + Self.da1Plain)
        let found = GraphicsDetection.detect(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"], terminal: terminal)
        #expect(found.mode == .kitty)
        #expect(found.colors == .truecolor)
        #expect(terminal.queries == [GraphicsDetection.query])
        #expect(terminal.answerWasComplete == true)
    }

    @Test func kittyErrorWithSixelDA1IsSixel() {
        let answer = Array("\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\\(Self.da1Sixel)".utf8)
        #expect(GraphicsDetection.interpret(answer, environment: [:]).mode == .sixel)
    }

    @Test func sixelDA1() {
        let terminal = ScriptedTerminal(Self.da1Sixel)
        let found = GraphicsDetection.detect(environment: ["TERM": "foot"], terminal: terminal)
        #expect(found.mode == .sixel)
        #expect(found.colors == .indexed256)
        #expect(found.reason.contains("62;4;22"))
        #expect(terminal.queries.count == 1)
    }

    @Test func plainDA1IsSymbols() {
        let terminal = ScriptedTerminal(Self.da1Plain)
        let found = GraphicsDetection.detect(environment: ["TERM": "xterm-256color"], terminal: terminal)
        #expect(found.mode == .symbols)
        #expect(terminal.queries.count == 1)
        // A VT132 answers ?4;…: the 4 there is its class, not sixels.
        #expect(GraphicsDetection.interpret(Array("\u{1B}[?4;6c".utf8), environment: [:]).mode == .symbols)
    }

    @Test func noAnswerIsSymbolsAfterTheTimeout() {
        let terminal = ScriptedTerminal("")
        let found = GraphicsDetection.detect(environment: ["TERM": "xterm-256color"], terminal: terminal, timeout: .milliseconds(120))
        #expect(found.mode == .symbols)
        #expect(found.reason.contains("no answer"))
        #expect(terminal.timeouts == [.milliseconds(120)])
        #expect(terminal.answerWasComplete == false)
    }

    @Test func anAnswerIsCompleteOnlyOnceTheDA1HasArrived() {
        #expect(!GraphicsDetection.isComplete(Array("\u{1B}_Gi=31;OK\u{1B}\\".utf8)))
        #expect(!GraphicsDetection.isComplete(Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;4".utf8)))
        #expect(GraphicsDetection.isComplete(Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;4c".utf8)))
        #expect(!GraphicsDetection.isComplete(Array("\u{1B}[?2004;1$y".utf8)))
    }

    @Test func tmuxIsSymbolsWithoutAsking() {
        let terminal = ScriptedTerminal("\u{1B}_Gi=31;OK\u{1B}\\" + Self.da1Sixel)
        // tmux inside kitty, with TERM set to xterm's in a shell profile: TMUX alone decides.
        let environment = ["TMUX": "/tmp/tmux-0/default,1234,0", "TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]
        let found = GraphicsDetection.detect(environment: environment, terminal: terminal)
        #expect(found.mode == .symbols)
        #expect(found.reason.contains("tmux"))
        #expect(terminal.queries.isEmpty)
        #expect(GraphicsDetection.detect(environment: ["TERM": "screen-256color"], terminal: terminal).mode == .symbols)
        #expect(terminal.queries.isEmpty)
    }

    @Test func iTermFromTheEnvironmentWithoutAsking() {
        let terminal = ScriptedTerminal(Self.da1Plain)
        #expect(
            GraphicsDetection.detect(environment: ["TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color"], terminal: terminal).mode
                == .iterm)
        #expect(GraphicsDetection.detect(environment: ["LC_TERMINAL": "iTerm2"], terminal: terminal).mode == .iterm)
        #expect(GraphicsDetection.detect(environment: ["TERM_PROGRAM": "WezTerm"], terminal: terminal).mode == .iterm)
        #expect(terminal.queries.isEmpty)
    }

    @Test func kittyFromTheEnvironmentWithoutAsking() {
        let terminal = ScriptedTerminal(Self.da1Plain)
        #expect(
            GraphicsDetection.detect(environment: ["KITTY_WINDOW_ID": "3", "TERM": "xterm-256color"], terminal: terminal).mode == .kitty)
        #expect(GraphicsDetection.detect(environment: ["TERM": "xterm-kitty"], terminal: terminal).mode == .kitty)
        #expect(terminal.queries.isEmpty)
    }

    @Test func consolesAreDecidedWithoutAsking() {
        let terminal = ScriptedTerminal(Self.da1Sixel)
        #expect(GraphicsDetection.detect(environment: ["TERM": "linux"], terminal: terminal).mode == .symbols)
        #expect(GraphicsDetection.detect(environment: ["TERM": "dumb"], terminal: terminal).mode == GraphicsMode.none)
        #expect(terminal.queries.isEmpty)
        #expect(GraphicsDetection.fromEnvironment(["TERM": "xterm-256color"]) == nil)
    }

    @Test(arguments: GraphicsMode.allCases)
    func overrideBeatsEverything(mode: GraphicsMode) {
        let terminal = ScriptedTerminal("\u{1B}_Gi=31;OK\u{1B}\\" + Self.da1Sixel)
        let environment = ["TMUX": "/tmp/tmux-0/default,1234,0", "KITTY_WINDOW_ID": "1", "TERM_PROGRAM": "iTerm.app"]
        let found = GraphicsDetection.detect(environment: environment, terminal: terminal, override: mode)
        #expect(found.mode == mode)
        #expect(terminal.queries.isEmpty)
    }

    @Test func coloursFollowCOLORTERM() {
        #expect(GraphicsDetection.fromEnvironment(["TMUX": "x", "COLORTERM": "truecolor"])?.colors == .truecolor)
        #expect(GraphicsDetection.fromEnvironment(["TMUX": "x", "COLORTERM": "24bit"])?.colors == .truecolor)
        #expect(GraphicsDetection.fromEnvironment(["TMUX": "x"])?.colors == .indexed256)
        #expect(GraphicsDetection.fromEnvironment(["TMUX": "x", "COLORTERM": "yes"])?.colors == .indexed256)
        let terminal = ScriptedTerminal(Self.da1Plain)
        #expect(GraphicsDetection.detect(environment: ["COLORTERM": "truecolor"], terminal: terminal).colors == .truecolor)
        #expect(GraphicsDetection.detect(environment: [:], terminal: terminal).colors == .indexed256)
        #expect(
            GraphicsDetection.detect(environment: ["COLORTERM": "truecolor"], terminal: terminal, override: .symbols).colors == .truecolor)
    }
}

private extension Array {
    func repeated(_ times: Int) -> [Element] {
        (0..<times).flatMap { _ in self }
    }
}
