/// A value behind a lock that escaping closures can share: `PosixMutex` itself
/// cannot be captured, being non-copyable.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: PosixMutex<Value>

    public init(_ value: Value) {
        mutex = PosixMutex(value)
    }

    public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    public var value: Value { mutex.withLock { $0 } }
}
