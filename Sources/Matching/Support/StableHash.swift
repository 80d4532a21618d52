/// FNV-1a, 64 bits: the same on every machine and in every process, unlike
/// `Hasher`, so that what it makes can be stored and compared by a later run.
///
/// Values are added as ``UnambiguousBytes`` says.
struct StableHash: UnambiguousBytes {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of a text's UTF-8 bytes, as they are.
    static func of(_ text: String) -> UInt64 {
        var hash = StableHash()
        hash.append(text.utf8)
        return hash.value
    }

    mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes { mix(byte) }
    }

    private mutating func mix(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01B3
    }
}

/// What values are added to as bytes in a form no two sequences share: a
/// number as its 8 bytes, a text as its length and then its bytes, an
/// optional behind a byte that says whether it is there. So ("ab", "c") and
/// ("a", "bc") differ, whatever characters supplier data holds.
protocol UnambiguousBytes {
    mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes)
}

extension UnambiguousBytes {
    mutating func add(_ text: String?) {
        guard let text else { return append(CollectionOfOne(0)) }
        append(CollectionOfOne(1))
        add(Int64(text.utf8.count))
        append(text.utf8)
    }

    mutating func add(_ number: Double?) {
        guard let number else { return append(CollectionOfOne(0)) }
        append(CollectionOfOne(1))
        add(Int64(bitPattern: number.bitPattern))
    }

    mutating func add(_ hash: UInt64?) {
        guard let hash else { return append(CollectionOfOne(0)) }
        append(CollectionOfOne(1))
        add(Int64(bitPattern: hash))
    }

    mutating func add(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { append($0) }
    }

    /// A record's key: its supplier's profile and endpoint, then its code.
    mutating func add(_ key: RecordKey) {
        add(key.supplier.profile)
        add(key.supplier.endpoint)
        add(key.code)
    }
}
