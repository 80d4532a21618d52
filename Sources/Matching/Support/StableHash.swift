/// FNV-1a, 64 bits: the same on every machine and in every process, unlike
/// `Hasher`, so that what it makes can be stored and compared by a later run.
struct StableHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of a text's UTF-8 bytes.
    static func of(_ text: String) -> UInt64 {
        var hash = StableHash()
        hash.mix(text.utf8)
        return hash.value
    }

    /// A value and a mark after it, so that ("ab", "c") and ("a", "bc") differ; nil has a mark of its own.
    mutating func add(_ text: String?) {
        guard let text else { return mix(Self.absent) }
        mix(text.utf8)
        mix(Self.end)
    }

    mutating func add(_ number: Double?) {
        guard let number else { return mix(Self.absent) }
        add(Int64(bitPattern: number.bitPattern))
    }

    mutating func add(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { mix($0) }
        mix(Self.end)
    }

    private static let end: UInt8 = 0x1F
    private static let absent: UInt8 = 0x1E

    private mutating func mix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes { mix(byte) }
    }

    private mutating func mix(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01B3
    }
}
