import AtomicFiles
import Foundation
import Imaging
import SOAP
import Scheduling

/// One row of the final window: the hotel as the table shows it.
public struct FinalWindowRow: Sendable {
    public var code: String
    public var name: String?
    public var address: String?
    /// Nil: the row shows its placeholder.
    public var logo: RGBAImage?

    public init(code: String, name: String?, address: String?, logo: RGBAImage?) {
        self.code = code
        self.name = name
        self.address = address
        self.logo = logo
    }
}

/// Writes a scroll session's report: `report.html` with the summary, the
/// final visible window as the table showed it (each row's logo beside its
/// name and address), and an SVG timeline (rows against time: the visible
/// band, drag and decelerate periods, and a bar per operation).
/// Self-contained: the logos are inline, and it opens with no network.
public struct SimulationReport {
    public var summary: SimulationSummary
    public var spans: [OperationSpan]
    public var band: [(at: Double, visible: Range<Int>)]
    public var motion: [(from: Double, to: Double, decelerating: Bool)]
    /// The final visible rows, in order.
    public var finalWindow: [FinalWindowRow]
    public var title: String

    public init(recorder: SimulationRecorder, finalWindow: [FinalWindowRow], title: String) {
        summary = recorder.summary
        spans = recorder.spans
        band = recorder.band
        motion = recorder.motion
        self.finalWindow = finalWindow
        self.title = title
    }

    /// Writes report.html into `directory`; returns its path.
    public func write(to directory: URL) throws -> URL {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AtomicFileError(path: directory.path, operation: "create the folder", error: error)
        }
        let page = directory.appendingPathComponent("report.html")
        try AtomicFile.write(Array(try html().utf8), to: page)
        return page
    }

    // MARK: Final window

    static let logoSide = 56

    /// The final window as a table: each row's logo (or a grey placeholder)
    /// beside its name and address, as text.
    func finalWindowHTML() throws -> String {
        let rows = try finalWindow.map { row -> String in
            let logo: String
            if let image = row.logo {
                let fitted = FilterChain([.resize(width: Self.logoSide, height: Self.logoSide, mode: .fit)]).apply(to: image)
                let png = Data(try ImageEncoding.png().encode(fitted)).base64EncodedString()
                logo = "<img src=\"data:image/png;base64,\(png)\" width=\"\(fitted.width)\" height=\"\(fitted.height)\" alt=\"\">"
            } else {
                logo = "<span class=\"placeholder\" title=\"no logo yet\"></span>"
            }
            let name = XMLEscaping.escape(row.name ?? row.code)
            let address = XMLEscaping.escape(row.address ?? "")
            return "<li><span class=\"logo\">\(logo)</span><span class=\"text\"><b>\(name)</b><br><small>\(address)</small></span></li>"
        }
        return "<ul class=\"window\">\n" + rows.joined(separator: "\n") + "\n</ul>"
    }

    // MARK: HTML and SVG

    func html() throws -> String {
        let rows: [(String, String)] = [
            ("policy", summary.policy), ("rows", "\(summary.rows)"),
            (
                "downloads started / completed / cancelled / failed",
                "\(summary.downloadsStarted) / \(summary.downloadsCompleted) / \(summary.downloadsCancelled) / \(summary.downloadsFailed)"
            ),
            ("started while suspended", "\(summary.startedWhileSuspended)"),
            ("wasted", "\(summary.wasted) (\(summary.bytesWasted) of \(summary.bytes) bytes)"),
            (
                "display latency p50 / p90 / p99",
                "\(summary.displayLatencyMs.p50) / \(summary.displayLatencyMs.p90) / \(summary.displayLatencyMs.p99) ms"
            ),
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
            ul.window { list-style: none; margin: 0; padding: 0; width: 420px; border: 1px solid #ddd; }
            ul.window li { display: flex; align-items: center; gap: 12px; height: 72px; padding: 0 8px; border-bottom: 1px solid #eee; }
            ul.window .logo { flex: 0 0 56px; display: flex; align-items: center; justify-content: center; height: 56px; }
            ul.window .placeholder { display: block; width: 56px; height: 56px; background: #d6d6d6; }
            ul.window small { color: #777; }
            </style></head><body>
            <h1>\(XMLEscaping.escape(title))</h1>
            <div class="layout"><div>
            <table>\(table)</table>
            <p class="legend"><span><i style="background:#d9d9d9"></i>queued</span><span><i style="background:#3b82f6"></i>downloading</span>\
            <span><i style="background:#a855f7"></i>decoding</span><span><i style="background:#16a34a"></i>done</span>\
            <span><i style="background:#dc2626"></i>cancelled</span><span><i style="background:#f59e0b"></i>failed</span>\
            <span><i style="background:rgba(250,204,21,.35)"></i>visible rows</span><span><i style="background:rgba(100,116,139,.18)"></i>dragging</span>\
            <span><i style="background:rgba(56,189,248,.15)"></i>decelerating</span></p>
            </div><div><h3>Final window</h3>
            \(try finalWindowHTML())
            </div></div>
            <h3>Timeline</h3>
            \(timelineSVG())
            </body></html>

            """
    }

    func timelineSVG() -> String {
        let duration = max(1, summary.durationMs, spans.compactMap(\.endAt).max() ?? 0)
        let maxRow = max(1, summary.rows, (band.map(\.visible.upperBound).max() ?? 0))
        let width = 1400.0
        let left = 50.0
        let plotWidth = width - left - 10
        let rowHeight = min(6, max(0.4, 900 / Double(maxRow)))
        let plotHeight = Double(maxRow) * rowHeight
        let height = plotHeight + 40
        func x(_ ms: Double) -> String { String(format: "%.1f", left + ms / duration * plotWidth) }
        func y(_ row: Double) -> String { String(format: "%.1f", 10 + row * rowHeight) }
        func w(_ from: Double, _ to: Double) -> String { String(format: "%.1f", max(0.6, (to - from) / duration * plotWidth)) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-size=\"11\" font-family=\"sans-serif\">\n"
        svg +=
            "<rect x=\"\(left)\" y=\"10\" width=\"\(plotWidth)\" height=\"\(String(format: "%.1f", plotHeight))\" fill=\"#fff\" stroke=\"#ccc\"/>\n"
        for period in motion {
            let fill = period.decelerating ? "rgba(56,189,248,.15)" : "rgba(100,116,139,.18)"
            svg +=
                "<rect x=\"\(x(period.from))\" y=\"10\" width=\"\(w(period.from, period.to))\" height=\"\(String(format: "%.1f", plotHeight))\" fill=\"\(fill)\"/>\n"
        }
        // The visible band as a step outline.
        var upper: [String] = []
        var lower: [String] = []
        for (index, entry) in band.enumerated() {
            let end = index + 1 < band.count ? band[index + 1].at : duration
            upper += ["\(x(entry.at)),\(y(Double(entry.visible.lowerBound)))", "\(x(end)),\(y(Double(entry.visible.lowerBound)))"]
            lower += ["\(x(entry.at)),\(y(Double(entry.visible.upperBound)))", "\(x(end)),\(y(Double(entry.visible.upperBound)))"]
        }
        if !upper.isEmpty {
            svg +=
                "<polygon points=\"\((upper + lower.reversed()).joined(separator: " "))\" fill=\"rgba(250,204,21,.35)\" stroke=\"rgba(202,138,4,.6)\" stroke-width=\"0.5\"/>\n"
        }
        let barHeight = String(format: "%.2f", max(0.4, rowHeight * 0.8))
        for span in spans {
            let end = span.endAt ?? duration
            let top = y(Double(span.row) + 0.1)
            let downloadAt = span.downloadAt ?? end
            let decodeAt = span.decodeAt ?? end
            svg +=
                "<rect x=\"\(x(span.queuedAt))\" y=\"\(top)\" width=\"\(w(span.queuedAt, downloadAt))\" height=\"\(barHeight)\" fill=\"#d9d9d9\"/>"
            if span.downloadAt != nil {
                svg +=
                    "<rect x=\"\(x(downloadAt))\" y=\"\(top)\" width=\"\(w(downloadAt, decodeAt))\" height=\"\(barHeight)\" fill=\"#3b82f6\"/>"
            }
            if span.decodeAt != nil {
                svg += "<rect x=\"\(x(decodeAt))\" y=\"\(top)\" width=\"\(w(decodeAt, end))\" height=\"\(barHeight)\" fill=\"#a855f7\"/>"
            }
            let mark =
                switch span.outcome {
                case .done: "#16a34a"
                case .cancelled: "#dc2626"
                case .failed: "#f59e0b"
                case .unfinished: "#999"
                }
            svg +=
                "<rect x=\"\(x(end))\" y=\"\(top)\" width=\"2\" height=\"\(barHeight)\" fill=\"\(mark)\"><title>row \(span.row): \(span.outcome.rawValue)</title></rect>\n"
        }
        // Axes: seconds along the bottom, rows down the left.
        let step = max(1, Int((duration / 1000 / 12).rounded(.up)))
        for second in stride(from: 0, through: Int(duration / 1000), by: step) {
            svg +=
                "<text x=\"\(x(Double(second) * 1000))\" y=\"\(String(format: "%.1f", plotHeight + 26))\" text-anchor=\"middle\">\(second) s</text>\n"
        }
        let rowStep = max(1, Int((Double(maxRow) / 10).rounded(.up)))
        for row in stride(from: 0, through: maxRow, by: rowStep) {
            svg += "<text x=\"\(left - 4)\" y=\"\(y(Double(row)))\" text-anchor=\"end\" dominant-baseline=\"middle\">\(row)</text>\n"
        }
        return svg + "</svg>"
    }
}
