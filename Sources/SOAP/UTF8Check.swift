/// Checks a UTF-8 document byte by byte before libxml2 sees it, across chunk
/// boundaries.
///
/// libxml2 2.9's push parser checks UTF-8 only where a chunk boundary falls:
/// the same bad bytes stopped a whole parse at one place and a chunked parse
/// at another (`Samples/Fuzz/parse-invalid-utf8-chunking.xml`). This check
/// sees every byte in order, so the first bad one is found, and named by line
/// and column (in characters), whatever the chunking.
///
/// A document that declares another encoding, or starts with a UTF-16 or
/// UTF-32 form, is left to libxml2's converters.
///
/// The document's first kilobyte is held until it has all arrived, and then
/// goes to libxml2 in one piece: the encoding is decided from it before a
/// byte is parsed, and libxml2 meets the XML declaration and its encoding
/// switch in one chunk however the input was cut (fed in small chunks, it
/// placed errors in a UTF-16 declaration elsewhere than fed whole).
struct UTF8Check {
    /// The first byte that is not valid UTF-8.
    struct Failure {
        /// Its offset in the bytes to parse: those before it may still be parsed.
        var offset: Int
        var position: XMLPosition
    }

    /// What the reader hands libxml2 for a chunk.
    enum Admission {
        /// Nothing yet: the first kilobyte is still arriving.
        case hold
        /// The chunk, as far as it is valid.
        case chunk(Failure?)
        /// The held first kilobyte (with this chunk), as far as it is valid.
        case head([UInt8], Failure?)
    }

    /// How much of the document is held before any of it is parsed.
    static let headBytes = 1024

    private enum Mode { case sniffing, checking, off }

    private var mode = Mode.sniffing
    /// The document's first bytes, kept until they show its encoding.
    private var head: [UInt8] = []
    /// Continuation bytes still due in the current sequence, and the range the next one must be in.
    private var due = 0
    private var nextLow: UInt8 = 0x80
    private var nextHigh: UInt8 = 0xBF
    private var line = 1
    /// Bytes since the line began, and how many of them continue a character.
    private var lineBytes = 0
    private var lineContinuations = 0
    /// An ASCII block whose last newline began the line, not yet looked for:
    /// `lineBytes` counts from the block's start until it is (`settleLine()`),
    /// when a position is wanted or the chunk ends. Blocks with newlines are
    /// most of a document's; a chunk has one last.
    private var unsettledBlock: UnsafeRawPointer?

    /// Takes the next chunk: what to parse of it, and the first bad byte.
    mutating func admit(_ bytes: UnsafeRawBufferPointer) -> Admission {
        switch mode {
        case .off:
            return .chunk(nil)
        case .checking:
            return .chunk(scan(bytes))
        case .sniffing:
            head.append(contentsOf: bytes)
            return head.count < Self.headBytes ? .hold : releaseHead()
        }
    }

    /// At the end of the document: the head, if it is still held (a document
    /// shorter than a kilobyte).
    mutating func finish() -> Admission {
        mode == .sniffing && !head.isEmpty ? releaseHead() : .chunk(nil)
    }

    private mutating func releaseHead() -> Admission {
        // Too short to tell, or a declaration still open: UTF-8, as XML's default.
        let isUTF8 = Self.isUTF8(head) ?? true
        mode = isUTF8 ? .checking : .off
        let held = head
        head = []
        return .head(held, isUTF8 ? held.withUnsafeBytes { scan($0) } : nil)
    }

    /// At the end of the document: a character cut short is an error.
    func end() -> XMLPosition? {
        mode == .checking && due > 0 ? position : nil
    }

    private var position: XMLPosition {
        XMLPosition(line: line, column: lineBytes - lineContinuations + 1)
    }

    private mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Failure? {
        guard let base = bytes.baseAddress else { return nil }
        var index = 0
        while index < bytes.count {
            if due == 0 {
                index = skipASCII(base, from: index, count: bytes.count)
                guard index < bytes.count else { break }
                // Characters past ASCII come in runs (a name in Chinese): the whole run, in one loop.
                var tookCharacters = false
                while index < bytes.count, let length = Self.wholeCharacter(base, at: index, count: bytes.count) {
                    lineBytes += length
                    lineContinuations += length - 1
                    index += length
                    tookCharacters = true
                }
                if tookCharacters { continue }
            }
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if due > 0 {
                guard (nextLow...nextHigh).contains(byte) else { return failure(at: index) }
                due -= 1
                (nextLow, nextHigh) = (0x80, 0xBF)
                lineContinuations += 1
            } else if byte == 0x0A {
                line += 1
                (lineBytes, lineContinuations) = (0, 0)
                unsettledBlock = nil
                index += 1
                continue
            } else if byte >= 0x80 {
                guard let sequence = Self.sequence(lead: byte) else { return failure(at: index) }
                due = sequence.continuations
                (nextLow, nextHigh) = (sequence.first.lowerBound, sequence.first.upperBound)
            }
            lineBytes += 1
            index += 1
        }
        // The chunk's bytes go: its last newline is looked for while they are here.
        settleLine()
        return nil
    }

    private mutating func failure(at index: Int) -> Failure {
        settleLine()
        return Failure(offset: index, position: position)
    }

    /// The well-formed sequences of Unicode's table 3-7 (no overlong forms,
    /// no surrogates, nothing past U+10FFFF): how many continuation bytes
    /// follow a lead byte, and the range of the first (the others are
    /// 0x80...0xBF). Nil for a byte that starts no character.
    @inline(__always)
    private static func sequence(lead: UInt8) -> (continuations: Int, first: ClosedRange<UInt8>)? {
        switch lead {
        case 0xC2...0xDF: (1, 0x80...0xBF)
        case 0xE0: (2, 0xA0...0xBF)
        case 0xED: (2, 0x80...0x9F)
        case 0xE1...0xEF: (2, 0x80...0xBF)
        case 0xF0: (3, 0x90...0xBF)
        case 0xF4: (3, 0x80...0x8F)
        case 0xF1...0xF3: (3, 0x80...0xBF)
        default: nil
        }
    }

    /// The length of a well-formed character past ASCII that lies whole at
    /// `index`, taken in one step; nil sends the bytes through the
    /// byte-by-byte check (an error, or a character cut by the chunk's end).
    @inline(__always)
    private static func wholeCharacter(_ base: UnsafeRawPointer, at index: Int, count: Int) -> Int? {
        guard let sequence = sequence(lead: base.load(fromByteOffset: index, as: UInt8.self)),
            index + sequence.continuations < count,
            sequence.first.contains(base.load(fromByteOffset: index + 1, as: UInt8.self))
        else { return nil }
        // The later continuations are 0x80...0xBF: the top two bits 10.
        func continues(_ offset: Int) -> Bool { base.load(fromByteOffset: index + offset, as: UInt8.self) & 0xC0 == 0x80 }
        guard sequence.continuations < 2 || continues(2), sequence.continuations < 3 || continues(3) else { return nil }
        return sequence.continuations + 1
    }

    /// Steps over ASCII, counting lines; returns where it stopped.
    ///
    /// Most of a document is ASCII, so it goes in blocks of 16-byte vectors.
    /// A block test that fails is not tried again until past that block: the
    /// byte past ASCII is reached a word at a time.
    private mutating func skipASCII(_ base: UnsafeRawPointer, from start: Int, count: Int) -> Int {
        var index = start
        var blocksFrom = start
        while index + 8 <= count {
            // Tested first: text past ASCII comes in runs, and this ends one cheaply.
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            guard word & 0x8080_8080_8080_8080 == 0 else { break }
            if index >= blocksFrom, index + Self.blockBytes <= count {
                if takeASCII(block: base + index) {
                    index += Self.blockBytes
                    continue
                }
                blocksFrom = index + Self.blockBytes
            }
            let newlines = Self.newlineFlags(word)
            if newlines == 0 {
                lineBytes += 8
            } else {
                line += newlines.nonzeroBitCount
                lineBytes = 7 - Self.lastFlagged(newlines)
                lineContinuations = 0
                unsettledBlock = nil
            }
            index += 8
        }
        return index
    }

    /// The block step's size: eight vectors of 16 bytes.
    private static let blockBytes = 128

    /// Counts the lines of a block if it is all ASCII: the column then runs
    /// from its last newline. False, and nothing counted, if it is not.
    @inline(__always)
    private mutating func takeASCII(block: UnsafeRawPointer) -> Bool {
        var any = SIMD16<UInt8>()
        var newlineCounts = SIMD16<UInt8>()
        let newline = SIMD16<UInt8>(repeating: 0x0A)
        // A literal bound, so that the compiler unrolls the eight loads.
        for offset in stride(from: 0, to: 128, by: 16) {
            let bytes = block.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
            any |= bytes
            newlineCounts = newlineCounts.replacing(with: newlineCounts &+ 1, where: bytes .== newline)
        }
        let anyWords = unsafeBitCast(any, to: SIMD2<UInt64>.self)
        guard (anyWords[0] | anyWords[1]) & 0x8080_8080_8080_8080 == 0 else { return false }
        // A lane counts at most 8, so the two words' sum still holds a count
        // per byte, and multiplying adds those bytes up into the top one.
        let counts = unsafeBitCast(newlineCounts, to: SIMD2<UInt64>.self)
        let newlines = Int(((counts[0] &+ counts[1]) &* 0x0101_0101_0101_0101) &>> 56)
        if newlines == 0 {
            lineBytes += Self.blockBytes
        } else {
            line += newlines
            lineBytes = Self.blockBytes
            lineContinuations = 0
            unsettledBlock = block
        }
        return true
    }

    /// Starts the column at the last newline of the unsettled block, found a
    /// vector at a time from the block's end.
    private mutating func settleLine() {
        guard let block = unsettledBlock else { return }
        unsettledBlock = nil
        let newline = SIMD16<UInt8>(repeating: 0x0A)
        var offset = Self.blockBytes - 16
        while offset >= 0 {
            let bytes = block.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
            // Each lane that is a newline is all ones; lanes 0-7 are the first
            // word's bytes in little-endian order, as on every Linux target.
            let matches = unsafeBitCast(bytes .== newline, to: SIMD2<UInt64>.self)
            if matches[1] != 0 {
                lineBytes -= offset + 8 + Self.lastFlagged(matches[1]) + 1
                return
            }
            if matches[0] != 0 {
                lineBytes -= offset + Self.lastFlagged(matches[0]) + 1
                return
            }
            offset -= 16
        }
    }

    /// The high bit of each byte of an ASCII word that is a newline (exact: no carry crosses bytes).
    @inline(__always)
    private static func newlineFlags(_ word: UInt64) -> UInt64 {
        let x = word ^ 0x0A0A_0A0A_0A0A_0A0A
        return ~(((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x | 0x7F7F_7F7F_7F7F_7F7F)
    }

    /// Which byte of a word is the last flagged (by its high bit, or whole):
    /// in little-endian order, the highest.
    @inline(__always)
    private static func lastFlagged(_ flags: UInt64) -> Int {
        (63 - flags.leadingZeroBitCount) / 8
    }

    /// Whether a document starting with `head` is in UTF-8: nil while its
    /// XML declaration is still incomplete.
    static func isUTF8(_ head: [UInt8]) -> Bool? {
        guard head.count >= 4 else { return nil }
        switch (head[0], head[1]) {
        case (0xFE, 0xFF), (0xFF, 0xFE), (0x00, _), (0x3C, 0x00): return false  // UTF-16 or UTF-32
        default: break
        }
        let text = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        let xmlDeclaration = Array("<?xml".utf8)
        guard text.starts(with: xmlDeclaration) else {
            return xmlDeclaration.starts(with: text) ? nil : true
        }
        let close = text.firstRange(of: Array("?>".utf8))
        // A declaration can be padded with any amount of white space: past
        // 512 bytes, what has arrived decides.
        guard close != nil || head.count >= 512 else { return nil }
        let declaration = String(decoding: text[..<(close?.lowerBound ?? text.endIndex)], as: UTF8.self)
        guard let encoding = declaredEncoding(declaration) else { return true }
        return ["utf-8", "utf8", "us-ascii", "ascii"].contains(encoding.lowercased())
    }

    /// The value of `encoding="…"` in an XML declaration.
    private static func declaredEncoding(_ declaration: String) -> String? {
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == "=" || $0.isWhitespace }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }
}
