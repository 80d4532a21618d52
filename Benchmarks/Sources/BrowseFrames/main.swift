// The browse view's frames at 100×30, in process: building a frame from the
// screen's state and writing it as a diff, for a full redraw (a new
// renderer each time) and for a one-row scroll (the window one hotel down,
// then back), in symbols and in kitty mode; the logos are painted once, as
// the view keeps them. For scripts/compare browse.
//
// usage: browse-frames RUNS
// Prints one JSON line per mode and case: {"mode", "case", "median_us", "best_us", "bytes"}.
import Browsing
import Foundation
import Imaging

let arguments = CommandLine.arguments
guard arguments.count == 2, let runs = Int(arguments[1]), runs > 0 else {
    FileHandle.standardError.write(Data("usage: browse-frames RUNS\n".utf8))
    exit(64)
}

/// A 64×64 logo: a diagonal gradient in the row's own hue, with a disc.
func logo(_ seed: Int) -> RGBAImage {
    var pixels = [UInt8](repeating: 0, count: 64 * 64 * 4)
    for y in 0..<64 {
        for x in 0..<64 {
            let offset = (y * 64 + x) * 4
            let inDisc = (x - 32) * (x - 32) + (y - 32) * (y - 32) < 18 * 18
            pixels[offset] = UInt8((x * 4 + seed * 37) % 256)
            pixels[offset + 1] = UInt8((y * 4 + seed * 91) % 256)
            pixels[offset + 2] = inDisc ? 255 : UInt8((seed * 53) % 256)
            pixels[offset + 3] = 255
        }
    }
    return RGBAImage(width: 64, height: 64, pixels: pixels)
}

func state(first: Int, paintings: [Painting]) -> BrowseScreenState {
    let rows = (first..<first + 9).map { row in
        BrowseRowView(
            name: "上海金陵大酒店 \(row)", address: "\(100 + row) Nanjing Road, Shanghai",
            detail: "31.2304, 121.4737 · added 2026-11-20", logo: .painted(id: "H\(row)", paintings[row]))
    }
    return BrowseScreenState(
        title: "hotels browse: Shanghai", headline: "p90 settle→drawn 180 ms",
        status: "50 hotels, more to load │ logos 0 queued, 0 in flight, 4 cancelled, 0 failed │ 12 cache hits",
        rows: rows, first: first, count: 50)
}

func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

func report(_ mode: String, _ name: String, _ times: [Double], bytes: Int) {
    let sorted = times.sorted()
    print(
        #"{"mode": "\#(mode)", "case": "\#(name)", "median_us": \#(Int(sorted[sorted.count / 2])), "best_us": \#(Int(sorted[0])), "bytes": \#(bytes)}"#
    )
}

for (name, support) in [
    ("symbols", GraphicsSupport(mode: .symbols, colors: .truecolor, reason: "benchmark")),
    ("kitty", GraphicsSupport(mode: .kitty, colors: .truecolor, reason: "benchmark")),
] {
    let painter = LogoPainter(support: support)
    let paintings = (0..<10).map { painter.paint(logo($0), columns: BrowseLayout.logoColumns, rows: BrowseLayout.rowHeight) }
    let top = state(first: 0, paintings: paintings)
    let next = state(first: 1, paintings: paintings)

    var full: [Double] = []
    var fullBytes = 0
    for _ in 0..<runs {
        let started = ContinuousClock.now
        var renderer = FrameRenderer()
        fullBytes = renderer.render(BrowseScreen.frame(top, columns: 100, rows: 30, painter: painter)).count
        full.append(microseconds(ContinuousClock.now - started))
    }
    report(name, "full redraw", full, bytes: fullBytes)

    var scroll: [Double] = []
    var scrollBytes = 0
    var renderer = FrameRenderer()
    _ = renderer.render(BrowseScreen.frame(top, columns: 100, rows: 30, painter: painter))
    for run in 0..<runs {
        let started = ContinuousClock.now
        let bytes = renderer.render(BrowseScreen.frame(run % 2 == 0 ? next : top, columns: 100, rows: 30, painter: painter))
        scroll.append(microseconds(ContinuousClock.now - started))
        scrollBytes = bytes.count
    }
    report(name, "one-row scroll", scroll, bytes: scrollBytes)
}
