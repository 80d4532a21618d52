import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 exchange over a plain loopback socket, as written: for what a
/// client library hides (a redirect's own headers, a Host of one's choosing).
public enum RawHTTP {
    /// Sends `request` (its head with `Connection: close`, and any body) to 127.0.0.1:`port`; returns all
    /// the server wrote until it closed.
    public static func exchange(port: Int, _ request: String) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw POSIXError(.EPIPE) }
            sent += count
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            response += chunk[..<count]
        }
        return String(decoding: response, as: UTF8.self)
    }
}
