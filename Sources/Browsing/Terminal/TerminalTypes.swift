/// A colour as a terminal takes it in SGR: 24-bit, or an index into the 256-colour palette.
public enum TerminalColor: Hashable, Sendable {
    case rgb(UInt8, UInt8, UInt8)
    case indexed(UInt8)
}

/// How a cell's character is drawn.
public struct CellStyle: Hashable, Sendable {
    public var foreground: TerminalColor?
    public var background: TerminalColor?
    public var bold = false
    public var dim = false
    public var inverse = false
    public var underline = false

    public init(
        foreground: TerminalColor? = nil, background: TerminalColor? = nil,
        bold: Bool = false, dim: Bool = false, inverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.inverse = inverse
        self.underline = underline
    }

    public static let plain = CellStyle()
}

/// One character cell of the screen.
public struct Cell: Hashable, Sendable {
    /// What the cell shows. A wide character (most CJK) takes its cell and
    /// the next; the next holds ``Cell/continuation``.
    public var character: Character
    public var style: CellStyle

    public init(_ character: Character, style: CellStyle = .plain) {
        self.character = character
        self.style = style
    }

    public static let blank = Cell(" ")
    /// The right half of a wide character: drawn by the cell to its left.
    public static let continuation = Cell("\u{0}")
}

/// Asks the terminal something and reads its answer: the device-attributes
/// query that tells which graphics it draws. ``Terminal`` does it on the
/// real terminal; tests answer from a script.
public protocol TerminalQuerying {
    /// Writes `query`, then reads until `isComplete` says the answer is
    /// whole or `timeout` passes; returns what was read (maybe nothing).
    func ask(_ query: [UInt8], timeout: Duration, isComplete: ([UInt8]) -> Bool) -> [UInt8]
}
