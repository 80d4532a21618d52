import Testing

@testable import Browsing

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
        edge.images = [
            ImagePlacement(id: "huge", row: Int.max, column: Int.max, columns: Int.max, rows: Int.max, bytes: [], isKitty: false)
        ]
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
