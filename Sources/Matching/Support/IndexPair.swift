/// Two record indices as one number, the smaller in the high half: how
/// blocking and clustering key a pair. 8 bytes where a tuple of two `Int`s
/// takes 16, and the numbers sort as the pairs do.
enum IndexPair {
    static func key(_ a: Int, _ b: Int) -> UInt64 {
        a < b ? UInt64(a) << 32 | UInt64(b) : UInt64(b) << 32 | UInt64(a)
    }

    static func indices(_ key: UInt64) -> (first: Int, second: Int) {
        (Int(key >> 32), Int(key & 0xFFFF_FFFF))
    }
}
