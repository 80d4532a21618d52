import AtomicFiles
import Foundation
import Imaging
import SOAP
import Scheduling

/// Writes a scroll session's report: `report.html` with the summary and an
/// SVG timeline (rows against time: the visible band, drag and decelerate
/// periods, and a bar per operation), and `contact-sheet.png`, the final
/// visible window as it would look. Self-contained: it opens with no network.
public struct SimulationReport {
    public var summary: SimulationSummary
    public var spans: [OperationSpan]
    public var band: [(at: Double, visible: Range<Int>)]
    public var motion: [(from: Double, to: Double, decelerating: Bool)]
    /// The final visible rows' codes and logos, in order (nil: placeholder).
    public var finalWindow: [(code: String, logo: RGBAImage?)]
    public var title: String

    public init(recorder: SimulationRecorder, finalWindow: [(code: String, logo: RGBAImage?)], title: String) {
        summary = recorder.summary
        spans = recorder.spans
        band = recorder.band
        motion = recorder.motion
        self.finalWindow = finalWindow
        self.title = title
    }

    /// Writes both files into `directory`; returns the path of report.html.
    public func write(to directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try AtomicFile.write(try ImageEncoding.png().encode(contactSheet()), to: directory.appendingPathComponent("contact-sheet.png"))
        let page = directory.appendingPathComponent("report.html")
        try AtomicFile.write(Array(html().utf8), to: page)
        return page
    }

    // MARK: Contact sheet

    static let cellHeight = 72
    static let logoSide = 56
    static let sheetWidth = 420

    /// Each row as a table cell: its logo (or a grey placeholder) and
    /// grey bars where the name and address would be.
    func contactSheet() -> RGBAImage {
        let rows = max(1, finalWindow.count)
        var sheet = RGBAImage(width: Self.sheetWidth, height: rows * Self.cellHeight)
        fill(&sheet, x: 0, y: 0, width: sheet.width, height: sheet.height, color: (255, 255, 255))
        let inset = (Self.cellHeight - Self.logoSide) / 2
        for (index, entry) in finalWindow.enumerated() {
            let top = index * Self.cellHeight
            if let logo = entry.logo {
                let fitted = FilterChain([.resize(width: Self.logoSide, height: Self.logoSide, mode: .fit)]).apply(to: logo)
                blend(fitted, into: &sheet, x: inset + (Self.logoSide - fitted.width) / 2, y: top + inset + (Self.logoSide - fitted.height) / 2)
            } else {
                fill(&sheet, x: inset, y: top + inset, width: Self.logoSide, height: Self.logoSide, color: (214, 214, 214))
            }
            let textLeft = inset * 2 + Self.logoSide
            // Name and address stand-ins, of a length that varies with the code.
            let nameWidth = 140 + entry.code.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) % 120 }
            fill(&sheet, x: textLeft, y: top + 20, width: nameWidth, height: 10, color: (60, 60, 60))
            fill(&sheet, x: textLeft, y: top + 40, width: nameWidth * 3 / 4, height: 8, color: (170, 170, 170))
            fill(&sheet, x: 0, y: top + Self.cellHeight - 1, width: sheet.width, height: 1, color: (225, 225, 225))
        }
        return sheet
    }

    private func fill(_ image: inout RGBAImage, x: Int, y: Int, width: Int, height: Int, color: (UInt8, UInt8, UInt8)) {
        for row in max(0, y)..<min(image.height, y + height) {
            for column in max(0, x)..<min(image.width, x + width) {
                let offset = (row * image.width + column) * 4
                image.pixels[offset] = color.0
                image.pixels[offset + 1] = color.1
                image.pixels[offset + 2] = color.2
                image.pixels[offset + 3] = 255
            }
        }
    }

    /// Source-over onto an opaque sheet.
    private func blend(_ source: RGBAImage, into sheet: inout RGBAImage, x: Int, y: Int) {
        for row in 0..<source.height where (0..<sheet.height).contains(y + row) {
            for column in 0..<source.width where (0..<sheet.width).contains(x + column) {
                let from = (row * source.width + column) * 4
                let to = ((y + row) * sheet.width + x + column) * 4
                let alpha = Int(source.pixels[from + 3])
                for channel in 0..<3 {
                    let blended = (Int(source.pixels[from + channel]) * alpha + Int(sheet.pixels[to + channel]) * (255 - alpha) + 127) / 255
                    sheet.pixels[to + channel] = UInt8(blended)
                }
            }
        }
    }

    // MARK: HTML and SVG

    func html() -> String {
        let rows: [(String, String)] = [
            ("policy", summary.policy), ("rows", "\(summary.rows)"),
            ("downloads started / completed / cancelled / failed",
             "\(summary.downloadsStarted) / \(summary.downloadsCompleted) / \(summary.downloadsCancelled) / \(summary.downloadsFailed)"),
            ("started while suspended", "\(summary.startedWhileSuspended)"),
            ("wasted", "\(summary.wasted) (\(summary.bytesWasted) of \(summary.bytes) bytes)"),
            ("display latency p50 / p90 / p99", "\(summary.displayLatencyMs.p50) / \(summary.displayLatencyMs.p90) / \(summary.displayLatencyMs.p99) ms"),
            ("settle points", "\(summary.settles)"),
            ("visible without logo at end", "\(summary.visibleWithoutLogoAtEnd)"),
            ("pages requested (duplicates)", "\(summary.pagesRequested) (\(summary.duplicatePageRequests))"),
            ("duration", String(format: "%.1f s", summary.durationMs / 1000)),
        ]
        let table = rows.map { "<tr><th>\(XMLEscaping.escape($0.0))</th><td>\(XMLEscaping.escape($0.1))</td></tr>" }.joined(separator: "\n")
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(XMLEscaping.escape(title))</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
        table { border-collapse: collapse; margin-bottom: 16px; }
        th, td { text-align: left; padding: 3px 12px 3px 0; border-bottom: 1px solid #eee; }
        th { font-weight: 600; }
        .layout { display: flex; gap: 24px; align-items: flex-start; }
        .legend span { display: inline-block; margin-right: 14px; }
        .legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -2px; }
        img { border: 1px solid #ddd; }
        </style></head><body>
        <h1>\(XMLEscaping.escape(title))</h1>
        <div class="layout"><div>
        <table>\(table)</table>
        <p class="legend"><span><i style="background:#d9d9d9"></i>queued</span><span><i style="background:#3b82f6"></i>downloading</span>\
        <span><i style="background:#a855f7"></i>decoding</span><span><i style="background:#16a34a"></i>done</span>\
        <span><i style="background:#dc2626"></i>cancelled</span><span><i style="background:#f59e0b"></i>failed</span>\
        <span><i style="background:rgba(250,204,21,.35)"></i>visible rows</span><span><i style="background:rgba(100,116,139,.18)"></i>dragging</span>\
        <span><i style="background:rgba(56,189,248,.15)"></i>decelerating</span></p>
        </div><div><h3>Final window</h3><img src="contact-sheet.png" alt="the final visible rows with their logos"></div></div>
        <h3>Timeline</h3>
        \(timelineSVG())
        </body></html>

        """
    }

    func timelineSVG() -> String {
        let duration = max(1, summary.durationMs, spans.compactMap(\.endAt).max() ?? 0)
        let maxRow = max(1, summary.rows, (band.map(\.visible.upperBound).max() ?? 0))
        let width = 1400.0, left = 50.0, plotWidth = width - left - 10
        let rowHeight = min(6, max(0.4, 900 / Double(maxRow)))
        let plotHeight = Double(maxRow) * rowHeight
        let height = plotHeight + 40
        func x(_ ms: Double) -> String { String(format: "%.1f", left + ms / duration * plotWidth) }
        func y(_ row: Double) -> String { String(format: "%.1f", 10 + row * rowHeight) }
        func w(_ from: Double, _ to: Double) -> String { String(format: "%.1f", max(0.6, (to - from) / duration * plotWidth)) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-size=\"11\" font-family=\"sans-serif\">\n"
        svg += "<rect x=\"\(left)\" y=\"10\" width=\"\(plotWidth)\" height=\"\(String(format: "%.1f", plotHeight))\" fill=\"#fff\" stroke=\"#ccc\"/>\n"
        for period in motion {
            let fill = period.decelerating ? "rgba(56,189,248,.15)" : "rgba(100,116,139,.18)"
            svg += "<rect x=\"\(x(period.from))\" y=\"10\" width=\"\(w(period.from, period.to))\" height=\"\(String(format: "%.1f", plotHeight))\" fill=\"\(fill)\"/>\n"
        }
        // The visible band as a step outline.
        var upper: [String] = [], lower: [String] = []
        for (index, entry) in band.enumerated() {
            let end = index + 1 < band.count ? band[index + 1].at : duration
            upper += ["\(x(entry.at)),\(y(Double(entry.visible.lowerBound)))", "\(x(end)),\(y(Double(entry.visible.lowerBound)))"]
            lower += ["\(x(entry.at)),\(y(Double(entry.visible.upperBound)))", "\(x(end)),\(y(Double(entry.visible.upperBound)))"]
        }
        if !upper.isEmpty {
            svg += "<polygon points=\"\((upper + lower.reversed()).joined(separator: " "))\" fill=\"rgba(250,204,21,.35)\" stroke=\"rgba(202,138,4,.6)\" stroke-width=\"0.5\"/>\n"
        }
        let barHeight = String(format: "%.2f", max(0.4, rowHeight * 0.8))
        for span in spans {
            let end = span.endAt ?? duration
            let top = y(Double(span.row) + 0.1)
            let downloadAt = span.downloadAt ?? end
            let decodeAt = span.decodeAt ?? end
            svg += "<rect x=\"\(x(span.queuedAt))\" y=\"\(top)\" width=\"\(w(span.queuedAt, downloadAt))\" height=\"\(barHeight)\" fill=\"#d9d9d9\"/>"
            if span.downloadAt != nil {
                svg += "<rect x=\"\(x(downloadAt))\" y=\"\(top)\" width=\"\(w(downloadAt, decodeAt))\" height=\"\(barHeight)\" fill=\"#3b82f6\"/>"
            }
            if span.decodeAt != nil {
                svg += "<rect x=\"\(x(decodeAt))\" y=\"\(top)\" width=\"\(w(decodeAt, end))\" height=\"\(barHeight)\" fill=\"#a855f7\"/>"
            }
            let mark = switch span.outcome {
            case .done: "#16a34a"
            case .cancelled: "#dc2626"
            case .failed: "#f59e0b"
            case .unfinished: "#999"
            }
            svg += "<rect x=\"\(x(end))\" y=\"\(top)\" width=\"2\" height=\"\(barHeight)\" fill=\"\(mark)\"><title>row \(span.row): \(span.outcome.rawValue)</title></rect>\n"
        }
        // Axes: seconds along the bottom, rows down the left.
        let step = max(1, Int((duration / 1000 / 12).rounded(.up)))
        for second in stride(from: 0, through: Int(duration / 1000), by: step) {
            svg += "<text x=\"\(x(Double(second) * 1000))\" y=\"\(String(format: "%.1f", plotHeight + 26))\" text-anchor=\"middle\">\(second) s</text>\n"
        }
        let rowStep = max(1, Int((Double(maxRow) / 10).rounded(.up)))
        for row in stride(from: 0, through: maxRow, by: rowStep) {
            svg += "<text x=\"\(left - 4)\" y=\"\(y(Double(row)))\" text-anchor=\"end\" dominant-baseline=\"middle\">\(row)</text>\n"
        }
        return svg + "</svg>"
    }
}
