import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The caught signals of one ``Terminal``: one dispatch source each, on a
/// serial queue so restore and re-enter never interleave, and what each
/// signal's disposition was before, to give it back.
///
/// `@unchecked Sendable`: `sources` and `previous` are set in init and only
/// read afterwards; `cancel()` runs once per set (``Terminal/restore()``
/// takes the set out under the terminal's lock first).
final class SignalSet: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    /// Signals whose disposition this set changed, with the one they had.
    private var previous: [(signal: Int32, action: SignalAction)] = []

    init(_ signals: [Int32], terminal: Terminal) {
        let queue = DispatchQueue(label: "Terminal.signals")
        for signo in signals {
            let before = SignalAction.current(signo)
            // Ignored on entry (SIGINT in a background job of a non-interactive shell, SIGTSTP without job control): stays ignored.
            if before.isIgnore && signo != SIGWINCH && signo != SIGCONT { continue }
            if before.isDefault {
                // Dispatch sees a signal only if its default action is off. Linux libdispatch installs its
                // forwarding handler once per process, so a later Terminal reuses the one it remembered.
                (SignalAction.dispatchForwarder(signo) ?? .ignore).install(signo)
                previous.append((signo, before))
            }
            let source = DispatchSource.makeSignalSource(signal: signo, queue: queue)
            source.setEventHandler { [weak terminal] in terminal?.handle(signal: signo) }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops the sources and gives each signal its previous disposition.
    func cancel() {
        for source in sources { source.cancel() }
        for (signo, action) in previous {
            SignalAction.rememberDispatchForwarder(signo)
            action.install(signo)
        }
    }
}

/// A signal disposition (sigaction), compared by its handler address.
struct SignalAction: @unchecked Sendable {
    // `@unchecked Sendable`: a plain C struct of a function pointer, flags and a mask.
    var action: sigaction

    static func current(_ signo: Int32) -> SignalAction {
        var action = sigaction()
        _ = sigaction(signo, nil, &action)
        return SignalAction(action: action)
    }

    static var ignore: SignalAction {
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = SIG_IGN
        #else
            action.__sigaction_u.__sa_handler = SIG_IGN
        #endif
        return SignalAction(action: action)
    }

    private var handlerAddress: Int {
        #if canImport(Glibc)
            unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #else
            unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #endif
    }

    var isDefault: Bool { handlerAddress == 0 }
    var isIgnore: Bool { handlerAddress == 1 }

    func install(_ signo: Int32) {
        var action = self.action
        _ = sigaction(signo, &action, nil)
    }

    private static let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private static var forwarders: [Int32: SignalAction] = [:]

    /// The handler dispatch installed for `signo` in an earlier ``SignalSet``, if any.
    static func dispatchForwarder(_ signo: Int32) -> SignalAction? {
        lock.lock()
        defer { lock.unlock() }
        return forwarders[signo]
    }

    /// Keeps the handler dispatch installed for `signo`, before it is replaced.
    static func rememberDispatchForwarder(_ signo: Int32) {
        let now = current(signo)
        guard !now.isDefault, !now.isIgnore else { return }
        lock.lock()
        defer { lock.unlock() }
        forwarders[signo] = now
    }
}

/// Restores entered terminals when the process exits through exit().
///
/// `@unchecked Sendable`: `terminals` is only touched under `lock`.
final class ExitGuard: @unchecked Sendable {
    static let shared = ExitGuard()
    private let lock = NSLock()
    private var terminals: [ObjectIdentifier: Terminal] = [:]
    private var registered = false

    func add(_ terminal: Terminal) {
        lock.lock()
        defer { lock.unlock() }
        terminals[ObjectIdentifier(terminal)] = terminal
        if !registered {
            registered = true
            atexit { ExitGuard.shared.restoreAll() }
        }
    }

    func remove(_ terminal: Terminal) {
        lock.lock()
        defer { lock.unlock() }
        terminals[ObjectIdentifier(terminal)] = nil
    }

    func restoreAll() {
        lock.lock()
        let all = Array(terminals.values)
        lock.unlock()
        for terminal in all { terminal.restore() }
    }
}

/// write(2); the name `write` is taken by ``Terminal/write(_:)`` inside the class.
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
