import Dispatch
import Locking
import Testing

@Suite("PosixMutex")
struct PosixMutexTests {
    @Test("increments from many threads are never lost")
    func exclusive() {
        let counter = PosixMutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("the value is released with the mutex, and an error thrown inside comes out unchanged")
    func lifetime() {
        final class Tracked: Sendable {}
        struct Refused: Error, Equatable {}
        weak var weakValue: Tracked?
        do {
            let mutex = PosixMutex(Tracked())
            weakValue = mutex.withLock { $0 }
            #expect(weakValue != nil)
            #expect(throws: Refused()) { try mutex.withLock { _ throws(Refused) in throw Refused() } }
        }
        #expect(weakValue == nil)
    }
}
