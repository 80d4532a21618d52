import Synchronization

/// A value behind a lock that escaping closures can share: `Mutex` itself
/// cannot be captured, being non-copyable.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    public var value: Value { mutex.withLock { $0 } }
}
