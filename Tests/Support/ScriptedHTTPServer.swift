import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP server that answers each request with a script, to make
/// a client meet the misbehaviour of real services: slow bodies, resets,
/// oversized chunked bodies, redirect loops, error pages. Keep-alive is
/// honoured, so connection reuse can be counted.
public final class ScriptedHTTPServer: Sendable {
    /// One parsed request.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public var body: [UInt8]
        /// Which accepted connection carried it, counting from 1.
        public var connection: Int
    }

    /// What a script can do to its connection.
    public final class Connection: @unchecked Sendable {
        // @unchecked: used only by the thread that serves this connection.
        fileprivate let descriptor: Int32
        fileprivate var closed = false

        fileprivate init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        public func write(_ text: String) { write(Array(text.utf8)) }

        /// Whether a write failed: the client has gone.
        public var isClosedForTesting: Bool { closed }

        public func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let sent = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if sent <= 0 {
                        closed = true
                        return
                    }
                    offset += sent
                }
            }
        }

        /// A complete response with a Content-Length.
        public func respond(status: Int = 200, reason: String = "OK", headers: [String: String] = [:], body: [UInt8]) {
            var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            write(Array((head + "\r\n").utf8) + body)
        }

        public func respond(status: Int = 200, reason: String = "OK", contentType: String, body: String) {
            respond(status: status, reason: reason, headers: ["Content-Type": contentType], body: Array(body.utf8))
        }

        /// Closes with a TCP reset: the client sees the connection broken.
        public func reset() {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            closed = true
        }

        /// Waits until the client closes its side, up to `seconds`; true if it did.
        public func waitForClientClose(seconds: Double) -> Bool {
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let deadline = Date().addingTimeInterval(seconds)
            var scratch = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                guard poll(&pollDescriptor, 1, 20) > 0 else { continue }
                if recv(descriptor, &scratch, scratch.count, 0) <= 0 { return true }
            }
            return false
        }
    }

    public let port: UInt16
    private let listener: Int32
    private let state = PosixMutex((connections: 0, requests: [Request](), stopped: false))

    /// `script` answers each request; it may write anything, or nothing.
    public init(script: @escaping @Sendable (Request, Connection) -> Void) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop(script) }
    }

    public var url: String { "http://127.0.0.1:\(port)" }
    public var connectionCount: Int { state.withLock { $0.connections } }
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Stops listening. Only the first call closes the socket: a second
    /// close could hit a descriptor number another test has since reused.
    public func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop(_ script: @escaping @Sendable (Request, Connection) -> Void) {
        // Stopped means the descriptor may already belong to someone else.
        while !state.withLock({ $0.stopped }) {
            let client = accept(listener, nil, nil)
            // A client that resets before it is accepted must not stop the server.
            if client < 0, errno == EINTR || errno == ECONNABORTED { continue }
            guard client >= 0 else { return }
            let serial = state.withLock { state in
                state.connections += 1
                return state.connections
            }
            Thread.detachNewThread { [self] in
                let connection = Connection(descriptor: client)
                defer { close(client) }
                var buffer: [UInt8] = []
                while !connection.closed, let request = readRequest(client, connection: serial, buffer: &buffer) {
                    state.withLock { $0.requests.append(request) }
                    script(request, connection)
                }
            }
        }
    }

    private func readRequest(_ descriptor: Int32, connection: Int, buffer: inout [UInt8]) -> Request? {
        var chunk = [UInt8](repeating: 0, count: 16384)
        func fill() -> Bool {
            var count: Int
            // A signal meant for another thread (a child's SIGCHLD) must not end the connection.
            repeat { count = recv(descriptor, &chunk, chunk.count, 0) } while count < 0 && errno == EINTR
            guard count > 0 else { return false }
            buffer += chunk[..<count]
            return true
        }
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            if let range = buffer.firstRange(of: separator) { headEnd = range.upperBound } else if !fill() { return nil }
        }
        guard let headEnd else { return nil }
        let lines = String(decoding: buffer[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < headEnd + length { if !fill() { return nil } }
        let body = Array(buffer[headEnd..<(headEnd + length)])
        buffer.removeFirst(headEnd + length)
        return Request(method: String(parts[0]), path: String(parts[1]), headers: headers, body: body, connection: connection)
    }
}
