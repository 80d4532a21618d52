import Foundation
import Hummingbird
import Locking
import NIOCore

/// A request's context in the dashboard: Hummingbird's, and the client's address, which failed logins are counted by.
public struct DashboardContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected client; nil in the router's in-process tests.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's address as failed logins are counted: its IP, or `unknown`.
    var client: String { remoteAddress?.ipAddress ?? "unknown" }
}

/// Failed logins, per client address, over the last minute: after 5 each
/// attempt waits longer (1 s, doubling, at most 16 s) before it is answered,
/// and past 20 the form answers 429 until the minute has gone by. A guess at a
/// 16-character token then takes longer than anyone will wait.
final class LoginThrottle: Sendable {
    static let window: TimeInterval = 60
    static let freeAttempts = 5
    static let refusedAfter = 20

    private let now: @Sendable () -> Date
    private let failures = Locked<[String: [Date]]>([:])

    init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// What a login from `client` meets before its token is looked at.
    enum Verdict: Equatable {
        case proceed(after: Duration)
        case refused(retryAfter: Int)
    }

    func verdict(for client: String) -> Verdict {
        let recent = recentFailures(client)
        guard recent.count < Self.refusedAfter else {
            let oldest = recent.first ?? now()
            return .refused(retryAfter: max(1, Int((Self.window - now().timeIntervalSince(oldest)).rounded(.up))))
        }
        let beyond = recent.count - Self.freeAttempts
        return .proceed(after: beyond < 0 ? .zero : .seconds(min(16, 1 << min(beyond, 4))))
    }

    /// Counts a failed login; returns how many `client` has had in the last minute.
    func failed(_ client: String) -> Int {
        let time = now()
        return failures.withLock { failures in
            var recent = failures[client, default: []].filter { time.timeIntervalSince($0) < Self.window }
            recent.append(time)
            failures[client] = recent
            return recent.count
        }
    }

    private func recentFailures(_ client: String) -> [Date] {
        let time = now()
        return failures.withLock { failures in
            let recent = failures[client, default: []].filter { time.timeIntervalSince($0) < Self.window }
            failures[client] = recent.isEmpty ? nil : recent
            return recent
        }
    }
}
