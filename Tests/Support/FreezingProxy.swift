import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of `targetPort`, to make a client meet
/// the half-open connection a database failover leaves behind: after
/// ``freeze()`` the connections open then carry nothing more either way and
/// are never closed, so no FIN or RST tells a peer anything, and a read
/// waits forever unless the client has a timeout of its own. Connections
/// made after the freeze are forwarded as usual, as a new primary would be.
///
/// A descriptor is only ever closed by the last thread that uses it, under
/// the lock, so no thread can touch a number the process has since reused;
/// ``close()`` shuts sockets down (which wakes their threads) and waits.
public final class FreezingProxy: Sendable {
    /// The loopback port it listens on.
    public let port: Int
    private let listener: Int32
    private let shared = Shared()

    public init(targetPort: Int, targetHost: String = "127.0.0.1") throws {
        let target = try Self.resolve(targetHost, port: targetPort)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw FreezingProxyError("socket") }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 64) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard listening else {
            let error = FreezingProxyError("listen on 127.0.0.1")
            Glibc.close(descriptor)
            throw error
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        // The threads hold `shared`, never `self`: deinit must still run while they do.
        Thread.detachNewThread { [shared] in shared.acceptLoop(listener: descriptor, target: target) }
    }

    /// Stops forwarding on every connection open now, in both directions,
    /// without closing any of them (no FIN, no RST): a peer waits forever.
    /// Bytes read but not yet written are dropped. Connections accepted
    /// later are forwarded as usual.
    public func freeze() {
        shared.state.withLock { state in
            for id in state.links.keys where !state.links[id]!.ended { state.links[id]!.frozen = true }
        }
    }

    /// How many connections it has accepted so far.
    public var accepted: Int { shared.state.withLock { $0.accepted } }
    /// How many connections are frozen now (until ``close()``).
    public var frozen: Int { shared.state.withLock { state in state.links.values.filter(\.frozen).count } }

    /// Closes the listener and every connection, frozen ones too, and waits
    /// (a second at most) for their threads, which close the descriptors.
    public func close() {
        let first = shared.state.withLock { state in
            defer { state.closed = true }
            guard !state.closed else { return false }
            shutdown(listener, Int32(SHUT_RDWR))  // wakes the blocking accept
            for link in state.links.values { link.shutDown() }
            return true
        }
        guard first else { return }
        let deadline = Date().addingTimeInterval(1)
        while shared.state.withLock({ $0.listening || !$0.links.isEmpty }), Date() < deadline { usleep(5_000) }
    }

    deinit { close() }

    private static func resolve(_ host: String, port: Int) throws -> sockaddr_in {
        guard let port = UInt16(exactly: port) else { throw FreezingProxyError(description: "no such port: \(port)") }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &found)
        defer { if let found { freeaddrinfo(found) } }
        guard status == 0, let address = found?.pointee.ai_addr else {
            throw FreezingProxyError(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        var resolved = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
        resolved.sin_port = port.bigEndian
        return resolved
    }
}

/// Why a ``FreezingProxy`` could not start.
public struct FreezingProxyError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }

    /// `what` failed with the current errno.
    init(_ what: String) { description = "\(what): \(String(cString: strerror(errno)))" }
}

/// What the proxy's threads share; every syscall on a connection's sockets
/// that must not race a freeze or a close is made under its lock, and never blocks.
private final class Shared: Sendable {
    struct Link {
        var client: Int32
        var server: Int32 = -1
        var frozen = false
        var ended = false
        var threads = 1

        func shutDown() {
            shutdown(client, Int32(SHUT_RDWR))
            if server >= 0 { shutdown(server, Int32(SHUT_RDWR)) }  // also aborts a connect under way
        }
    }

    struct State {
        var closed = false
        var listening = true
        var accepted = 0  // also the last connection's id
        var links: [Int: Link] = [:]
    }

    let state = PosixMutex(State())

    func acceptLoop(listener: Int32, target: sockaddr_in) {
        defer {
            state.withLock {
                $0.listening = false
                Glibc.close(listener)
            }
        }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0, errno == EINTR || errno == ECONNABORTED { continue }
            guard client >= 0 else { return }  // shut down by close(), or out of descriptors
            let id: Int? = state.withLock { state in
                guard !state.closed else {
                    Glibc.close(client)
                    return nil
                }
                state.accepted += 1
                state.links[state.accepted] = Link(client: client)
                return state.accepted
            }
            guard let id else { return }
            Thread.detachNewThread { [self] in connect(id, client: client, target: target) }
        }
    }

    /// Connects to the target, then pumps client to server here and server to client on another thread.
    private func connect(_ id: Int, client: Int32, target: sockaddr_in) {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let proceed = state.withLock { state in
            if server >= 0 { state.links[id]!.server = server }
            return server >= 0 && !state.closed
        }
        var address = target
        let connected =
            proceed
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        guard connected else {
            end(id)
            return finish(id)
        }
        state.withLock { $0.links[id]!.threads += 1 }
        Thread.detachNewThread { [self] in pump(id, from: server, to: client) }
        pump(id, from: client, to: server)
    }

    private enum Phase { case open, frozen, over }

    private func pump(_ id: Int, from source: Int32, to destination: Int32) {
        defer { finish(id) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        // Runs a non-blocking call on the sockets while open; nil when frozen or over.
        func ifOpen(_ call: (inout [UInt8]) -> Int) -> (result: Int, errno: Int32)? {
            state.withLock { state in
                let link = state.links[id]!
                guard !state.closed, !link.ended, !link.frozen else { return nil }
                let result = call(&buffer)
                return (result, errno)
            }
        }
        func phase() -> Phase {
            state.withLock { state in
                let link = state.links[id]!
                return state.closed || link.ended ? .over : link.frozen ? .frozen : .open
            }
        }
        reading: while true {
            switch phase() {
            case .over: return
            case .frozen:
                poll(nil, 0, 100)
                continue
            case .open: break
            }
            var readable = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
            guard poll(&readable, 1, 100) > 0 else { continue }
            guard let (count, error) = ifOpen({ recv(source, &$0, $0.count, Int32(MSG_DONTWAIT)) }) else { continue }
            if count < 0, error == EAGAIN || error == EINTR { continue }
            guard count > 0 else { return end(id) }  // either side gone: close both
            var offset = 0
            while offset < count {
                let sent = ifOpen { bytes in
                    bytes.withUnsafeBytes {
                        send(destination, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                }
                guard let (written, error) = sent else { continue reading }  // frozen: the rest is dropped
                if written > 0 {
                    offset += written
                    continue
                }
                guard written < 0, error == EAGAIN || error == EINTR else { return end(id) }
                var writable = pollfd(fd: destination, events: Int16(POLLOUT), revents: 0)
                poll(&writable, 1, 100)
            }
        }
    }

    /// Ends a connection that is not frozen: both peers see it closed.
    private func end(_ id: Int) {
        state.withLock { state in
            guard !state.links[id]!.frozen else { return }
            state.links[id]!.ended = true
            state.links[id]!.shutDown()
        }
    }

    /// The last of a connection's threads closes its sockets.
    private func finish(_ id: Int) {
        state.withLock { state in
            state.links[id]!.threads -= 1
            guard let link = state.links[id], link.threads == 0 else { return }
            Glibc.close(link.client)
            if link.server >= 0 { Glibc.close(link.server) }
            state.links[id] = nil
        }
    }
}
