import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A progress bar for a person at a terminal: drawn on standard error, and only
/// when standard output is a terminal too (not piped, not `--json`), so
/// machine output stays clean. Counts, rate and a bar, at most ten times a second.
public final class ProgressLine: Sendable {
    private struct State {
        var done = 0
        var lastDraw = Date.distantPast
    }

    private let total: Int
    private let label: String
    private let started = Date()
    private let enabled: Bool
    private let state = PosixMutex(State())

    public init(total: Int, label: String, quiet: Bool = false) {
        self.total = total
        self.label = label
        enabled = !quiet && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    }

    public func advance(by count: Int = 1) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.done += count
            let now = Date()
            guard now.timeIntervalSince(state.lastDraw) >= 0.1 || (total > 0 && state.done == total) else { return nil }
            state.lastDraw = now
            return render(done: state.done, now: now)
        }
        if let line { writeAll(Array(line.utf8), to: STDERR_FILENO) }
    }

    public func finish() {
        guard enabled else { return }
        writeAll(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
    }

    /// A bar when the total is known; a running count and rate when it is not (total 0).
    private func render(done: Int, now: Date) -> String {
        let rate = String(format: "%.0f", Double(done) / max(0.001, now.timeIntervalSince(started)))
        guard total > 0 else { return "\r\(done) \(label) \(rate)/s\u{1B}[K" }
        let width = 30
        let filled = min(width, Int(Double(done) / Double(total) * Double(width)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return "\r\(bar) \(done)/\(total) \(label) \(rate)/s"
    }
}
