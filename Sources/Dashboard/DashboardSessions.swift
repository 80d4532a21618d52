import Foundation
import Locking

/// Logged-in browsers. The login cookie carries a random session id, never the
/// token in any form: a logged or leaked cookie gives away one session, which
/// ends after ``idleLimit`` without a request, or at `POST /logout`, and the
/// token stays the operator's. Sessions live in memory: a restarted dashboard
/// asks every browser to log in again.
final class DashboardSessions: Sendable {
    /// Twelve hours without a request.
    static let defaultIdleLimit: TimeInterval = 12 * 3600

    let idleLimit: TimeInterval
    private let now: @Sendable () -> Date
    /// Each session's id and its last request.
    private let lastSeen = Locked<[String: Date]>([:])

    init(idleLimit: TimeInterval = defaultIdleLimit, now: @escaping @Sendable () -> Date = { Date() }) {
        self.idleLimit = idleLimit
        self.now = now
    }

    /// A new session's id: 32 random bytes, in hexadecimal.
    func start() -> String {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
        let time = now()
        lastSeen.withLock { sessions in
            // Ended sessions are forgotten as new ones start, so the table holds the live ones only.
            sessions = sessions.filter { time.timeIntervalSince($0.value) < idleLimit }
            sessions[id] = time
        }
        return id
    }

    /// Whether `id` is a live session; a request in it keeps it alive.
    func touch(_ id: String) -> Bool {
        let time = now()
        return lastSeen.withLock { sessions in
            guard let last = sessions[id] else { return false }
            guard time.timeIntervalSince(last) < idleLimit else {
                sessions[id] = nil
                return false
            }
            sessions[id] = time
            return true
        }
    }

    func end(_ id: String) {
        _ = lastSeen.withLock { $0.removeValue(forKey: id) }
    }
}
