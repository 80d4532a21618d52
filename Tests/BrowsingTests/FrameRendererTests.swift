import Testing

@testable import Browsing

@Suite struct FrameRendererTests {
    private func listFrame(columns: Int = 60, rows: Int = 12, first: Int) -> Frame {
        var frame = Frame(columns: columns, rows: rows)
        frame.put("HotelKit browse", row: 0, column: 0, style: CellStyle(bold: true))
        for row in 1..<(rows - 1) {
            frame.put(
                "Item \(first + row): \(["Grand", "Palace", "Inn", "上海大酒店"][(first + row) % 4]) \(first * 31 + row * 7)",
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
        frame.put(
            "b", row: 0, column: 1, style: CellStyle(foreground: .rgb(255, 0, 0), background: .indexed(17), bold: true, underline: true))
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

    @Test(
        "kitty: each logo is sent once with an image id, then placed by id (a=p): a scroll costs a few dozen bytes a logo, not its pixels")
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

    @Test(
        "inside tmux, kitty pictures go through tmux's passthrough once each, with a virtual placement, and show as Unicode placeholder cells that scroll like text"
    )
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
                        #expect(
                            screen.cell(top + row, column)
                                == Cell(
                                    KittyPlaceholder.cell(row: row, column: column),
                                    style: CellStyle(foreground: .rgb(r, g, b))),
                            "slot \(slot) cell \(row),\(column)", sourceLocation: sourceLocation)
                    }
                }
            }
        }
        let first = renderer.render(frame(first: 0))
        screen.run(first)
        #expect(screen.passedThrough == 18, "a transmission and a virtual placement for each of nine")
        #expect(
            !text(first).contains("\(esc)_Ga=p,i=") && !text(first).contains("\(esc)_Ga=d,d=p"), "nothing placed or deleted by position")
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
        frame.images = [
            placement("k", row: 1, column: 1, columns: 3, rows: 2, kitty: true),
            placement("s", row: 4, column: 1, columns: 3, rows: 2, kitty: false),
        ]
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
        frame.images = [
            placement("under", row: 1, column: 1, columns: 4, rows: 2, kitty: false),
            placement("over", row: 2, column: 3, columns: 4, rows: 2, kitty: false),
        ]
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
        frame.images = [
            placement("low", row: 3, column: 0, columns: 2, rows: 2, kitty: false),
            placement("neg", row: -1, column: 0, columns: 2, rows: 2, kitty: true),
        ]
        let s = text(renderer.render(frame))
        #expect(!s.contains("Pqlow") && !s.contains("m=0;neg"))
    }

    /// Random frames through the renderer into a virtual terminal: the screen must equal each frame.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomFramesReachTheScreen(seed: UInt64) {
        var rng = TerminalTestRandom(seed: seed)
        var renderer = FrameRenderer()
        var columns = 30
        var rows = 10
        var screen = VirtualTerminal(columns: columns, rows: rows)
        var frame = Frame(columns: columns, rows: rows)
        let words = ["Hotel", "上海大酒店", "Inn", "ホテル", "Café", "e\u{301}", "🏨", "한국", " ", "ab", "x\ty", "Zürich"]
        let styles = [
            CellStyle.plain, CellStyle(bold: true), CellStyle(foreground: .indexed(3)),
            CellStyle(foreground: .rgb(1, 2, 3), background: .rgb(9, 9, 9)), CellStyle(inverse: true, underline: true),
            CellStyle(dim: true),
        ]
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
                next.images = frame.images.map {
                    var p = $0
                    p.row -= 1
                    return p
                }
                frame = next
            }
            for _ in 0..<Int(rng.next() % 6) {
                let word = words[Int(rng.next() % UInt64(words.count))]
                frame.put(
                    word + word, row: Int(rng.next() % UInt64(rows + 1)) - 1 + (rows == 1 ? 1 : 0),
                    column: Int(rng.next() % UInt64(columns + 2)) - 1,
                    style: styles[Int(rng.next() % UInt64(styles.count))],
                    maxColumns: rng.next() % 3 == 0 ? Int(rng.next() % 8) : nil)
            }
            if rng.next() % 4 == 0 {
                frame.fill(
                    row: Int(rng.next() % UInt64(rows)), column: Int(rng.next() % UInt64(columns)),
                    columns: Int(rng.next() % 6), rows: Int(rng.next() % 3),
                    with: Cell(rng.next() % 2 == 0 ? "." : "酒", style: styles[Int(rng.next() % UInt64(styles.count))]))
            }
            if rng.next() % 5 == 0 {
                var images: [ImagePlacement] = []
                for k in 0..<Int(rng.next() % 3) {
                    images.append(
                        placement(
                            "img\(rng.next() % 3)-\(k)", row: Int(rng.next() % UInt64(rows)) - 1,
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
