import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What ``Terminal/start(on:handler:)`` delivers.
public enum TerminalEvent: Sendable {
    case input([InputEvent])
    case resized(columns: Int, rows: Int)
    /// Back from Ctrl-Z: the screen was left, redraw everything (``FrameRenderer/invalidate()``).
    case resumed
    /// A terminating signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, …) arrived, or
    /// the terminal hung up: the terminal is already restored; the caller
    /// should exit (still calling ``Terminal/restore()``).
    case terminate(signal: Int32)
}

/// stdin or stdout is not a TTY, so there is no screen to take over.
public struct NotATerminal: Error, CustomStringConvertible {
    public var description: String {
        "hotels browse needs a terminal: standard input and output must both be a TTY"
    }
}

/// A terminal call failed.
public struct TerminalError: Error, CustomStringConvertible {
    /// The call that failed, such as "tcgetattr".
    public var operation: String
    public var code: Int32
    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// The real TTY: raw mode, the alternate screen, input, signals.
///
/// The caller calls ``restore()`` on every exit path (`defer`). From
/// ``enter()`` on, caught signals restore it too (before ``start(on:handler:)``
/// attaches a handler they also exit with status 128 + signal), and so does
/// a normal `exit()`; only SIGKILL and crashes leave the terminal raw (then
/// `reset` or `stty sane` fixes it).
///
/// `@unchecked Sendable`: all mutable state is guarded by `lock`; the reader
/// thread owns its decoder, and the signal sources run on one serial queue.
public final class Terminal: TerminalQuerying, @unchecked Sendable {
    private let input: Int32
    private let output: Int32
    private let lock = NSLock()
    // Guarded by `lock`.
    private var saved: termios?
    private var entered = false
    /// Left the screen for Ctrl-Z; SIGCONT in the foreground re-enters.
    private var suspended = false
    private var started = false
    private var signals: SignalSet?
    private var handler: (queue: DispatchQueue, deliver: @Sendable (TerminalEvent) -> Void)?
    /// A resize or a resume that came before a handler was attached; ``start(on:handler:)`` delivers it.
    private var pendingResize = false
    private var pendingResume = false
    /// The write end of the reader's wake pipe: closing it wakes the reader (its poll sees the hang-up).
    private var wakeWriter: Int32?
    private var readerDone: DispatchSemaphore?

    /// Every catchable signal whose default action ends the process. SIGPIPE
    /// is left alone: writes to a TTY fail with EIO instead, and network code
    /// may rely on its own SIGPIPE setting.
    private static let terminateSignals: [Int32] = [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
        SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
    ]
    private static let handledSignals: [Int32] = terminateSignals + [SIGWINCH, SIGTSTP, SIGCONT]

    /// The largest size ``size`` reports: a TTY claiming more (`stty rows 60000`)
    /// would otherwise make frames of billions of cells.
    public static let largestSize = (columns: Frame.largestColumns, rows: Frame.largestRows)

    /// Fails with NotATerminal unless both fds are TTYs.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws {
        guard isatty(input) == 1, isatty(output) == 1 else { throw NotATerminal() }
        self.input = input
        self.output = output
    }

    /// The size in cells (TIOCGWINSZ); 80×24 when the terminal reports 0,
    /// at most ``largestSize``.
    public var size: (columns: Int, rows: Int) {
        guard let ws = windowSize(), ws.ws_col > 0, ws.ws_row > 0 else { return (80, 24) }
        return (min(Int(ws.ws_col), Self.largestSize.columns), min(Int(ws.ws_row), Self.largestSize.rows))
    }

    /// One cell's size in pixels (TIOCGWINSZ `ws_xpixel / ws_col`,
    /// `ws_ypixel / ws_row`), for sizing sixel pictures; nil when the
    /// terminal does not report pixels (many leave them 0).
    public var cellPixelSize: (width: Int, height: Int)? {
        guard let ws = windowSize(), ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        let width = Int(ws.ws_xpixel) / Int(ws.ws_col)
        let height = Int(ws.ws_ypixel) / Int(ws.ws_row)
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }

    private func windowSize() -> winsize? {
        var ws = winsize()
        return ioctl(output, UInt(TIOCGWINSZ), &ws) == 0 ? ws : nil
    }

    /// Raw mode (cfmakeraw-like, but ISIG kept so Ctrl-C sends SIGINT and
    /// Ctrl-Z SIGTSTP), alternate screen, cursor hidden, mouse reporting
    /// (buttons, drag, SGR encoding). Calling it again while entered re-applies it.
    ///
    /// The first call also takes over the signals, so a signal that comes
    /// before ``start(on:handler:)`` (during a terminal query, say) cannot
    /// leave the terminal raw: the terminating ones restore it and, with no
    /// handler attached yet, exit with status 128 + signal; Ctrl-Z restores
    /// and stops, and continuing in the foreground re-enters. ``restore()``
    /// gives the signals back.
    public func enter() throws {
        lock.lock()
        defer { lock.unlock() }
        // Signals first: from the moment the terminal is raw, a signal must find a way back.
        if signals == nil { signals = SignalSet(Self.handledSignals, terminal: self) }
        try applyScreen()
    }

    /// enter() without the signals; the caller holds `lock`.
    private func applyScreen() throws {
        if !entered {
            var original = termios()
            guard tcgetattr(input, &original) == 0 else { throw TerminalError(operation: "tcgetattr", code: errno) }
            saved = original
        }
        guard var raw = saved else { return }
        Self.makeRaw(&raw)
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { throw TerminalError(operation: "tcsetattr", code: errno) }
        if !entered { ExitGuard.shared.add(self) }
        entered = true
        suspended = false
        _ = writeAll(Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h".utf8))
    }

    /// Undoes all of it in reverse (mouse off, cursor shown, autowrap on,
    /// SGR reset, leave alternate screen, saved termios back) and gives the
    /// signals their previous dispositions. Idempotent, safe to call twice
    /// and from the exit path. It does not stop the reader: call ``stop()``.
    public func restore() {
        lock.lock()
        let signals = self.signals
        self.signals = nil
        suspended = false
        leaveScreen()
        lock.unlock()
        // Outside the lock: a signal handler already running waits for the lock, and must not be waited on with it held.
        signals?.cancel()
    }

    /// restore() for the terminal only, keeping the signals: for Ctrl-Z
    /// (which comes back) and for a terminating signal (after which the
    /// caller still calls ``restore()``). The caller holds `lock`.
    private func leaveScreen() {
        guard entered else { return }
        entered = false
        ExitGuard.shared.remove(self)
        // ?2026l first: a frame cut off mid-write must not leave the terminal holding updates.
        _ = writeAll(Array("\u{1B}[?2026l\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?7h\u{1B}[0m\u{1B}[?1049l".utf8))
        if var original = saved {
            // TCSAFLUSH drops unread input, so stray mouse reports do not reach the shell.
            _ = tcsetattr(input, TCSAFLUSH, &original)
        }
    }

    /// One write(2) loop for the whole buffer (retry on EINTR/partial
    /// writes). Returns false on an I/O error. While the terminal is not
    /// entered (before ``enter()``, after ``restore()``, while stopped by
    /// Ctrl-Z) the bytes are dropped and it returns true, so a frame in
    /// flight never lands on the user's shell screen.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard entered else { return true }
        return writeAll(bytes)
    }

    /// Starts delivering events on `queue`: decoded input, SIGWINCH as
    /// `.resized`, terminating signals as `.terminate` (after the terminal
    /// is restored; the process no longer exits by itself), and after
    /// Ctrl-Z and `fg` `.resumed` (the terminal is re-entered). A resize or
    /// resume that happened between ``enter()`` and this call is delivered
    /// first. Call it once, after ``enter()``; ``stop()`` detaches it.
    public func start(on queue: DispatchQueue, handler: @escaping @Sendable (TerminalEvent) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return }
        started = true
        self.handler = (queue, handler)
        if pendingResize {
            let size = self.size
            queue.async { handler(.resized(columns: size.columns, rows: size.rows)) }
        }
        if pendingResume { queue.async { handler(.resumed) } }
        pendingResize = false
        pendingResume = false

        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        wakeWriter = fds[1]
        let done = DispatchSemaphore(value: 0)
        readerDone = done
        let input = self.input
        let wake = fds[0]
        let thread = Thread { [weak self] in
            Self.readLoop(input: input, wake: wake, queue: queue, handler: handler) {
                // End of input: the terminal is gone. The caller still calls restore().
                guard let self else { return }
                self.lock.lock()
                self.leaveScreen()
                self.lock.unlock()
            }
            // The reader closes its end itself: `stop` waits for it a second at most, and a descriptor
            // closed under a thread still polling it could be reused by anything the process opens next
            // (and nothing is written to the pipe, which could raise SIGPIPE once this end is closed).
            close(wake)
            done.signal()
        }
        thread.name = "Terminal.input"
        thread.start()
    }

    /// Stops the reader thread and detaches the handler. The signals stay
    /// caught until ``restore()``: a signal in between still restores the
    /// terminal (and, with no handler, exits).
    public func stop() {
        lock.lock()
        let writer = wakeWriter
        let done = readerDone
        wakeWriter = nil
        readerDone = nil
        handler = nil
        started = false
        lock.unlock()
        if let writer {
            close(writer)
            _ = done?.wait(timeout: .now() + .seconds(1))
        }
    }

    /// What a caught signal does; runs on the signal queue.
    func handle(signal signo: Int32) {
        lock.lock()
        switch signo {
        case SIGWINCH:
            if let handler {
                let size = self.size
                handler.queue.async { handler.deliver(.resized(columns: size.columns, rows: size.rows)) }
            } else {
                pendingResize = true
            }
            lock.unlock()
        case SIGTSTP:
            if entered {
                leaveScreen()
                suspended = true
            }
            lock.unlock()
            // Stop for real: the shell gets its prompt back on a clean screen.
            // SIGSTOP, not SIGTSTP again: SIGTSTP is caught.
            kill(getpid(), SIGSTOP)
        case SIGCONT:
            // Continued in the background (`bg`): stay off the screen; `fg` sends SIGCONT again.
            let foreground = tcgetpgrp(input) == getpgrp()
            // Also re-apply when entered: a SIGSTOP from elsewhere did not restore, but the shell may have reset the modes.
            if foreground, suspended || entered, signals != nil, (try? applyScreen()) != nil {
                if let handler { handler.queue.async { handler.deliver(.resumed) } } else { pendingResume = true }
            }
            lock.unlock()
        default:
            leaveScreen()
            suspended = false
            let handler = self.handler
            lock.unlock()
            if let handler {
                handler.queue.async { handler.deliver(.terminate(signal: signo)) }
            } else {
                // Nobody to tell yet (between enter() and start(), or after stop()): end as the signal would have, restored.
                restore()
                exit(128 + signo)
            }
        }
    }

    /// TerminalQuerying: before ``start(on:handler:)``, writes the query and
    /// reads the answer with poll() until complete or the timeout. Raw mode
    /// is set for the duration if the terminal is not entered, so the answer
    /// is neither echoed nor line-buffered. After start() it returns nothing:
    /// the reader thread owns the input.
    public func ask(_ query: [UInt8], timeout: Duration, isComplete: ([UInt8]) -> Bool) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return [] }
        var original = termios()
        var temporary = false
        if !entered, tcgetattr(input, &original) == 0 {
            var raw = original
            Self.makeRaw(&raw)
            temporary = tcsetattr(input, TCSANOW, &raw) == 0
        }
        defer { if temporary { _ = tcsetattr(input, TCSANOW, &original) } }
        guard writeAll(query) else { return [] }

        let deadline = ContinuousClock.now + timeout
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !isComplete(answer) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var fd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fd, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = read(input, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        return answer
    }

    // MARK: - Internals

    /// cfmakeraw, keeping ISIG: Ctrl-C and Ctrl-Z stay signals.
    private static func makeRaw(_ t: inout termios) {
        t.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        t.c_oflag &= ~tcflag_t(OPOST)
        t.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN)
        t.c_lflag |= tcflag_t(ISIG)
        t.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        t.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
    }

    /// The write loop; the caller holds `lock` (or is on the exit path).
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer -> Bool in
            guard var pointer = buffer.baseAddress else { return true }
            var remaining = buffer.count
            while remaining > 0 {
                let written = systemWrite(output, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN {
                        var fd = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&fd, 1, 100)
                        continue
                    }
                    return false
                }
                pointer += written
                remaining -= written
            }
            return true
        }
    }

    /// The reader thread: input bytes to events; a lone ESC is flushed after 30 ms of quiet.
    private static func readLoop(
        input: Int32, wake: Int32, queue: DispatchQueue,
        handler: @escaping @Sendable (TerminalEvent) -> Void,
        hangUp: () -> Void
    ) {
        var decoder = InputDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var fds = [
                pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, decoder.hasPending ? 30 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            var events: [InputEvent]
            if ready == 0 {
                events = decoder.flush()
            } else {
                let count = read(input, &buffer, buffer.count)
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else {
                    // End of input: the terminal is gone.
                    hangUp()
                    queue.async { handler(.terminate(signal: SIGHUP)) }
                    return
                }
                events = decoder.feed(Array(buffer[0..<count]))
            }
            if !events.isEmpty {
                let batch = events
                queue.async { handler(.input(batch)) }
            }
        }
    }
}
