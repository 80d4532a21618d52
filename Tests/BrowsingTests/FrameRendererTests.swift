import Testing
@testable import Browsing

private let esc = "\u{1B}"

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The characters of a frame row, continuation cells left out.
private func rowText(_ frame: Frame, _ row: Int) -> String {
    var s = ""
    for c in 0..<frame.columns where frame[row, c] != .continuation { s.append(frame[row, c].character) }
    return s
}

/// Test image bytes the virtual terminal understands: a DCS (sixel-like) naming the picture, or a kitty
/// transmission (`a=t`, with no id: the renderer gives it one) whose data names it.
private func placement(_ id: String, row: Int, column: Int, columns: Int, rows: Int, kitty: Bool) -> ImagePlacement {
    let bytes = kitty ? "\(esc)_Ga=t,f=32,s=8,v=8,q=2,m=1\(esc)\\\(esc)_Gm=0;\(id)\(esc)\\" : "\(esc)Pq\(id);\(columns);\(rows)\(esc)\\"
    return ImagePlacement(id: id, row: row, column: column, columns: columns, rows: rows, bytes: Array(bytes.utf8), isKitty: kitty)
}

// MARK: - Frame

@Suite struct FrameTests {
    @Test func wideText() {
        var frame = Frame(columns: 20, rows: 2)
        let used = frame.put("上海大酒店", row: 0, column: 1)
        #expect(used == 10)
        #expect(frame[0, 1].character == "上")
        #expect(frame[0, 2] == .continuation)
        #expect(frame[0, 9].character == "店")
        #expect(frame[0, 10] == .continuation)
        #expect(frame[0, 11] == .blank)
        #expect(displayWidth(of: "上海大酒店") == 10)
        #expect(displayWidth(of: "Hôtel") == 5)
        #expect(displayWidth(of: "e\u{301}") == 1)
        #expect(displayWidth(of: "한국") == 4)
        #expect(displayWidth(of: "🏨") == 2)
        #expect(displayWidth(of: "ＡＢ") == 4)
    }

    @Test func clipping() {
        var frame = Frame(columns: 8, rows: 1)
        // Clip at 5 columns: the third wide character would straddle the edge and becomes a space.
        let used = frame.put("上海大酒店", row: 0, column: 0, maxColumns: 5)
        #expect(used == 5)
        #expect(rowText(frame, 0) == "上海    ")
        #expect(frame[0, 5] == .blank)
        // At the right edge of the frame.
        var edge = Frame(columns: 5, rows: 1)
        edge.put("abcd上", row: 0, column: 0)
        #expect(rowText(edge, 0) == "abcd ")
        // Off the left edge and outside the frame: nothing crashes.
        edge.put("xyz", row: 0, column: -2)
        #expect(rowText(edge, 0) == "zbcd ")
        edge.put("xyz", row: 3, column: 0)
        edge.put("xyz", row: -1, column: 0)
        edge[9, 9] = Cell("q")
        edge.put("xyz", row: 0, column: Int.max, maxColumns: Int.max)
        edge.put("xyz", row: 0, column: Int.min, maxColumns: Int.max)
        edge.fill(row: Int.min, column: Int.min, columns: Int.max, rows: Int.max, with: Cell("g"))  // ends at -1
        edge.fill(row: -5, column: -1, columns: Int.max, rows: 6, with: Cell("f"))
        edge.fill(row: Int.max, column: Int.max, columns: Int.max, rows: Int.max, with: Cell("f"))
        #expect(edge[9, 9] == .blank)
        #expect(rowText(edge, 0) == "fffff")
        var renderer = FrameRenderer()
        edge.images = [ImagePlacement(id: "huge", row: Int.max, column: Int.max, columns: Int.max, rows: Int.max, bytes: [], isKitty: false)]
        _ = renderer.render(edge)
        #expect(edge[-1, 0] == .blank)
    }

    @Test func emptyFramesDoNotCrash() {
        var frame = Frame(columns: 0, rows: -3)
        #expect(frame.columns == 0 && frame.rows == 0)
        frame.put("abc", row: 0, column: 0)
        frame.fill(row: 0, column: 0, columns: 5, rows: 5, with: Cell("x"))
        var renderer = FrameRenderer()
        _ = renderer.render(frame)
        #expect(renderer.render(frame).isEmpty)
    }

    @Test func hugeSizesAreClamped() {
        // `stty rows 60000 cols 60000` must not make billions of cells.
        var frame = Frame(columns: 60_000, rows: 60_000)
        #expect(frame.columns == Frame.largestColumns)
        #expect(frame.rows == Frame.largestRows)
        frame.put("end", row: Frame.largestRows - 1, column: Frame.largestColumns - 3)
        #expect(frame[Frame.largestRows - 1, Frame.largestColumns - 1].character == "d")
        let wide = Frame(columns: Int.max, rows: 3)
        #expect(wide.columns == Frame.largestColumns && wide.rows == 3)
        var renderer = FrameRenderer()
        #expect(!renderer.render(Frame(columns: 5_000, rows: 2)).isEmpty)
    }

    @Test func controlCharactersAreNotWritten() {
        var frame = Frame(columns: 10, rows: 1)
        frame.put("a\u{1B}[2Jb\n", row: 0, column: 0)
        #expect(rowText(frame, 0) == "a\u{FFFD}[2Jb\u{FFFD}   ")
        var marks = Frame(columns: 4, rows: 1)
        // A combining mark after a control joins the replacement; a leading one is dropped.
        marks.put("\u{301}x\t\u{301}", row: 0, column: 0)
        #expect(marks[0, 0].character == "x")
        #expect(marks[0, 1].character == Character("\u{FFFD}\u{301}"))
    }

    @Test func overwritingHalfOfAWideCharacterBlanksTheOtherHalf() {
        var frame = Frame(columns: 6, rows: 1)
        frame.put("上海", row: 0, column: 0)
        frame.put("x", row: 0, column: 1)
        #expect(rowText(frame, 0) == " x海  ")
        frame.put("y", row: 0, column: 2)
        #expect(rowText(frame, 0) == " xy   ")
        frame[0, 5] = Cell("店")  // last column: no room
        #expect(frame[0, 5].character == " ")
        frame[0, 0] = .continuation  // lone continuation
        #expect(frame[0, 0].character == " ")
    }

    @Test func truncation() {
        #expect(truncate("Grand Hotel", toColumns: 20) == "Grand Hotel")
        #expect(truncate("Grand Hotel", toColumns: 11) == "Grand Hotel")
        #expect(truncate("Grand Hotel", toColumns: 8) == "Grand H…")
        #expect(truncate("上海大酒店", toColumns: 6) == "上海…")
        #expect(truncate("上海大酒店", toColumns: 7) == "上海大…")
        #expect(displayWidth(of: truncate("上海大酒店", toColumns: 6)) <= 6)
        #expect(truncate("abc", toColumns: 1) == "…")
        #expect(truncate("abc", toColumns: 0) == "")
        #expect(truncate("abc", toColumns: -4) == "")
    }

    @Test func fill() {
        var frame = Frame(columns: 5, rows: 3)
        frame.fill(row: 1, column: -1, columns: 3, rows: 9, with: Cell("#"))
        #expect(rowText(frame, 0) == "     ")
        #expect(rowText(frame, 1) == "##   ")
        #expect(rowText(frame, 2) == "##   ")
        frame.fill(row: 0, column: 0, columns: 5, rows: 1, with: Cell("上"))
        #expect(rowText(frame, 0) == "上上 ")
    }
}

// MARK: - Renderer

@Suite struct FrameRendererTests {
    private func listFrame(columns: Int = 60, rows: Int = 12, first: Int) -> Frame {
        var frame = Frame(columns: columns, rows: rows)
        frame.put("HotelKit browse", row: 0, column: 0, style: CellStyle(bold: true))
        for row in 1..<(rows - 1) {
            frame.put("Item \(first + row): \(["Grand", "Palace", "Inn", "上海大酒店"][(first + row) % 4]) \(first * 31 + row * 7)",
                      row: row, column: 0)
        }
        frame.put("q quit", row: rows - 1, column: 0, style: CellStyle(inverse: true))
        return frame
    }

    @Test func firstFrameIsAFullRedraw() {
        var renderer = FrameRenderer()
        let frame = listFrame(first: 0)
        let out = text(renderer.render(frame))
        #expect(out.hasPrefix("\(esc)[?2026h"))
        #expect(out.hasSuffix("\(esc)[0m\(esc)[?7h\(esc)[?2026l"))
        #expect(out.contains("\(esc)[?7l"))
        #expect(out.contains("\(esc)[2J"))
        for row in 0..<frame.rows {
            let line = rowText(frame, row).trimmingTrailingSpaces
            #expect(out.contains(line), "row \(row)")
        }
        var screen = VirtualTerminal(columns: frame.columns, rows: frame.rows)
        screen.run(Array(out.utf8))
        #expect(screen.matches(frame) == nil)
    }

    @Test func unchangedFrameWritesNothing() {
        var renderer = FrameRenderer()
        let frame = listFrame(first: 3)
        #expect(!renderer.render(frame).isEmpty)
        #expect(renderer.render(frame).isEmpty)
        #expect(renderer.render(listFrame(first: 3)).isEmpty)
    }

    @Test func oneCellChange() {
        var renderer = FrameRenderer()
        var frame = listFrame(first: 0)
        for row in 1..<11 { frame.put(String(repeating: "lorem ipsum ", count: 3), row: row, column: 24) }
        let full = renderer.render(frame)
        frame[5, 40] = Cell("X")
        let out = renderer.render(frame)
        let s = text(out)
        #expect(s.contains("\(esc)[6;41HX"))
        #expect(out.count < full.count / 10)
        #expect(!s.contains("Item"))
        #expect(!s.contains("\(esc)[2J"))
    }

    @Test func distantChangesInOneRowAreSeparateRuns() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 60, rows: 2)
        frame.put(String(repeating: "abcdefghij", count: 6), row: 0, column: 0)
        _ = renderer.render(frame)
        frame.put("X", row: 0, column: 2)
        frame.put("Y", row: 0, column: 50)
        let s = text(renderer.render(frame))
        #expect(s.contains("\(esc)[1;3HX"))
        #expect(s.contains("\(esc)[1;51HY"))
        #expect(!s.contains("defgh"))
    }

    @Test func newPlacementCellsAreWrittenBeforeItsBytes() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 20, rows: 4)
        _ = renderer.render(frame)
        frame.images = [placement("n", row: 1, column: 5, columns: 3, rows: 2, kitty: false)]
        let s = text(renderer.render(frame))
        #expect(s.contains("\(esc)[2;6H   \(esc)[3;6H   \(esc)[2;6H\(esc)Pqn;3;2"))
    }

    @Test func invalidateAndResizeGiveFullRedraws() {
        var renderer = FrameRenderer()
        let frame = listFrame(first: 0)
        _ = renderer.render(frame)
        renderer.invalidate()
        #expect(text(renderer.render(frame)).contains("\(esc)[2J"))
        #expect(renderer.render(frame).isEmpty)
        let bigger = listFrame(columns: 70, rows: 12, first: 0)
        #expect(text(renderer.render(bigger)).contains("\(esc)[2J"))
    }

    @Test func scrollWritesOnlyChangedRows() {
        var renderer = FrameRenderer()
        let before = listFrame(first: 0)
        let after = listFrame(first: 1)
        let full = renderer.render(before)
        let out = renderer.render(after)
        let s = text(out)
        #expect(!s.contains("HotelKit browse"))
        #expect(!s.contains("quit"))
        #expect(!s.contains("\(esc)[1;"))  // header row untouched
        #expect(!s.contains("\(esc)[12"))  // footer row untouched
        #expect(out.count < full.count)
        var screen = VirtualTerminal(columns: before.columns, rows: before.rows)
        screen.run(full)
        screen.run(out)
        #expect(screen.matches(after) == nil)
    }

    @Test func styleChangeEmitsSGR() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 10, rows: 2)
        frame.put("abc", row: 0, column: 0)
        _ = renderer.render(frame)
        frame.put("b", row: 0, column: 1, style: CellStyle(foreground: .rgb(255, 0, 0), background: .indexed(17), bold: true, underline: true))
        let s = text(renderer.render(frame))
        #expect(s.contains("\(esc)[1;2H\(esc)[0;1;4;38;2;255;0;0;48;5;17mb"))
        #expect(s.hasSuffix("\(esc)[0m\(esc)[?7h\(esc)[?2026l"))
        // The same characters with the old style back: only SGR and the cell again.
        frame.put("b", row: 0, column: 1)
        let back = text(renderer.render(frame))
        #expect(back.contains("\(esc)[1;2Hb"))
    }

    @Test func wideCharacterReplacedByNarrowOnes() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 12, rows: 1)
        frame.put("上海大酒店", row: 0, column: 1)
        var screen = VirtualTerminal(columns: 12, rows: 1)
        screen.run(renderer.render(frame))
        #expect(screen.matches(frame) == nil)
        frame.put("ab", row: 0, column: 4)  // over the right half of 海 and the left half of 大
        screen.run(renderer.render(frame))
        #expect(screen.matches(frame) == nil)
        #expect(rowText(frame, 0) == " 上 ab 酒店 ")
    }

    @Test func kittyPlacementRemovedIsDeleted() {
        var renderer = FrameRenderer()
        var frame = listFrame(first: 0)
        frame.fill(row: 1, column: 2, columns: 6, rows: 3, with: .blank)
        frame.images = [placement("logo7", row: 1, column: 2, columns: 6, rows: 3, kitty: true)]
        let first = text(renderer.render(frame))
        #expect(first.contains("m=0;logo7") && first.contains("\(esc)_Ga=p,i=1,c=6,r=3,C=1,q=2\(esc)\\"))
        frame.images = []
        let s = text(renderer.render(frame))
        #expect(s.contains("\(esc)_Ga=d,d=p,x=3,y=2,q=2\(esc)\\"))
        #expect(!s.contains("logo7"))
    }

    /// Nine logos, as `hotels browse` shows them, scrolled `by` rows at a time.
    private func logoFrame(first: Int) -> Frame {
        var frame = listFrame(columns: 60, rows: 30, first: first)
        frame.images = (0..<9).map { slot in
            placement("logo\(first + slot)", row: 1 + slot * 3, column: 0, columns: 6, rows: 3, kitty: true)
        }
        return frame
    }

    @Test("kitty: each logo is sent once with an image id, then placed by id (a=p): a scroll costs a few dozen bytes a logo, not its pixels")
    func kittyImagesAreSentOnceThenPlaced() {
        var renderer = FrameRenderer()
        var screen = VirtualTerminal(columns: 60, rows: 30)
        screen.run(renderer.render(logoFrame(first: 0)))
        #expect(screen.matches(logoFrame(first: 0)) == nil && screen.transmissions == 9)
        for first in 1...20 {
            let out = renderer.render(logoFrame(first: first))
            screen.run(out)
            #expect(screen.matches(logoFrame(first: first)) == nil, "scrolled to \(first)")
            let transmissions = text(out).components(separatedBy: "a=t,").count - 1
            #expect(transmissions == 1, "only the logo that came into view is sent")
        }
        // Scrolling back: all nine are in the terminal already.
        let back = renderer.render(logoFrame(first: 15))
        screen.run(back)
        #expect(screen.matches(logoFrame(first: 15)) == nil)
        #expect(!text(back).contains("a=t,"), "nothing sent again")
        let placing = text(back).components(separatedBy: "\(esc)_G").dropFirst().map { $0.prefix { $0 != "\u{1B}" } }
        #expect(placing.count == 18 && placing.allSatisfy { $0.count < 40 }, "a delete and a placement per logo: \(placing)")
    }

    @Test("inside tmux, kitty pictures go through tmux's passthrough once each, with a virtual placement, and show as Unicode placeholder cells that scroll like text")
    func kittyThroughTmuxAsPlaceholders() {
        func frame(first: Int) -> Frame {
            var frame = logoFrame(first: first)
            frame.images = frame.images.map { placement in
                var placement = placement
                placement.throughTmux = true
                return placement
            }
            return frame
        }
        var renderer = FrameRenderer()
        var screen = VirtualTerminal(columns: 60, rows: 30)
        func expectPlaceholders(first: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            for slot in 0..<9 {
                let top = 1 + slot * 3
                guard case .rgb(let r, let g, let b)? = screen.cell(top, 0).style.foreground else {
                    Issue.record("no image colour at slot \(slot)", sourceLocation: sourceLocation)
                    return
                }
                let number = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                #expect(screen.images[number] == "logo\(first + slot)", sourceLocation: sourceLocation)
                #expect(screen.virtualPlacements[number].map { [$0.columns, $0.rows] } == [6, 3], sourceLocation: sourceLocation)
                for row in 0..<3 {
                    for column in 0..<6 {
                        #expect(screen.cell(top + row, column) == Cell(KittyPlaceholder.cell(row: row, column: column),
                                                                    style: CellStyle(foreground: .rgb(r, g, b))),
                                "slot \(slot) cell \(row),\(column)", sourceLocation: sourceLocation)
                    }
                }
            }
        }
        let first = renderer.render(frame(first: 0))
        screen.run(first)
        #expect(screen.passedThrough == 18, "a transmission and a virtual placement for each of nine")
        #expect(!text(first).contains("\(esc)_Ga=p,i=") && !text(first).contains("\(esc)_Ga=d,d=p"), "nothing placed or deleted by position")
        #expect(displayWidth(of: KittyPlaceholder.cell(row: 2, column: 5)) == 1)
        expectPlaceholders(first: 0)
        let scrolled = renderer.render(frame(first: 1))
        screen.run(scrolled)
        #expect(screen.passedThrough == 20, "the one new picture")
        expectPlaceholders(first: 1)
        #expect(rowText(frame(first: 1), 0) == (0..<60).map { String(screen.cell(0, $0).character) }.joined())
    }

    @Test("kitty: past the limit the longest unused image is freed (a=d,d=I); after invalidate every image is freed and sent again")
    func kittyImagesAreBoundedAndForgotten() {
        var renderer = FrameRenderer(kittyImageLimit: 12)
        var screen = VirtualTerminal(columns: 60, rows: 30)
        for first in 0...20 {
            screen.run(renderer.render(logoFrame(first: first)))
            #expect(screen.matches(logoFrame(first: first)) == nil, "at \(first)")
            #expect(screen.images.count <= 12)
        }
        #expect(Set(screen.images.values) == Set((9...28).suffix(12).map { "logo\($0)" }), "the twelve last used are kept")
        renderer.invalidate()
        screen.scribble()
        let again = renderer.render(logoFrame(first: 20))
        screen.run(again)
        #expect(screen.matches(logoFrame(first: 20)) == nil)
        #expect(text(again).components(separatedBy: "a=t,").count - 1 == 9 && screen.images.count == 9)
    }

    @Test func sixelPlacementMovedRewritesOldCells() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 20, rows: 8)
        frame.put("left", row: 0, column: 0)
        frame.images = [placement("p", row: 2, column: 10, columns: 4, rows: 2, kitty: false)]
        var screen = VirtualTerminal(columns: 20, rows: 8)
        screen.run(renderer.render(frame))
        #expect(screen.matches(frame) == nil)
        frame.images = [placement("p", row: 4, column: 10, columns: 4, rows: 2, kitty: false)]
        let out = renderer.render(frame)
        let s = text(out)
        #expect(s.contains("\(esc)[3;11H    "))  // old cells rewritten
        #expect(s.contains("\(esc)[4;11H    "))
        #expect(s.contains("\(esc)[5;11H"))
        #expect(s.contains("\(esc)Pqp;4;2"))
        #expect(!s.contains("\(esc)_G"))  // no kitty delete for a sixel
        screen.run(out)
        #expect(screen.matches(frame) == nil)
    }

    @Test func unchangedPlacementIsNotResent() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 20, rows: 8)
        frame.images = [placement("k", row: 1, column: 1, columns: 3, rows: 2, kitty: true),
                        placement("s", row: 4, column: 1, columns: 3, rows: 2, kitty: false)]
        let first = text(renderer.render(frame))
        #expect(first.contains("m=0;k") && first.contains("Pqs;"))
        frame.put("status", row: 7, column: 0)
        let s = text(renderer.render(frame))
        #expect(s.contains("status"))
        #expect(!s.contains("\(esc)_G") && !s.contains("Pqs;"))
        // Text written into the sixel's cells erases its pixels: it is drawn again.
        frame.put("x", row: 5, column: 2)
        let again = text(renderer.render(frame))
        #expect(again.contains("Pqs;"))
        #expect(!again.contains("\(esc)_G"))
    }

    @Test func kittyDeleteTakingAKeptPlacementAlongRedrawsIt() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 20, rows: 8)
        let kept = placement("kept", row: 1, column: 1, columns: 4, rows: 3, kitty: true)
        frame.images = [kept, placement("gone", row: 2, column: 2, columns: 2, rows: 2, kitty: true)]
        var screen = VirtualTerminal(columns: 20, rows: 8)
        screen.run(renderer.render(frame))
        frame.images = [kept]
        let s = text(renderer.render(frame))
        // The delete at (3, 3) also hits "kept", which is placed again.
        #expect(s.contains("\(esc)_Ga=d,d=p,x=3,y=3,q=2\(esc)\\"))
        #expect(s.contains("\(esc)_Ga=p,i=1,c=4,r=3,C=1,q=2\(esc)\\") && !s.contains("m=0;kept"), "placed again, not sent again")
        screen.run(Array(s.utf8))
        #expect(screen.matches(frame) == nil)
    }

    @Test func overlappingSixelsKeepTheirOrder() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 20, rows: 8)
        frame.images = [placement("under", row: 1, column: 1, columns: 4, rows: 2, kitty: false),
                        placement("over", row: 2, column: 3, columns: 4, rows: 2, kitty: false)]
        var screen = VirtualTerminal(columns: 20, rows: 8)
        screen.run(renderer.render(frame))
        #expect(screen.matches(frame) == nil)
        // Text in a cell only "under" covers: "under" is drawn again, so "over" must be too.
        frame.put("x", row: 1, column: 1)
        let out = renderer.render(frame)
        #expect(text(out).contains("Pqunder;"))
        #expect(text(out).contains("Pqover;"))
        screen.run(out)
        #expect(screen.matches(frame) == nil)
    }

    @Test func placementsOutsideTheFrameAreNotDrawn() {
        var renderer = FrameRenderer()
        var frame = Frame(columns: 10, rows: 4)
        frame.images = [placement("low", row: 3, column: 0, columns: 2, rows: 2, kitty: false),
                        placement("neg", row: -1, column: 0, columns: 2, rows: 2, kitty: true)]
        let s = text(renderer.render(frame))
        #expect(!s.contains("Pqlow") && !s.contains("m=0;neg"))
    }

    /// Random frames through the renderer into a virtual terminal: the screen must equal each frame.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomFramesReachTheScreen(seed: UInt64) {
        var rng = TerminalTestRandom(seed: seed)
        var renderer = FrameRenderer()
        var columns = 30, rows = 10
        var screen = VirtualTerminal(columns: columns, rows: rows)
        var frame = Frame(columns: columns, rows: rows)
        let words = ["Hotel", "上海大酒店", "Inn", "ホテル", "Café", "e\u{301}", "🏨", "한국", " ", "ab", "x\ty", "Zürich"]
        let styles = [CellStyle.plain, CellStyle(bold: true), CellStyle(foreground: .indexed(3)),
                      CellStyle(foreground: .rgb(1, 2, 3), background: .rgb(9, 9, 9)), CellStyle(inverse: true, underline: true),
                      CellStyle(dim: true)]
        for step in 0..<300 {
            let roll = rng.next() % 100
            if roll < 3 {
                columns = Int(rng.next() % 40) + 1
                rows = Int(rng.next() % 12) + 1
                frame = Frame(columns: columns, rows: rows)
                screen.resize(columns: columns, rows: rows)
            } else if roll < 6 {
                renderer.invalidate()
                screen.scribble()  // whatever was drawn over it
            } else if roll < 20 {
                // A scroll: every row moves up one.
                var next = Frame(columns: columns, rows: rows)
                for r in 0..<rows {
                    for c in 0..<columns { next[r, c] = frame[r + 1, c] }
                }
                next.images = frame.images.map { var p = $0; p.row -= 1; return p }
                frame = next
            }
            for _ in 0..<Int(rng.next() % 6) {
                let word = words[Int(rng.next() % UInt64(words.count))]
                frame.put(word + word, row: Int(rng.next() % UInt64(rows + 1)) - 1 + (rows == 1 ? 1 : 0),
                          column: Int(rng.next() % UInt64(columns + 2)) - 1,
                          style: styles[Int(rng.next() % UInt64(styles.count))],
                          maxColumns: rng.next() % 3 == 0 ? Int(rng.next() % 8) : nil)
            }
            if rng.next() % 4 == 0 {
                frame.fill(row: Int(rng.next() % UInt64(rows)), column: Int(rng.next() % UInt64(columns)),
                           columns: Int(rng.next() % 6), rows: Int(rng.next() % 3),
                           with: Cell(rng.next() % 2 == 0 ? "." : "酒", style: styles[Int(rng.next() % UInt64(styles.count))]))
            }
            if rng.next() % 5 == 0 {
                var images: [ImagePlacement] = []
                for k in 0..<Int(rng.next() % 3) {
                    images.append(placement("img\(rng.next() % 3)-\(k)", row: Int(rng.next() % UInt64(rows)) - 1,
                                            column: Int(rng.next() % UInt64(columns)),
                                            columns: Int(rng.next() % 4) + 1, rows: Int(rng.next() % 3) + 1,
                                            kitty: rng.next() % 2 == 0))
                }
                frame.images = images
            }
            let out = renderer.render(frame)
            screen.run(out)
            let problem = screen.matches(frame)
            #expect(problem == nil, "seed \(seed) step \(step): \(problem ?? "")")
            if problem != nil { return }
        }
    }
}

private extension Array where Element == String {
    /// The first element and the second (or ""), as a `;`-split kitty command's control and payload.
    func splitFirst() -> (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}

private extension String {
    var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

// MARK: - Virtual terminal

/// Interprets what the renderer writes: CUP, SGR, ED 2, DEC private modes,
/// printable characters (wide ones take two cells, autowrap off stops at the
/// edge), and the test image escapes: DCS = pixels in the cells, APC = kitty
/// placements and deletes. Anything else is recorded as an error.
private struct VirtualTerminal {
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
                guard i + 1 < bytes.count else { errors.append("ESC at end"); return }
                switch bytes[i + 1] {
                case UInt8(ascii: "["):
                    var j = i + 2
                    while j < bytes.count, (0x30...0x3F).contains(bytes[j]) { j += 1 }
                    guard j < bytes.count else { errors.append("cut CSI"); return }
                    csi(String(decoding: bytes[(i + 2)..<j], as: UTF8.self), final: bytes[j])
                    i = j + 1
                case UInt8(ascii: "P") where bytes[(i + 2)...].starts(with: Array("tmux;".utf8)):
                    // tmux's passthrough: the sequence inside, each ESC doubled, reaches the terminal.
                    var inner: [UInt8] = []
                    var j = i + 7
                    while j + 1 < bytes.count, !(bytes[j] == 0x1B && bytes[j + 1] == UInt8(ascii: "\\")) {
                        if bytes[j] == 0x1B {
                            guard bytes[j + 1] == 0x1B else { errors.append("a lone ESC in passthrough"); return }
                            j += 1
                        }
                        inner.append(bytes[j])
                        j += 1
                    }
                    guard j + 1 < bytes.count else { errors.append("cut passthrough"); return }
                    passedThrough += 1
                    run(inner)
                    i = j + 2
                case UInt8(ascii: "P"), UInt8(ascii: "_"):
                    var j = i + 2
                    while j + 1 < bytes.count, !(bytes[j] == 0x1B && bytes[j + 1] == UInt8(ascii: "\\")) { j += 1 }
                    guard j + 1 < bytes.count else { errors.append("cut string"); return }
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
            let row = (parts.first ?? 1) - 1, column = (parts.count > 1 ? parts[1] : 1) - 1
            guard row >= 0, row < rows, column >= 0, column < columns else {
                errors.append("CUP outside: \(params)")
                return
            }
            cursor = (row, column)
        case UInt8(ascii: "m"):
            sgr(params)
        case UInt8(ascii: "J"):
            guard params == "2" else { errors.append("ED \(params)"); return }
            for k in cells.indices {
                cells[k] = Cell(" ", style: CellStyle(background: style.background))
                pixels[k] = nil
            }
        case UInt8(ascii: "h"), UInt8(ascii: "l"):
            if params == "?7" { autowrap = final == UInt8(ascii: "h") } else if params != "?2026" {
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
                    let r = values.popFirst() ?? 0, g = values.popFirst() ?? 0, b = values.popFirst() ?? 0
                    color = .rgb(UInt8(r), UInt8(g), UInt8(b))
                case 5: color = .indexed(UInt8(values.popFirst() ?? 0))
                default: color = nil; errors.append("bad colour in \(params)")
                }
                if v == 38 { style.foreground = color } else { style.background = color }
            default: errors.append("SGR \(v)")
            }
        }
    }

    private mutating func print(_ character: Character) {
        let width = displayWidth(of: character)
        guard width > 0 else { errors.append("zero-width \(character)"); return }
        if autowrap { errors.append("printed with autowrap on"); }
        if width == 2 && cursor.column == columns - 1 { errors.append("wide at the edge"); return }
        let base = cursor.row * columns
        for k in cursor.column..<(cursor.column + width) { clearHalf(base, k); pixels[base + k] = nil }
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
        guard parts.count == 3, let w = Int(parts[1]), let h = Int(parts[2]) else { errors.append("DCS \(body)"); return }
        guard cursor.row + h <= rows, cursor.column + w <= columns else { errors.append("sixel off screen"); return }
        for y in cursor.row..<(cursor.row + h) {
            for x in cursor.column..<(cursor.column + w) { pixels[y * columns + x] = String(parts[0]) }
        }
    }

    private mutating func apc(_ body: String) {
        guard body.hasPrefix("G") else { errors.append("APC \(body)"); return }
        let (control, payload) = body.dropFirst().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            .splitFirst()
        var keys: [String: String] = [:]
        for pair in control.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { keys[String(kv[0])] = String(kv[1]) }
        }
        if let number = transmitting {
            // A later chunk of a transmission: only m and the data.
            guard keys.keys.allSatisfy({ $0 == "m" }) else { errors.append("keys in a later chunk: \(body)"); return }
            images[number, default: ""] += payload
            if keys["m"] == "0" { transmitting = nil }
            return
        }
        switch keys["a"] {
        case "t":
            guard keys["q"] == "2", let number = keys["i"].flatMap({ UInt32($0) }), number > 0 else { errors.append("transmission \(body)"); return }
            images[number] = payload
            transmissions += 1
            if keys["m"] == "1" { transmitting = number }
        case "p" where keys["U"] == "1":
            // A virtual placement: the picture shows where placeholder cells name it.
            guard keys["q"] == "2", let number = keys["i"].flatMap({ UInt32($0) }), images[number] != nil,
                  let w = keys["c"].flatMap({ Int($0) }), let h = keys["r"].flatMap({ Int($0) }) else { errors.append("virtual placement \(body)"); return }
            virtualPlacements[number] = (w, h)
        case "p":
            guard keys["q"] == "2", keys["C"] == "1", let number = keys["i"].flatMap({ UInt32($0) }),
                  let w = keys["c"].flatMap({ Int($0) }), let h = keys["r"].flatMap({ Int($0) }) else { errors.append("placement \(body)"); return }
            guard let image = images[number] else { errors.append("placement of image \(number), never sent or freed"); return }
            kitty.append(ImagePlacement(id: image, row: cursor.row, column: cursor.column, columns: w, rows: h, bytes: [], isKitty: true))
        case "d":
            switch keys["d"] {
            case "a":
                kitty = []
            case "p":
                guard let x = keys["x"].flatMap({ Int($0) }), let y = keys["y"].flatMap({ Int($0) }) else { errors.append("delete \(body)"); return }
                kitty.removeAll { p in
                    (p.column..<(p.column + p.columns)).contains(x - 1) && (p.row..<(p.row + p.rows)).contains(y - 1)
                }
            case "I":
                guard let number = keys["i"].flatMap({ UInt32($0) }) else { errors.append("free \(body)"); return }
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
