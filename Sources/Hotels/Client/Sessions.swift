import Foundation
import SOAP

/// One session with a stateful service: its values and how far it has come.
public struct SessionState: Sendable, Equatable {
    /// The pool's number for this session, for logs and for paging that must stay in it.
    public let id: Int
    /// Values set when the session started, and captured from its replies.
    public var captured: [String: String]
    /// Calls answered in this session so far: the login, pages, the logout.
    public var calls = 0
    /// Whether the service knows this session: its login, or its first call, was answered.
    public var isStarted = false

    public init(id: Int, captured: [String: String] = [:]) {
        self.id = id
        self.captured = captured
    }

    /// The next call is the one that starts the session.
    public var isStarting: Bool { !isStarted }

    /// A call in this session was answered: the service knows the session now.
    public mutating func answered() {
        calls += 1
        isStarted = true
    }

    /// What `{session.NAME}` is in the next call: captured values, counters
    /// (a captured value of the counter's name plus one, else its first value
    /// plus the calls so far), and the transaction status.
    public func values(for call: RequestBuilder.Call, options: SessionOptions?) -> [String: String] {
        var values = captured
        guard let options else { return values }
        for (name, first) in options.counters {
            values[name] = captured[name].flatMap { Int($0) }.map { String($0 + 1) } ?? String(first + calls)
        }
        if let status = options.status {
            values["status"] = call == .logout ? status.last : (calls == 0 ? status.first : status.next)
        }
        return values
    }
}

/// How session values travel in a parsed page's header values.
enum SessionValues {
    static let prefix = "session."

    static func headerKey(_ name: String) -> String { prefix + name }

    /// The session's captured values in a page's header values.
    static func captured(in headerValues: [String: String]) -> [String: String] {
        var values: [String: String] = [:]
        for (key, value) in headerValues where key.hasPrefix(prefix) { values[String(key.dropFirst(prefix.count))] = value }
        return values
    }

    /// The page's own header values, without the session's.
    static func withoutSession(_ headerValues: [String: String]) -> [String: String] {
        headerValues.filter { !$0.key.hasPrefix(prefix) }
    }
}

/// At most `size` sessions, each used by one call at a time. A caller may
/// ask for the session it used before, so paging stays in one session.
///
/// A list's pages also *hold* their session between calls (``Hold``): a
/// stateful service keeps a search's "more" rows in the session that ran it,
/// and another list's search there would replace them. So lists that page at
/// once use different sessions, and a list beyond the pool's size waits for
/// one to end.
actor SessionPool {
    /// A list's claim on the session its paging runs in, from its first page
    /// to its last. Dropped early (the list's iterator is dropped), it frees
    /// the session all the same.
    final class Hold: Sendable {
        let id: Int
        private let pool: SessionPool

        fileprivate init(id: Int, pool: SessionPool) {
            self.id = id
            self.pool = pool
        }

        deinit {
            let (pool, id) = (pool, id)
            Task { await pool.release(holder: id) }
        }
    }

    private let size: Int
    private let makeSession: @Sendable (Int) -> SessionState
    private var idle: [SessionState] = []
    private var leased: Set<Int> = []
    /// Session id → the hold that keeps it for one list.
    private var holds: [Int: Int] = [:]
    private var holdsMade = 0
    private var created = 0
    private var waiters: [(preferred: Int?, continuation: CheckedContinuation<SessionState, Never>)] = []

    init(size: Int, makeSession: @escaping @Sendable (Int) -> SessionState) {
        self.size = size
        self.makeSession = makeSession
    }

    /// A new hold, for a list about to page.
    func hold() -> Hold {
        holdsMade += 1
        return Hold(id: holdsMade, pool: self)
    }

    /// A session: `preferred` when it still exists (waiting while it is in
    /// use), else an idle one no list holds, else a new one while there are
    /// fewer than `size`, else the first to come back free.
    func lease(preferring preferred: Int? = nil) async -> SessionState {
        if let preferred, let index = idle.firstIndex(where: { $0.id == preferred }) {
            return take(idle.remove(at: index))
        }
        if let preferred, leased.contains(preferred) {
            return await withCheckedContinuation { waiters.append((preferred, $0)) }
        }
        if let index = idle.firstIndex(where: { holds[$0.id] == nil }) { return take(idle.remove(at: index)) }
        if created < size {
            created += 1
            return take(makeSession(created))
        }
        return await withCheckedContinuation { waiters.append((nil, $0)) }
    }

    /// Returns a session after a call; `holder`, the list the call paged,
    /// keeps it until its next page.
    func giveBack(_ session: SessionState, heldFor holder: Int? = nil) {
        leased.remove(session.id)
        if let holder, holds[session.id] != holder {
            release(holder: holder)
            holds[session.id] = holder
        }
        let waiter =
            waiters.firstIndex { $0.preferred == session.id }
            ?? (holds[session.id] == nil ? waiters.firstIndex { $0.preferred == nil } : nil)
        if let waiter {
            waiters.remove(at: waiter).continuation.resume(returning: take(session))
        } else {
            idle.append(session)
        }
    }

    /// Frees the session `holder` keeps: its list ended, or was dropped.
    func release(holder: Int) {
        for (id, _) in holds.filter({ $0.value == holder }) {
            holds[id] = nil
            if let index = idle.firstIndex(where: { $0.id == id }), let waiter = waiters.firstIndex(where: { $0.preferred == nil }) {
                waiters.remove(at: waiter).continuation.resume(returning: take(idle.remove(at: index)))
            }
        }
    }

    /// A new session in the place of an expired one.
    func fresh(replacing session: SessionState) -> SessionState {
        makeSession(session.id)
    }

    /// Takes every idle session the service knows, to log it out: the pool is empty after.
    func closeAll() -> [SessionState] {
        let started = idle.filter(\.isStarted)
        for session in idle { holds[session.id] = nil }
        idle.removeAll()
        return started
    }

    /// How many sessions were ever made: at most `size`.
    var sessionsCreated: Int { created }

    private func take(_ session: SessionState) -> SessionState {
        leased.insert(session.id)
        return session
    }
}

/// Reads a session call's reply (a login, a logout): the session's captured
/// values from its Header and its Body; a fault is thrown.
final class SessionReplyReader: SOAPBodyHandler {
    private let header: HeaderValueReader
    private let body: HeaderValueReader

    init(captures: [String: DocumentPath], names: XMLNameTable) {
        header = HeaderValueReader(captures, names: names)
        body = HeaderValueReader(captures, names: names)
    }

    var headerHandler: (any XMLEventHandler)? { header }

    /// The Header's value where both have one.
    var values: [String: String] { body.values.merging(header.values) { _, header in header } }

    func startElement(_ element: XMLStartElement) throws { try body.startElement(element) }
    func endElement(_ localName: XMLName) throws { try body.endElement(localName) }
    func characters(_ text: UnsafeBufferPointer<UInt8>) throws { try body.characters(text) }
    func bodyDidEnd() throws {}
}

/// Makes a pool's sessions: each with its `start` values rendered once
/// (a ConversationId from `{uuid}`), which are secrets like every session id.
struct SessionStarter: Sendable {
    let options: SessionOptions
    let endpoint: String
    let credentials: Credentials
    let secrets: SecretRedactor

    func session(id: Int) -> SessionState {
        let values = RequestValues(endpoint: endpoint, credentials: credentials.values)
        var captured: [String: String] = [:]
        for (name, template) in options.start {
            let value = template.render(values) { $0 }
            secrets.add(value)
            captured[name] = value
        }
        return SessionState(id: id, captured: captured)
    }
}
