/// How logos are drawn.
public enum GraphicsMode: String, Sendable, CaseIterable {
    /// kitty's graphics protocol (kitty, Ghostty, Konsole, WezTerm when enabled).
    case kitty
    /// DEC sixels (xterm -ti vt340, foot, mlterm, WezTerm, Windows Terminal, VTE builds with sixel).
    case sixel
    /// iTerm2's inline images (`OSC 1337;File=`): iTerm2, WezTerm.
    case iterm
    /// Block characters coloured with SGR, drawn in the screen buffer like text.
    case symbols
    /// No logos at all.
    case none
}

/// Colours for symbols mode.
public enum SymbolColors: String, Sendable {
    /// 24-bit SGR colours (`COLORTERM=truecolor` or `24bit`).
    case truecolor
    /// The xterm 256-colour palette, which nearly every terminal takes.
    case indexed256
}

/// What the terminal can draw, and why that was decided.
public struct GraphicsSupport: Sendable, Equatable {
    /// The protocol logos are drawn with.
    public var mode: GraphicsMode
    /// The colours symbols mode uses (also for placeholders in pixel modes).
    public var colors: SymbolColors
    /// Why this was chosen, in a few words, for `--verbose` and the status line.
    public var reason: String
    /// kitty graphics from inside tmux: sent through tmux's passthrough, and shown as Unicode
    /// placeholder cells (`U+10EEEE`), which tmux keeps in its grid, scrolls and clears like text.
    public var throughTmux: Bool

    public init(mode: GraphicsMode, colors: SymbolColors, reason: String, throughTmux: Bool = false) {
        self.mode = mode
        self.colors = colors
        self.reason = reason
        self.throughTmux = throughTmux
    }
}

/// Finds out which graphics protocol the terminal speaks: from the
/// environment when that is certain, else by asking the terminal.
public enum GraphicsDetection {
    private static let escape: UInt8 = 0x1B

    /// The colours from `COLORTERM`: truecolor when it says so, else 256 colours.
    public static func colors(_ environment: [String: String]) -> SymbolColors {
        switch environment["COLORTERM"]?.lowercased() {
        case "truecolor", "24bit": .truecolor
        default: .indexed256
        }
    }

    /// Decides from the environment alone when it can; nil when the terminal must be asked.
    ///
    /// Order matters: tmux and screen come first because they pass the outer
    /// terminal's variables (`KITTY_WINDOW_ID`, `TERM_PROGRAM`) through to the
    /// shell, yet without passthrough they swallow or mangle graphics.
    public static func fromEnvironment(_ environment: [String: String]) -> GraphicsSupport? {
        let colors = colors(environment)
        let term = environment["TERM"] ?? ""
        func support(_ mode: GraphicsMode, _ reason: String) -> GraphicsSupport {
            GraphicsSupport(mode: mode, colors: colors, reason: reason)
        }

        if let tmux = environment["TMUX"], !tmux.isEmpty {
            return support(.symbols, "inside tmux (TMUX is set): no graphics passthrough")
        }
        if term.hasPrefix("screen") || term.hasPrefix("tmux") {
            return support(.symbols, "TERM=\(term): a multiplexer, no graphics passthrough")
        }
        if let window = environment["KITTY_WINDOW_ID"], !window.isEmpty {
            return support(.kitty, "KITTY_WINDOW_ID is set: kitty")
        }
        if term == "xterm-kitty" {
            return support(.kitty, "TERM=xterm-kitty")
        }
        if term == "xterm-ghostty" || environment["TERM_PROGRAM"] == "ghostty" {
            return support(.kitty, "Ghostty draws kitty graphics")
        }
        switch environment["TERM_PROGRAM"] {
        case "iTerm.app":
            return support(.iterm, "TERM_PROGRAM=iTerm.app")
        case "WezTerm":
            // WezTerm's kitty graphics are off by default; its iTerm2 images are always on.
            return support(.iterm, "TERM_PROGRAM=WezTerm: iTerm2 images")
        case "Apple_Terminal":
            // Terminal.app has no image protocol, and may show the APC query as text.
            return support(.symbols, "TERM_PROGRAM=Apple_Terminal: no graphics")
        default:
            break
        }
        if environment["LC_TERMINAL"] == "iTerm2" {
            // Set by iTerm2 and forwarded over ssh, where TERM_PROGRAM is not.
            return support(.iterm, "LC_TERMINAL=iTerm2")
        }
        if term == "dumb" {
            // A dumb terminal takes neither escapes nor colours.
            return support(.none, "TERM=dumb")
        }
        if term == "linux" {
            // The console maps 256-colour SGR to its 16 colours and would print an APC query as text.
            return GraphicsSupport(mode: .symbols, colors: .indexed256, reason: "TERM=linux: the Linux console")
        }
        return nil
    }

    /// The query: kitty's graphics query (a 1×1 RGB image that is checked but
    /// not stored), then primary device attributes, so every terminal
    /// answers at least the DA1, and answers it last.
    public static let query: [UInt8] =
        Array("\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\".utf8) + Array("\u{1B}[c".utf8)

    /// Whether the answer so far is whole: the DA1 reply `ESC [ ? … c` has arrived.
    public static func isComplete(_ answer: [UInt8]) -> Bool {
        deviceAttributes(in: answer) != nil
    }

    /// Reads the answer to ``query``: kitty's `ESC _Gi=31;OK ESC \` means
    /// kitty graphics; a DA1 listing attribute 4 means sixels; anything else symbols.
    public static func interpret(_ answer: [UInt8], environment: [String: String]) -> GraphicsSupport {
        let colors = colors(environment)
        if kittyAnswerIsOK(answer) {
            return GraphicsSupport(mode: .kitty, colors: colors, reason: "the terminal answered kitty's graphics query OK")
        }
        guard let attributes = deviceAttributes(in: answer) else {
            return GraphicsSupport(mode: .symbols, colors: colors, reason: "no answer to the device attributes query")
        }
        let listed = attributes.map(String.init).joined(separator: ";")
        // The first number is the terminal's class (62 = VT220, 1 = VT100…); the features follow.
        if attributes.dropFirst().contains(4) {
            return GraphicsSupport(mode: .sixel, colors: colors, reason: "device attributes \(listed) list sixels (4)")
        }
        return GraphicsSupport(mode: .symbols, colors: colors, reason: "device attributes \(listed) list no graphics")
    }

    /// Inside tmux (`TMUX` set): kitty graphics through tmux's passthrough when tmux lets escapes
    /// through (`allow-passthrough on` or `all`, tmux 3.3 and later) and the terminal it runs in
    /// draws kitty graphics (its `client_termname`); else symbols, saying what would turn it on.
    /// `tmux` runs a tmux command and gives its output (nil when it fails).
    public static func insideTmux(_ environment: [String: String], tmux: (_ arguments: [String]) -> String?) -> GraphicsSupport {
        let colors = colors(environment)
        let client = tmux(["display-message", "-p", "#{client_termname}"])?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard ["xterm-kitty", "xterm-ghostty"].contains(client) else {
            return GraphicsSupport(
                mode: .symbols, colors: colors,
                reason: "inside tmux, in a terminal (\(client.isEmpty ? "unknown" : client)) not known to draw kitty graphics")
        }
        let passthrough = tmux(["show-options", "-gv", "allow-passthrough"])?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard passthrough == "on" || passthrough == "all" else {
            return GraphicsSupport(
                mode: .symbols, colors: colors,
                reason:
                    "inside tmux without passthrough: tmux set -g allow-passthrough on (tmux 3.3 or later) lets \(client)'s graphics through"
            )
        }
        return GraphicsSupport(
            mode: .kitty, colors: colors, reason: "inside tmux on \(client), allow-passthrough \(passthrough): kitty placeholders",
            throughTmux: true)
    }

    /// Decides how to draw: `override` (from `--graphics`, nil for auto)
    /// wins; then, inside tmux with `tmux` given, what tmux passes through
    /// (``insideTmux(_:tmux:)``); then the environment; else the terminal is
    /// asked, waiting at most `timeout`.
    public static func detect(
        environment: [String: String], terminal: any TerminalQuerying,
        timeout: Duration = .milliseconds(300), override: GraphicsMode? = nil,
        tmux: ((_ arguments: [String]) -> String?)? = nil
    ) -> GraphicsSupport {
        let insideTmux = !(environment["TMUX"] ?? "").isEmpty
        if let override {
            return GraphicsSupport(
                mode: override, colors: colors(environment), reason: "chosen with --graphics \(override.rawValue)",
                throughTmux: override == .kitty && insideTmux)
        }
        if insideTmux, let tmux {
            return Self.insideTmux(environment, tmux: tmux)
        }
        if let decided = fromEnvironment(environment) {
            return decided
        }
        let answer = terminal.ask(query, timeout: timeout, isComplete: isComplete)
        if answer.isEmpty {
            return GraphicsSupport(
                mode: .symbols, colors: colors(environment),
                reason: "no answer from the terminal within \(timeout)")
        }
        return interpret(answer, environment: environment)
    }

    // MARK: - Parsing the answer

    /// The numbers of the first DA1 reply `ESC [ ? n ; n … c` in `bytes`, or nil.
    static func deviceAttributes(in bytes: [UInt8]) -> [Int]? {
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == escape, bytes[index + 1] == UInt8(ascii: "["), bytes[index + 2] == UInt8(ascii: "?") {
                var numbers: [Int] = []
                var current: Int?
                var cursor = index + 3
                scan: while cursor < bytes.count {
                    let byte = bytes[cursor]
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"):
                        // Capped so a hostile answer cannot overflow.
                        current = min((current ?? 0) * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000)
                    case UInt8(ascii: ";"):
                        numbers.append(current ?? 0)
                        current = nil
                    case UInt8(ascii: "c"):
                        if let current { numbers.append(current) }
                        return numbers
                    default:
                        // Another reply (DECRPM's `$y`, for one) that starts the same way.
                        break scan
                    }
                    cursor += 1
                }
            }
            index += 1
        }
        return nil
    }

    /// Whether `bytes` hold kitty's reply to image 31 saying OK: `ESC _G i=31 ; OK ESC \`.
    static func kittyAnswerIsOK(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == escape, bytes[index + 1] == UInt8(ascii: "_"), bytes[index + 2] == UInt8(ascii: "G") {
                var end = index + 3
                while end + 1 < bytes.count, !(bytes[end] == escape && bytes[end + 1] == UInt8(ascii: "\\")) {
                    end += 1
                }
                guard end + 1 < bytes.count else { return false }
                let body = bytes[(index + 3)..<end]
                if let semicolon = body.firstIndex(of: UInt8(ascii: ";")) {
                    let keys = String(decoding: body[body.startIndex..<semicolon], as: UTF8.self).split(separator: ",")
                    let message = String(decoding: body[(semicolon + 1)...], as: UTF8.self)
                    if keys.contains("i=31"), message == "OK" {
                        return true
                    }
                }
                index = end + 2
                continue
            }
            index += 1
        }
        return false
    }
}
