/// kitty's Unicode placeholders: a picture as cells of `U+10EEEE`, each with a combining diacritic
/// for its row and one for its column, coloured with the image's number (kitty's graphics protocol,
/// "Unicode placeholders"). A multiplexer keeps them like any text.
enum KittyPlaceholder {
    /// The protocol's first row and column diacritics, in its order: boxes up to this many cells either way.
    static let diacritics: [Unicode.Scalar] = [
        0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A, 0x034B, 0x034C, 0x0350, 0x0351, 0x0352, 0x0357,
    ].compactMap(Unicode.Scalar.init)

    /// The cell at `row`, `column` of a picture.
    static func cell(row: Int, column: Int) -> Character {
        var text = String.UnicodeScalarView()
        text.append(Unicode.Scalar(0x10EEEE) ?? " ")
        text.append(diacritics[row])
        text.append(diacritics[column])
        return Character(String(text))
    }

    /// `sequence` wrapped for tmux's passthrough: `ESC P tmux;`, the sequence with each ESC doubled, `ESC \`.
    static func throughTmux(_ sequence: [UInt8]) -> [UInt8] {
        var wrapped = Array("\u{1B}Ptmux;".utf8)
        for byte in sequence {
            wrapped.append(byte)
            if byte == 0x1B { wrapped.append(0x1B) }
        }
        return wrapped + Array("\u{1B}\\".utf8)
    }
}
