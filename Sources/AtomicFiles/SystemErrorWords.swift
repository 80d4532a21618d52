#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the operating system says of a failed call, in lower case as it
/// reads inside a sentence: `no space left on device`, `connection refused`.
/// Every message that names an `errno` says it in these words, never as a number or a type's dump.
public enum SystemErrorWords {
    public static func of(errno code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
