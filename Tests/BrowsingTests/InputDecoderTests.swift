import Testing

@testable import Browsing

private func decode(_ text: String) -> [InputEvent] {
    var decoder = InputDecoder()
    return decoder.feed(Array(text.utf8))
}

private func keys(_ keys: Key...) -> [InputEvent] { keys.map { .key($0) } }

@Suite struct InputDecoderTests {
    @Test(arguments: [
        ("\u{1B}[A", Key.up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\u{1B}OA", .up), ("\u{1B}OB", .down), ("\u{1B}OC", .right), ("\u{1B}OD", .left),
        ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
        ("\u{1B}[H", .home), ("\u{1B}[F", .end), ("\u{1B}[1~", .home), ("\u{1B}[4~", .end),
        ("\u{1B}[7~", .home), ("\u{1B}[8~", .end), ("\u{1B}OH", .home), ("\u{1B}OF", .end),
        ("\u{1B}[1;5A", .up), ("\u{1B}[1;2B", .down), ("\u{1B}[5;5~", .pageUp), ("\u{1B}[1;3H", .home),
        ("\r", .enter), ("\n", .enter), ("\u{7F}", .backspace), ("\u{08}", .backspace), ("\t", .tab),
        ("\u{01}", .control("a")), ("\u{05}", .control("e")), ("\u{1A}", .control("z")),
        ("a", .character("a")), ("Z", .character("Z")), (" ", .character(" ")), ("~", .character("~")),
    ])
    func keyForms(input: String, key: Key) {
        #expect(decode(input) == [.key(key)])
    }

    @Test func loneEscapeWaitsForFlush() {
        var decoder = InputDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.hasPending)
        #expect(decoder.flush() == keys(.escape))
        #expect(!decoder.hasPending)
    }

    @Test func escapeFollowedByAnotherKey() {
        // Esc then a letter in one read (Alt-x): Escape, then the letter.
        #expect(decode("\u{1B}x") == keys(.escape, .character("x")))
        #expect(decode("\u{1B}\u{1B}[A") == keys(.escape, .up))
    }

    @Test func sequencesSplitAcrossFeeds() {
        let sequences = ["\u{1B}[A", "\u{1B}OB", "\u{1B}[5~", "\u{1B}[1;5C", "\u{1B}[<0;10;5M", "\u{1B}[M`!!"]
        for sequence in sequences {
            let bytes = Array(sequence.utf8)
            let whole = decode(sequence)
            #expect(whole.count == 1, "\(sequence.debugDescription) decodes to one event")
            for cut in 1..<bytes.count {
                var decoder = InputDecoder()
                let first = decoder.feed(Array(bytes[..<cut]))
                #expect(first.isEmpty, "cut at \(cut) of \(sequence.debugDescription)")
                #expect(decoder.hasPending)
                let second = decoder.feed(Array(bytes[cut...]))
                #expect(second == whole, "cut at \(cut) of \(sequence.debugDescription)")
                #expect(!decoder.hasPending)
            }
        }
    }

    @Test func byteByByteStream() {
        let stream = "a\u{1B}[Bé上\u{1B}[<65;3;4M\r"
        var decoder = InputDecoder()
        var events: [InputEvent] = []
        for byte in stream.utf8 { events += decoder.feed([byte]) }
        #expect(
            events == [
                .key(.character("a")), .key(.down), .key(.character("é")), .key(.character("上")),
                .mouse(MouseEvent(kind: .wheelDown, column: 2, row: 3)), .key(.enter),
            ])
    }

    @Test func utf8SplitAcrossFeeds() {
        for text in ["é", "上", "🏨"] {
            let bytes = Array(text.utf8)
            for cut in 1..<bytes.count {
                var decoder = InputDecoder()
                #expect(decoder.feed(Array(bytes[..<cut])).isEmpty)
                #expect(decoder.feed(Array(bytes[cut...])) == [.key(.character(Character(text)))])
            }
        }
    }

    @Test func invalidUTF8IsDropped() {
        var decoder = InputDecoder()
        // Stray continuation, overlong "/", surrogate, invalid lead, then valid keys.
        let events = decoder.feed([0x80, 0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xFF, 0x61, 0xE4, 0x62])
        // 0xE4 followed by 'b' (not a continuation): the lead is dropped, 'b' survives.
        #expect(events == keys(.character("a"), .character("b")))
        // A cut-off character at the end is dropped by flush.
        #expect(decoder.feed([0xE4, 0xB8]).isEmpty)
        #expect(decoder.flush().isEmpty)
        #expect(!decoder.hasPending)
    }

    @Test func sgrMouse() {
        #expect(decode("\u{1B}[<64;10;5M") == [.mouse(MouseEvent(kind: .wheelUp, column: 9, row: 4))])
        #expect(decode("\u{1B}[<65;1;1M") == [.mouse(MouseEvent(kind: .wheelDown, column: 0, row: 0))])
        #expect(decode("\u{1B}[<0;120;40M") == [.mouse(MouseEvent(kind: .press(button: 0), column: 119, row: 39))])
        #expect(decode("\u{1B}[<2;3;4M") == [.mouse(MouseEvent(kind: .press(button: 2), column: 2, row: 3))])
        #expect(decode("\u{1B}[<32;7;8M") == [.mouse(MouseEvent(kind: .drag(button: 0), column: 6, row: 7))])
        #expect(decode("\u{1B}[<0;7;8m") == [.mouse(MouseEvent(kind: .release, column: 6, row: 7))])
        // Ctrl held (+16) is still a press.
        #expect(decode("\u{1B}[<16;2;2M") == [.mouse(MouseEvent(kind: .press(button: 0), column: 1, row: 1))])
        // Large coordinates (beyond X10's 223).
        #expect(decode("\u{1B}[<0;300;250M") == [.mouse(MouseEvent(kind: .press(button: 0), column: 299, row: 249))])
    }

    @Test func x10Mouse() {
        // ESC [ M, then button+32, column+33, row+33 (0-based).
        #expect(decode("\u{1B}[M`*%") == [.mouse(MouseEvent(kind: .wheelUp, column: 9, row: 4))])
        #expect(decode("\u{1B}[Ma!!") == [.mouse(MouseEvent(kind: .wheelDown, column: 0, row: 0))])
        #expect(decode("\u{1B}[M !!") == [.mouse(MouseEvent(kind: .press(button: 0), column: 0, row: 0))])
        #expect(decode("\u{1B}[M#!!") == [.mouse(MouseEvent(kind: .release, column: 0, row: 0))])
    }

    @Test func malformedSequencesDoNotEatValidInput() {
        // Unknown final, private answers, bad SGR mouse, an ESC inside a CSI, a control byte inside.
        #expect(decode("\u{1B}[99zq") == keys(.character("q")))
        #expect(decode("\u{1B}[?62;4c\u{1B}[A") == keys(.up))
        #expect(decode("\u{1B}[<1;2Mx") == keys(.character("x")))
        #expect(decode("\u{1B}[<;;M\u{1B}[B") == keys(.down))
        #expect(decode("\u{1B}[12\u{1B}[A") == keys(.up))
        #expect(decode("\u{1B}[3\r") == keys(.enter))
        #expect(decode("\u{1B}O\u{1B}OB") == keys(.down))
        #expect(decode("\u{1B}[3~\u{1B}[200~hi\u{1B}[201~") == keys(.character("h"), .character("i")))
        #expect(decode("\u{1B}[99999999999999999999999999999;1~k") == keys(.character("k")))
        #expect(decode("\u{1B}[<64;99999999999999999999;1Mk") == keys(.character("k")))
    }

    @Test func endlessParameterListIsDropped() {
        var decoder = InputDecoder()
        #expect(decoder.feed(Array("\u{1B}[".utf8) + Array(repeating: UInt8(ascii: "1"), count: 100)).isEmpty)
        #expect(!decoder.hasPending)
        #expect(decoder.feed(Array("\u{1B}[A".utf8)) == keys(.up))
    }

    @Test func flushOfCutSequence() {
        var decoder = InputDecoder()
        #expect(decoder.feed(Array("\u{1B}[".utf8)).isEmpty)
        // No final byte came: Escape, then "[" as typed.
        #expect(decoder.flush() == keys(.escape, .character("[")))
    }

    /// Terminal answers that may arrive after their query gave up: none is a key.
    static let controlStrings = [
        "\u{1B}_Gi=31;OK\u{1B}\\",  // kitty graphics reply (APC)
        "\u{1B}_Gi=31;EINVAL:bad image\u{1B}\\",
        "\u{1B}P>|kitty(0.35.2)\u{1B}\\",  // XTVERSION (DCS)
        "\u{1B}P1$r0m\u{1B}\\",  // DECRQSS (DCS)
        "\u{1B}]11;rgb:1e1e/1e1e/2e2e\u{07}",  // OSC colour, BEL-terminated
        "\u{1B}]10;rgb:ffff/ffff/ffff\u{1B}\\",  // OSC colour, ST-terminated
        "\u{1B}Xsos\u{1B}\\", "\u{1B}^pm\u{1B}\\",
        "\u{1B}[?62;4;22c", "\u{1B}[?1;2c",  // DA1 replies
    ]

    @Test(arguments: controlStrings)
    func terminalAnswersAreDropped(answer: String) {
        #expect(decode("a" + answer + "q") == keys(.character("a"), .character("q")))
        #expect(decode(answer + "\u{1B}[A") == keys(.up))
        // Cut anywhere across two reads, the answer still makes no keys.
        let bytes = Array(("j" + answer + "k").utf8)
        for cut in 1..<bytes.count {
            var decoder = InputDecoder()
            let events = decoder.feed(Array(bytes[..<cut])) + decoder.feed(Array(bytes[cut...]))
            #expect(events == keys(.character("j"), .character("k")), "cut at \(cut) of \(answer.debugDescription)")
            #expect(!decoder.hasPending)
        }
        var decoder = InputDecoder()
        var events: [InputEvent] = []
        for byte in bytes { events += decoder.feed([byte]) }
        #expect(events == keys(.character("j"), .character("k")), "byte by byte: \(answer.debugDescription)")
    }

    @Test func escapeInsideAStringEndsIt() {
        // The terminator was lost: the ESC starts the next sequence, nothing is swallowed.
        #expect(decode("\u{1B}]0;title\u{1B}[A") == keys(.up))
        #expect(decode("\u{1B}_Gi=1\u{1B}x") == keys(.escape, .character("x")))
    }

    @Test func unterminatedStringIsCapped() {
        let cap = InputDecoder.maxStringLength
        // In one read: the first `cap` bytes are dropped, the rest decoded as typed.
        var decoder = InputDecoder()
        let events = decoder.feed(Array("\u{1B}]".utf8) + Array(repeating: UInt8(ascii: "a"), count: 10_000))
        #expect(events.count == 10_002 - cap)
        #expect(events.allSatisfy { $0 == .key(.character("a")) })
        #expect(!decoder.hasPending)
        // In many reads: held until the cap, then dropped, and keys flow again.
        var chunked = InputDecoder()
        #expect(chunked.feed(Array("\u{1B}_G".utf8)).isEmpty)
        var held: [InputEvent] = []
        for _ in 0..<40 { held += chunked.feed(Array(repeating: UInt8(ascii: "x"), count: 100)) }
        #expect(held.isEmpty)
        #expect(chunked.hasPending)
        let after = chunked.feed(Array(repeating: UInt8(ascii: "x"), count: 200))
        #expect(after.count == 3 + 4_200 - cap)
        #expect(chunked.feed(Array("\u{1B}[B".utf8)) == keys(.down))
        #expect(!chunked.hasPending)
    }

    @Test func flushDropsACutOffString() {
        var decoder = InputDecoder()
        #expect(decoder.feed(Array("\u{1B}_Gi=31;O".utf8)).isEmpty)
        #expect(decoder.hasPending)
        #expect(decoder.flush().isEmpty)
        #expect(!decoder.hasPending)
        #expect(decoder.feed(Array("q".utf8)) == keys(.character("q")))
        // A string cut right before its ST's backslash is dropped too.
        #expect(decoder.feed(Array("\u{1B}P>|x\u{1B}".utf8)).isEmpty)
        #expect(decoder.flush().isEmpty)
    }

    @Test func randomBytesNeverCrash() {
        var generator = TerminalTestRandom(seed: 7)
        var decoder = InputDecoder()
        for _ in 0..<2000 {
            let count = Int(generator.next() % 12)
            let bytes = (0..<count).map { _ in
                // Biased towards bytes that start and continue sequences.
                let pool: [UInt8] = [
                    0x1B, 0x5B, 0x4F, 0x3C, 0x3B, 0x4D, 0x6D, 0x7E, 0x31, 0x35, 0xE4, 0xB8, 0x80,
                    0x5D, 0x50, 0x5F, 0x5C, 0x07,
                ]
                let r = generator.next()
                return r % 3 == 0 ? UInt8(truncatingIfNeeded: r >> 8) : pool[Int(r >> 8) % pool.count]
            }
            _ = decoder.feed(bytes)
            if generator.next() % 5 == 0 { _ = decoder.flush() }
        }
        _ = decoder.flush()
        #expect(!decoder.hasPending)
        #expect(decoder.feed(Array("\u{1B}[A".utf8)) == keys(.up))
    }
}

/// A small deterministic generator for the randomized tests.
struct TerminalTestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
