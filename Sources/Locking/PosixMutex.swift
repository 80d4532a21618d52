#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a pthread mutex, with the API of `Synchronization.Mutex`.
///
/// HotelKit locks with this rather than `Synchronization.Mutex` because, on
/// Linux, that one waits with raw futex system calls, which ThreadSanitizer
/// cannot see: every section it guards, and everything published through
/// one, was reported as a race. ThreadSanitizer intercepts `pthread_mutex_lock`
/// and `pthread_mutex_unlock`, so it sees each unlock happen before the next
/// lock, and a report is a real race. Uncontended, both cost about the same.
public struct PosixMutex<Value: ~Copyable>: ~Copyable {
    // Both on the heap: a pthread mutex must never move, and a value of a
    // non-copyable type may; the value is reached through the same pointer
    // from every thread, never copied.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    public init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

// @unchecked Sendable: the value is only reached inside withLock, under the
// mutex, and goes in and out as `sending`, as with Synchronization.Mutex.
extension PosixMutex: @unchecked Sendable where Value: ~Copyable {}
