#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stops the run as a finding when an invariant does not hold: libFuzzer
/// saves the input that did it as a crash artifact.
public func invariant(_ holds: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard !holds() else { return }
    let text = Array("invariant broken: \(message())\n".utf8)
    _ = write(STDERR_FILENO, text, text.count)
    abort()
}

/// A small deterministic generator seeded from the input, so a finding
/// replays exactly.
public struct InputRandom {
    private var state: UInt64

    public init(_ bytes: UnsafeRawBufferPointer) {
        state = bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }  // FNV-1a
    }

    public mutating func next(below bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Hands the command line to libFuzzer with `target` as the function it
/// fuzzes. SwiftPM links an executable's own `main`, so libFuzzer's cannot
/// be the entry point: its driver is called instead.
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}

/// The input as a buffer (libFuzzer passes a null pointer for empty input).
public func input(_ start: UnsafePointer<UInt8>?, _ count: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count)
}
