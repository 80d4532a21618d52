import Dispatch
import Foundation
import Scheduling
import Synchronization
import Testing

/// Operations that start when the queue says and finish when the test says.
final class ManualWork: Sendable {
    let main = DispatchQueue(label: "test.main")
    let worker = DispatchQueue(label: "test.worker")
    let queue: WorkQueue
    private let state = Shared<(started: [String], finishers: [String: @Sendable () -> Void], outcomes: [String: WorkOutcome])>(
        ([], [:], [:]))

    init(concurrency: Int) {
        queue = WorkQueue(name: "test", maxConcurrentOperationCount: concurrency, executor: worker, completionQueue: main)
    }

    var started: [String] { state.withLock { $0.started } }

    func record(_ name: String, _ outcome: WorkOutcome) {
        state.withLock { $0.outcomes[name] = outcome }
    }
    var outcomes: [String: WorkOutcome] { state.withLock { $0.outcomes } }

    func operation(_ name: String, priority: WorkPriority = .normal) -> WorkOperation {
        // Weak: the state keeps running operations' finishers, which hold the
        // queue, and a test may end with work still running.
        WorkOperation(
            name: name, priority: priority,
            body: { [weak state] _, finish in
                state?.withLock {
                    $0.started.append(name)
                    $0.finishers[name] = finish
                }
            }, completion: { [weak state] outcome in state?.withLock { $0.outcomes[name] = outcome } })
    }

    @discardableResult
    func add(_ name: String, priority: WorkPriority = .normal) -> WorkOperation {
        let operation = operation(name, priority: priority)
        queue.addOperation(operation)
        drain()
        return operation
    }

    func finish(_ name: String) {
        state.withLock { $0.finishers.removeValue(forKey: name) }?()
        drain()
    }

    func drain() {
        for _ in 0..<8 {
            worker.sync {}
            main.sync {}
        }
    }
}

@Suite("Work queue")
struct WorkQueueTests {
    @Test("At most maxConcurrentOperationCount run; the next starts when one finishes")
    func concurrencyLimit() {
        let work = ManualWork(concurrency: 2)
        for name in ["a", "b", "c", "d"] { work.add(name) }
        #expect(work.started == ["a", "b"])
        work.finish("a")
        #expect(work.started == ["a", "b", "c"])
        #expect(work.outcomes == ["a": .finished])
        #expect(work.queue.operationCount == 3)
    }

    @Test("Higher priority first, first in first out within a priority, and a waiting operation can be reprioritised")
    func priorities() {
        let work = ManualWork(concurrency: 1)
        work.add("running")
        work.add("low1", priority: .low)
        work.add("high", priority: .high)
        let promoted = work.add("low2", priority: .low)
        work.add("normal")
        promoted.priority = .veryHigh
        for name in ["running", "low2", "high", "normal", "low1"] { work.finish(name) }
        #expect(work.started == ["running", "low2", "high", "normal", "low1"])
    }

    @Test("Suspended: running operations go on, no waiting one starts; resuming starts them")
    func suspend() {
        let work = ManualWork(concurrency: 2)
        work.add("a")
        work.queue.isSuspended = true
        work.add("b")
        work.add("c")
        #expect(work.started == ["a"])
        work.finish("a")
        #expect(work.started == ["a"])
        #expect(work.outcomes["a"] == .finished)
        work.queue.isSuspended = false
        work.drain()
        #expect(work.started == ["a", "b", "c"])
    }

    @Test("Cancelling a waiting operation completes it as cancelled without starting it; a running one runs its cancel handlers")
    func cancel() {
        let work = ManualWork(concurrency: 1)
        let running = work.add("running")
        let waiting = work.add("waiting")
        let aborted = Shared(false)
        running.onCancel { aborted.withLock { $0 = true } }
        waiting.cancel()
        work.drain()
        #expect(work.outcomes["waiting"] == .cancelled)
        running.cancel()
        #expect(aborted.withLock { $0 })
        #expect(running.isCancelled && running.isExecuting && !running.isFinished)
        work.finish("running")
        #expect(running.isFinished && !running.isExecuting)
        #expect(work.outcomes["running"] == .cancelled)
        #expect(work.started == ["running"])
    }

    @Test(
        "A finished operation keeps nothing: not its body's captures, nor a cancel handler added after it ended; a dropped queue frees what waits in it"
    )
    func finishedOperationsKeepNothing() {
        final class Capture: Sendable {}
        let work = ManualWork(concurrency: 1)
        let operation = work.add("done")
        work.finish("done")
        weak var handlerCapture: Capture?
        do {
            let capture = Capture()
            handlerCapture = capture
            // As a logo request does when its answer came at once, before it registered the handler.
            operation.onCancel { withExtendedLifetime(capture) {} }
        }
        #expect(handlerCapture == nil)
        weak var bodyCapture: Capture?
        weak var droppedQueue: WorkQueue?
        do {
            let capture = Capture()
            bodyCapture = capture
            let queue = WorkQueue(name: "dropped", maxConcurrentOperationCount: 1, executor: work.worker, completionQueue: work.main)
            droppedQueue = queue
            queue.isSuspended = true
            queue.addOperation(
                WorkOperation(
                    name: "waiting",
                    body: { _, finish in
                        withExtendedLifetime(capture) {}
                        finish()
                    },
                    completion: { [weak work] outcome in work?.record("waiting", outcome) }))
        }
        #expect(droppedQueue == nil)
        #expect(bodyCapture == nil)
        // Its completion still comes, as cancelled: nobody awaiting it waits forever.
        work.drain()
        #expect(work.outcomes["waiting"] == .cancelled)
    }

    @Test("cancelAll reaches waiting and running operations")
    func cancelAll() {
        let work = ManualWork(concurrency: 1)
        let running = work.add("a")
        work.add("b")
        work.queue.cancelAll()
        work.drain()
        #expect(running.isCancelled)
        #expect(work.outcomes["b"] == .cancelled)
        work.finish("a")
        #expect(work.queue.operationCount == 0)
    }

    @Test("An operation waits for its dependencies, finished or cancelled")
    func dependencies() {
        let work = ManualWork(concurrency: 3)
        let first = work.operation("first")
        let second = work.operation("second")
        let last = work.operation("last", priority: .veryHigh)
        last.addDependency(first)
        last.addDependency(second)
        for operation in [last, first, second] { work.queue.addOperation(operation) }
        work.drain()
        #expect(work.started == ["first", "second"])
        work.finish("first")
        #expect(!work.started.contains("last"))
        second.cancel()
        work.finish("second")
        #expect(work.started == ["first", "second", "last"])
    }
}
