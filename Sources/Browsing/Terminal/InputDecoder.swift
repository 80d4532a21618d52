/// A key the browse view reacts to.
public enum Key: Hashable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end, enter, escape, backspace, tab
    /// A printable character (one Unicode scalar as typed).
    case character(Character)
    /// Ctrl with a letter or symbol: Ctrl-A is `.control("a")`. Ctrl-H, Ctrl-I,
    /// Ctrl-J and Ctrl-M arrive as backspace, tab and enter, as the terminal sends them.
    case control(Character)
}

/// A mouse report (SGR or legacy X10 encoding).
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// Button 0 is left, 1 middle, 2 right.
        case press(button: Int)
        /// Motion with a button held (mode 1002).
        case drag(button: Int)
        case release
        case wheelUp
        case wheelDown
    }

    public var kind: Kind
    /// 0-based.
    public var column: Int
    /// 0-based.
    public var row: Int

    public init(kind: Kind, column: Int, row: Int) {
        self.kind = kind
        self.column = column
        self.row = row
    }
}

/// What the user did.
public enum InputEvent: Hashable, Sendable {
    case key(Key)
    case mouse(MouseEvent)
}

/// Turns the bytes a terminal in raw mode sends into events.
///
/// Escape sequences and UTF-8 characters may be split across reads, so an
/// incomplete one is kept for the next ``feed(_:)``. A lone ESC cannot be told
/// from the start of a sequence until time passes: the caller calls
/// ``flush()`` after a short quiet pause when ``hasPending`` is true.
public struct InputDecoder: Sendable {
    private var buffer: [UInt8] = []

    /// A sequence longer than this without its final byte is garbage, not a
    /// slow terminal: it is dropped so it cannot swallow input forever.
    private static let maxSequenceLength = 64

    /// The longest control string (APC, DCS, OSC, SOS, PM) kept waiting for
    /// its terminator. Terminal answers are far shorter; past this, the
    /// terminator is taken to be lost, the string is dropped, and decoding
    /// goes on with the bytes after it, so input is not swallowed forever.
    static let maxStringLength = 4096

    public init() {}

    /// Decodes what it can; keeps an incomplete escape sequence or UTF-8 sequence for the next call.
    public mutating func feed(_ bytes: [UInt8]) -> [InputEvent] {
        buffer.append(contentsOf: bytes)
        return decode(final: false)
    }

    /// Whether a lone ESC (or partial sequence) is pending; the caller calls
    /// ``flush()`` after a short pause (~30 ms) with no more bytes, which turns
    /// a lone ESC into `.key(.escape)`.
    public var hasPending: Bool { !buffer.isEmpty }

    /// Decodes what is pending as if no more bytes will come: a lone ESC is
    /// the Escape key, a cut-off sequence is ESC followed by its bytes as
    /// typed characters, and a cut-off UTF-8 character or control string
    /// is dropped.
    public mutating func flush() -> [InputEvent] {
        decode(final: true)
    }

    // MARK: - Decoding

    /// The outcome of decoding at one position.
    private enum Step {
        /// Consumed `count` bytes, producing `event` (nil: dropped).
        case consumed(Int, InputEvent?)
        /// Needs more bytes than there are.
        case incomplete
    }

    private mutating func decode(final: Bool) -> [InputEvent] {
        var events: [InputEvent] = []
        var i = 0
        let bytes = buffer
        while i < bytes.count {
            switch Self.step(bytes, at: i) {
            case .consumed(let count, let event):
                if let event { events.append(event) }
                i += count
            case .incomplete:
                if !final {
                    // A control string has its own cap, applied by `controlString`.
                    if Self.isControlString(bytes, at: i) || bytes.count - i < Self.maxSequenceLength {
                        buffer = Array(bytes[i...])
                    } else {
                        buffer.removeAll()  // an endless parameter list: garbage
                    }
                    return events
                }
                // A cut-off control string is a terminal answer that paused
                // mid-way (or an Alt-key nothing uses): its bytes are not keys.
                if Self.isControlString(bytes, at: i) {
                    i = bytes.count  // incomplete means no end anywhere in the rest
                    continue
                }
                // No more bytes are coming (or never will): an ESC is the
                // Escape key and what followed it is decoded on its own;
                // a cut-off UTF-8 lead byte is dropped.
                if bytes[i] == 0x1B { events.append(.key(.escape)) }
                i += 1
            }
        }
        buffer.removeAll(keepingCapacity: true)
        return events
    }

    private static func step(_ b: [UInt8], at i: Int) -> Step {
        let byte = b[i]
        switch byte {
        case 0x1B:
            return escape(b, at: i)
        case 0x0D, 0x0A:
            return .consumed(1, .key(.enter))
        case 0x09:
            return .consumed(1, .key(.tab))
        case 0x7F, 0x08:
            return .consumed(1, .key(.backspace))
        case 0x00:
            return .consumed(1, .key(.control("@")))
        case 0x01...0x1A:
            // Ctrl-A … Ctrl-Z, reported as the lowercase letter.
            return .consumed(1, .key(.control(Character(Unicode.Scalar(byte + 0x60)))))
        case 0x1C...0x1F:
            return .consumed(1, .key(.control(Character(Unicode.Scalar(byte + 0x40)))))
        case 0x20...0x7E:
            return .consumed(1, .key(.character(Character(Unicode.Scalar(byte)))))
        default:
            return utf8(b, at: i)
        }
    }

    private static func utf8(_ b: [UInt8], at i: Int) -> Step {
        let lead = b[i]
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            value = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            value = UInt32(lead & 0x0F)
        case 0xF0...0xF4:
            length = 4
            value = UInt32(lead & 0x07)
        default: return .consumed(1, nil)  // stray continuation byte or invalid lead
        }
        for k in 1..<length {
            guard i + k < b.count else { return .incomplete }
            let next = b[i + k]
            // Not a continuation byte: drop the lead only, the byte starts something new.
            guard next & 0xC0 == 0x80 else { return .consumed(k, nil) }
            value = value << 6 | UInt32(next & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return .consumed(length, nil) }
        // C1 controls (U+0080…U+009F) are not characters one can type.
        if value < 0xA0 { return .consumed(length, nil) }
        return .consumed(length, .key(.character(Character(scalar))))
    }

    private static func escape(_ b: [UInt8], at i: Int) -> Step {
        guard i + 1 < b.count else { return .incomplete }
        switch b[i + 1] {
        case UInt8(ascii: "["):
            return csi(b, at: i)
        case UInt8(ascii: "O"):
            return ss3(b, at: i)
        case UInt8(ascii: "]"):
            return controlString(b, at: i, bellEnds: true)
        case UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "X"), UInt8(ascii: "^"):
            return controlString(b, at: i, bellEnds: false)
        default:
            // ESC then something else (Alt-key, or ESC pressed twice): the
            // Escape key; the next byte is decoded on its own.
            return .consumed(1, .key(.escape))
        }
    }

    /// Whether `ESC` at `i` opens a control string (DCS `P`, SOS `X`, OSC `]`, PM `^`, APC `_`).
    private static func isControlString(_ b: [UInt8], at i: Int) -> Bool {
        guard b[i] == 0x1B, i + 1 < b.count else { return false }
        return [UInt8(ascii: "P"), UInt8(ascii: "X"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "_")].contains(b[i + 1])
    }

    /// A control string: DCS, SOS, PM or APC up to ST (`ESC \`), OSC up to
    /// ST or BEL. Only terminals send these (answers to queries, such as a
    /// kitty graphics reply `ESC _Gi=31;OK ESC \` that came after its
    /// query gave up), never keys: the whole string is dropped. An ESC not
    /// followed by `\` ends the string without being part of it (the
    /// terminator was lost; the ESC starts what comes next). A string longer
    /// than ``maxStringLength`` without an end is dropped up to there.
    private static func controlString(_ b: [UInt8], at i: Int, bellEnds: Bool) -> Step {
        var j = i + 2
        while j < b.count {
            if j - i >= maxStringLength { return .consumed(j - i, nil) }
            switch b[j] {
            case 0x07 where bellEnds:
                return .consumed(j - i + 1, nil)
            case 0x1B:
                guard j + 1 < b.count else { return .incomplete }
                return b[j + 1] == UInt8(ascii: "\\") ? .consumed(j - i + 2, nil) : .consumed(j - i, nil)
            default:
                j += 1
            }
        }
        return j - i >= maxStringLength ? .consumed(j - i, nil) : .incomplete
    }

    /// `ESC O` then an optional parameter and a final byte.
    private static func ss3(_ b: [UInt8], at i: Int) -> Step {
        var j = i + 2
        while j < b.count, (0x30...0x3F).contains(b[j]) { j += 1 }
        guard j < b.count else { return .incomplete }
        let final = b[j]
        guard (0x40...0x7E).contains(final) else {
            // Malformed: drop the introducer, keep the byte that broke it.
            return .consumed(j - i, nil)
        }
        let key = final == UInt8(ascii: "M") ? .enter : cursorKey(final)  // M: keypad Enter
        return .consumed(j - i + 1, key.map { .key($0) })
    }

    private static func csi(_ b: [UInt8], at i: Int) -> Step {
        let start = i + 2
        guard start < b.count else { return .incomplete }
        // Legacy X10 mouse: ESC [ M then three bytes, each value + 32.
        if b[start] == UInt8(ascii: "M") {
            guard start + 3 < b.count else { return .incomplete }
            let event = x10Mouse(b[start + 1], b[start + 2], b[start + 3])
            return .consumed(6, event.map { .mouse($0) })
        }
        var j = start
        while j < b.count, (0x30...0x3F).contains(b[j]) { j += 1 }  // parameters
        while j < b.count, (0x20...0x2F).contains(b[j]) { j += 1 }  // intermediates
        guard j < b.count else { return .incomplete }
        let final = b[j]
        guard (0x40...0x7E).contains(final) else {
            // Malformed (an ESC or control byte inside): drop what came
            // before it and decode that byte afresh, so no valid input is lost.
            return .consumed(j - i, nil)
        }
        let count = j - i + 1
        let parameterBytes = b[start..<j]
        if parameterBytes.first == UInt8(ascii: "<") {
            guard final == UInt8(ascii: "M") || final == UInt8(ascii: "m") else { return .consumed(count, nil) }
            let event = sgrMouse(parameters(parameterBytes.dropFirst()), released: final == UInt8(ascii: "m"))
            return .consumed(count, event.map { .mouse($0) })
        }
        // Private sequences (`?`, `>`, `=`) are answers to queries, not keys.
        if let first = parameterBytes.first, (0x3C...0x3F).contains(first) { return .consumed(count, nil) }
        let params = parameters(parameterBytes)
        let key: Key?
        switch final {
        case UInt8(ascii: "~"):
            switch params.first ?? nil {
            case 1, 7: key = .home
            case 4, 8: key = .end
            case 5: key = .pageUp
            case 6: key = .pageDown
            default: key = nil  // insert, delete, function keys, paste markers 200/201
            }
        default: key = cursorKey(final)
        }
        return .consumed(count, key.map { .key($0) })
    }

    /// The arrows, Home and End, by the final byte CSI and SS3 share.
    private static func cursorKey(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }

    /// Semicolon-separated decimal numbers; an empty or oversized one is nil.
    private static func parameters(_ bytes: ArraySlice<UInt8>) -> [Int?] {
        var result: [Int?] = []
        var current: Int? = nil
        var valid = true
        for byte in bytes {
            if byte == UInt8(ascii: ";") {
                result.append(valid ? current : nil)
                current = nil
                valid = true
            } else if (0x30...0x39).contains(byte) {
                let value = (current ?? 0) * 10 + Int(byte - 0x30)
                // Caps the value so hostile input cannot overflow.
                if value > 99_999 { valid = false } else { current = value }
            } else {
                valid = false  // ':' sub-parameters and the like
            }
        }
        result.append(valid ? current : nil)
        return result
    }

    private static func sgrMouse(_ params: [Int?], released: Bool) -> MouseEvent? {
        guard params.count == 3, let code = params[0], let x = params[1], let y = params[2] else { return nil }
        return mouse(code: code, column: x - 1, row: y - 1, released: released)
    }

    private static func x10Mouse(_ cb: UInt8, _ cx: UInt8, _ cy: UInt8) -> MouseEvent? {
        guard cb >= 32, cx >= 33, cy >= 33 else { return nil }
        let code = Int(cb) - 32
        // X10 has no release button number: low bits 3 mean "released".
        let released = code & 0x43 == 3
        return mouse(code: code, column: Int(cx) - 33, row: Int(cy) - 33, released: released)
    }

    private static func mouse(code: Int, column: Int, row: Int, released: Bool) -> MouseEvent? {
        let column = max(0, column)
        let row = max(0, row)
        let button = code & 3
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            // Wheel; buttons 6 and 7 (horizontal wheel) are ignored. Wheel has no release.
            guard !released, code & 128 == 0 else { return nil }
            switch button {
            case 0: kind = .wheelUp
            case 1: kind = .wheelDown
            default: return nil
            }
        } else if code & 128 != 0 {
            return nil  // buttons 8–11
        } else if released {
            kind = .release
        } else if code & 32 != 0 {
            guard button != 3 else { return nil }  // motion with no button held
            kind = .drag(button: button)
        } else {
            guard button != 3 else { return nil }
            kind = .press(button: button)
        }
        return MouseEvent(kind: kind, column: column, row: row)
    }
}
