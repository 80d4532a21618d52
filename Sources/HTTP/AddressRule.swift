import Foundation

/// Which addresses a transport may connect to.
public enum AddressRule: Sendable, Equatable {
    case any
    /// No private (RFC 1918, unique local), loopback, link-local (the cloud
    /// metadata service at 169.254.169.254), shared (CGNAT), multicast,
    /// reserved or unspecified address: what a URL from a supplier's data
    /// may reach when it must not reach this machine or its network.
    case publicOnly

    /// Whether any address `host` resolves to is one ``publicOnly`` refuses:
    /// a service on this machine or its network. A name that does not resolve is not.
    public static func isSpecial(host: String) -> Bool {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr,
                SocketAddress(UnsafeRawPointer(address), family: current.pointee.ai_family, length: Int(current.pointee.ai_addrlen))?
                    .isSpecial == true
            {
                return true
            }
            entry = current.pointee.ai_next
        }
        return false
    }
}

/// An IPv4 or IPv6 address read from a `sockaddr`.
struct SocketAddress: CustomStringConvertible {
    enum Bytes {
        case v4(UInt32)
        case v6([UInt8])
    }

    let bytes: Bytes

    /// Nil for a family other than IPv4 and IPv6, or an address shorter than its family's.
    init?(_ address: UnsafeRawPointer, family: Int32, length: Int) {
        switch family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            bytes = .v4(UInt32(bigEndian: address.loadUnaligned(as: sockaddr_in.self).sin_addr.s_addr))
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var ipv6 = address.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            bytes = .v6(withUnsafeBytes(of: &ipv6) { Array($0) })
        default:
            return nil
        }
    }

    /// Private, loopback, link-local, shared, multicast, reserved or unspecified.
    var isSpecial: Bool {
        switch bytes {
        case .v4(let address): Self.isSpecial(ipv4: address)
        case .v6(let address): Self.isSpecial(ipv6: address)
        }
    }

    private static func isSpecial(ipv4 address: UInt32) -> Bool {
        let blocks: [(network: UInt32, prefix: UInt32)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16),
            (0xAC10_0000, 12), (0xC000_0000, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xE000_0000, 4), (0xF000_0000, 4),
        ]
        return blocks.contains { address >> (32 - $0.prefix) == $0.network >> (32 - $0.prefix) }
    }

    private static func isSpecial(ipv6 address: [UInt8]) -> Bool {
        guard address.count == 16 else { return true }
        // An IPv4 address inside IPv6 (mapped ::ffff:a.b.c.d, or NAT64's 64:ff9b::a.b.c.d) is judged as IPv4.
        let embedded = address[12...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if address[..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF { return isSpecial(ipv4: embedded) }
        if address[..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return isSpecial(ipv4: embedded) }
        if address[..<15].allSatisfy({ $0 == 0 }) { return true }  // :: and ::1
        if address[0] & 0xFE == 0xFC { return true }  // fc00::/7, unique local
        if address[0] == 0xFE && address[1] & 0xC0 == 0x80 { return true }  // fe80::/10, link-local
        return address[0] == 0xFF  // ff00::/8, multicast
    }

    var description: String {
        switch bytes {
        case .v4(let address): return (0..<4).map { String(address >> (24 - 8 * $0) & 0xFF) }.joined(separator: ".")
        case .v6(let address):
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
    }
}
