import DequeModule
import Dispatch
import Locking

/// How urgently a waiting operation should start, as in OperationQueue.
public enum WorkPriority: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case veryLow, low, normal, high, veryHigh

    public static func < (lhs: WorkPriority, rhs: WorkPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .veryLow: "veryLow"
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        case .veryHigh: "veryHigh"
        }
    }
}

/// How an operation ended.
public enum WorkOutcome: Sendable, Equatable {
    case finished
    /// Cancelled before it started, or it stopped early after a cancel.
    case cancelled
}

/// One unit of asynchronous work for a ``WorkQueue``, with the semantics of
/// an asynchronous `Operation`: the body starts the work and calls `finish`
/// when it is done, from any thread.
///
/// Cancelling is real: handlers registered with ``onCancel(_:)`` run at once
/// (aborting a transfer, say), and the body checks ``isCancelled`` between
/// its stages.
public final class WorkOperation: Sendable, CustomStringConvertible {
    public typealias Body = @Sendable (_ operation: WorkOperation, _ finish: @escaping @Sendable () -> Void) -> Void

    enum Phase: Equatable {
        /// Not yet in a queue.
        case created
        /// In a queue, waiting for dependencies or a free slot.
        case waiting
        case executing
        case finished
    }

    struct State {
        var phase = Phase.created
        var priority: WorkPriority
        var cancelled = false
        var cancelHandlers: [@Sendable () -> Void] = []
        var unfinishedDependencies = 0
        var dependents: [WorkOperation] = []
        /// Weak: the queue holds its waiting operations, so a queue dropped
        /// with work still waiting frees it instead of keeping a cycle.
        weak var queue: WorkQueue?
        /// Taken out when the operation starts, and dropped when it ends
        /// unstarted, so a finished operation that someone still holds keeps
        /// nothing its body captured (a decoded logo, a pipeline).
        var body: Body?
        var completion: (@Sendable (WorkOutcome) -> Void)?
    }

    public let name: String
    let state: PosixMutex<State>

    /// - Parameters:
    ///   - name: The operation's name, its description.
    ///   - priority: How urgently it should start among the queue's waiting operations.
    ///   - body: The work; it calls `finish` when done.
    ///   - completion: Runs once on the queue's completion queue, whether
    ///     the operation finished or was cancelled.
    public init(
        name: String, priority: WorkPriority = .normal, body: @escaping Body,
        completion: (@Sendable (WorkOutcome) -> Void)? = nil
    ) {
        self.name = name
        state = PosixMutex(State(priority: priority, body: body, completion: completion))
    }

    public var description: String { name }

    public var isCancelled: Bool { state.withLock { $0.cancelled } }
    public var isExecuting: Bool { state.withLock { $0.phase == .executing } }
    public var isFinished: Bool { state.withLock { $0.phase == .finished } }

    /// Changing the priority of a waiting operation moves it in its queue.
    public var priority: WorkPriority {
        get { state.withLock { $0.priority } }
        set {
            let queue = state.withLock { state -> WorkQueue? in
                let old = state.priority
                state.priority = newValue
                return state.phase == .waiting && old != newValue ? state.queue : nil
            }
            queue?.reprioritize(self)
        }
    }

    /// This operation starts only after `other` has finished or been
    /// cancelled. Call before adding the operation to a queue.
    public func addDependency(_ other: WorkOperation) {
        let pending = other.state.withLock { otherState -> Bool in
            guard otherState.phase != .finished else { return false }
            otherState.dependents.append(self)
            return true
        }
        if pending { state.withLock { $0.unfinishedDependencies += 1 } }
    }

    /// Runs `handler` when the operation is cancelled, at once if it already
    /// is; never, once it has finished.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            // Work that ended before its body got here (an answer given at
            // once) must not keep a handler that holds the operation itself.
            guard state.phase != .finished else { return false }
            state.cancelHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Marks the operation finished and hands back who must hear of it: its
    /// completion and its dependents. After this it keeps nothing.
    func end() -> (completion: (@Sendable (WorkOutcome) -> Void)?, dependents: [WorkOperation]) {
        state.withLock { opState in
            opState.phase = .finished
            opState.cancelHandlers = []
            opState.body = nil
            defer {
                opState.completion = nil
                opState.dependents = []
            }
            return (opState.completion, opState.dependents)
        }
    }

    /// Marks the operation cancelled. A waiting operation leaves its queue
    /// and completes as cancelled; an executing one runs its cancel handlers
    /// and is expected to call `finish` soon.
    public func cancel() {
        let (handlers, queue, phase) = state.withLock { state -> ([@Sendable () -> Void], WorkQueue?, Phase) in
            guard !state.cancelled, state.phase != .finished else { return ([], nil, state.phase) }
            state.cancelled = true
            let handlers = state.cancelHandlers
            state.cancelHandlers = []
            return (handlers, state.queue, state.phase)
        }
        handlers.forEach { $0() }
        if phase == .waiting { queue?.removeWaiting(self) }
    }
}

/// An OperationQueue built on Dispatch: at most
/// ``maxConcurrentOperationCount`` operations run at once, highest priority
/// first (first in, first out within a priority); ``isSuspended`` lets
/// running operations go on but starts none; completions are delivered on
/// one serial queue, the caller's "main" queue.
public final class WorkQueue: Sendable {
    private struct State {
        /// Ready operations, one deque per priority.
        var ready = Array(repeating: Deque<WorkOperation>(), count: WorkPriority.allCases.count)
        /// Operations waiting for dependencies.
        var blocked: [ObjectIdentifier: WorkOperation] = [:]
        var running = 0
        var maxConcurrent: Int
        var suspended = false
    }

    public let name: String
    private let executor: DispatchQueue
    private let completionQueue: DispatchQueue
    private let state: PosixMutex<State>

    /// - Parameters:
    ///   - name: The queue's name, which labels its default executor.
    ///   - maxConcurrentOperationCount: Operations running at once at most (1 at least).
    ///   - executor: Where operation bodies start. A concurrent queue by
    ///     default; tests pass a serial one to step through the work.
    ///   - completionQueue: A serial queue for completions.
    public init(name: String, maxConcurrentOperationCount: Int, executor: DispatchQueue? = nil, completionQueue: DispatchQueue) {
        self.name = name
        self.executor = executor ?? DispatchQueue(label: "hotelkit.\(name)", attributes: .concurrent)
        self.completionQueue = completionQueue
        state = PosixMutex(State(maxConcurrent: max(1, maxConcurrentOperationCount)))
    }

    /// Operations still waiting when the queue goes away complete as
    /// cancelled, so a caller awaiting one is not left waiting forever.
    deinit {
        let waiting = state.withLock { state in state.ready.flatMap { Array($0) } + Array(state.blocked.values) }
        for operation in waiting {
            operation.state.withLock { $0.cancelled = true }
            if let completion = operation.end().completion { completionQueue.async { completion(.cancelled) } }
        }
    }

    public var maxConcurrentOperationCount: Int {
        get { state.withLock { $0.maxConcurrent } }
        set {
            state.withLock { $0.maxConcurrent = max(1, newValue) }
            startReady()
        }
    }

    /// While suspended, operations already running go on and no waiting one starts.
    public var isSuspended: Bool {
        get { state.withLock { $0.suspended } }
        set {
            state.withLock { $0.suspended = newValue }
            if !newValue { startReady() }
        }
    }

    /// Operations waiting or running.
    public var operationCount: Int {
        state.withLock { state in state.ready.reduce(0) { $0 + $1.count } + state.blocked.count + state.running }
    }

    public func addOperation(_ operation: WorkOperation) {
        let accepted = operation.state.withLock { opState -> (Bool, blocked: Bool, WorkPriority) in
            guard opState.phase == .created else { return (false, false, opState.priority) }
            opState.phase = .waiting
            opState.queue = self
            return (true, opState.unfinishedDependencies > 0, opState.priority)
        }
        guard accepted.0 else { return }
        if operation.isCancelled {
            finish(operation, outcome: .cancelled, wasRunning: false)
            return
        }
        state.withLock { state in
            if accepted.blocked {
                state.blocked[ObjectIdentifier(operation)] = operation
            } else {
                state.ready[accepted.2.rawValue].append(operation)
            }
        }
        startReady()
    }

    /// Adds a block as an operation that finishes when the block returns.
    @discardableResult
    public func addOperation(
        name: String, priority: WorkPriority = .normal, _ block: @escaping @Sendable (WorkOperation) -> Void,
        completion: (@Sendable (WorkOutcome) -> Void)? = nil
    ) -> WorkOperation {
        let operation = WorkOperation(
            name: name, priority: priority,
            body: { operation, finish in
                block(operation)
                finish()
            }, completion: completion)
        addOperation(operation)
        return operation
    }

    /// Cancels every operation in the queue, waiting or running.
    public func cancelAll() {
        let all = state.withLock { state in state.ready.flatMap { Array($0) } + Array(state.blocked.values) }
        all.forEach { $0.cancel() }
        runningOperations.withLock { Array($0.values) }.forEach { $0.cancel() }
    }

    /// Running operations, kept so that ``cancelAll()`` reaches them.
    private let runningOperations = PosixMutex<[ObjectIdentifier: WorkOperation]>([:])

    func reprioritize(_ operation: WorkOperation) {
        state.withLock { state in
            if Self.removeReady(operation, from: &state) {
                state.ready[operation.state.withLock { $0.priority }.rawValue].append(operation)
            }
        }
        startReady()
    }

    func removeWaiting(_ operation: WorkOperation) {
        let removed = state.withLock { state in
            state.blocked.removeValue(forKey: ObjectIdentifier(operation)) != nil || Self.removeReady(operation, from: &state)
        }
        if removed { finish(operation, outcome: .cancelled, wasRunning: false) }
    }

    /// Takes `operation` out of whichever ready deque holds it; false if none does.
    private static func removeReady(_ operation: WorkOperation, from state: inout State) -> Bool {
        for index in state.ready.indices {
            if let position = state.ready[index].firstIndex(where: { $0 === operation }) {
                state.ready[index].remove(at: position)
                return true
            }
        }
        return false
    }

    func dependencyFinished(for operation: WorkOperation) {
        let nowReady = operation.state.withLock { opState -> Bool in
            opState.unfinishedDependencies -= 1
            return opState.unfinishedDependencies == 0 && opState.phase == .waiting
        }
        guard nowReady else { return }
        state.withLock { state in
            if state.blocked.removeValue(forKey: ObjectIdentifier(operation)) != nil {
                state.ready[operation.state.withLock { $0.priority }.rawValue].append(operation)
            }
        }
        startReady()
    }

    /// Starts ready operations while there is a free slot and the queue is not suspended.
    private func startReady() {
        let starting = state.withLock { state -> [WorkOperation] in
            var starting: [WorkOperation] = []
            while !state.suspended, state.running < state.maxConcurrent,
                let level = state.ready.indices.last(where: { !state.ready[$0].isEmpty })
            {
                starting.append(state.ready[level].removeFirst())
                state.running += 1
            }
            return starting
        }
        for operation in starting {
            let body = operation.state.withLock { state in
                state.phase = .executing
                defer { state.body = nil }
                return state.body
            }
            runningOperations.withLock { $0[ObjectIdentifier(operation)] = operation }
            executor.async { [self] in
                let finished = Locked(false)
                (body ?? { _, finish in finish() })(operation) { [self] in
                    // A body that calls finish twice must not free two slots.
                    guard
                        finished.withLock({ done in
                            defer { done = true }
                            return !done
                        })
                    else { return }
                    runningOperations.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(operation)) }
                    self.finish(operation, outcome: operation.isCancelled ? .cancelled : .finished, wasRunning: true)
                }
            }
        }
    }

    private func finish(_ operation: WorkOperation, outcome: WorkOutcome, wasRunning: Bool) {
        let (completion, dependents) = operation.end()
        if wasRunning { state.withLock { $0.running -= 1 } }
        if let completion { completionQueue.async { completion(outcome) } }
        for dependent in dependents {
            dependent.state.withLock { $0.queue }?.dependencyFinished(for: dependent)
        }
        startReady()
    }
}
