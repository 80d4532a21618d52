import Logging

/// How idempotent requests are retried: at most `maxRetries` times, after an
/// exponential backoff with full jitter.
public struct RetryPolicy: Sendable {
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    /// Three retries, from 200 ms up to 5 s apart.
    public init(maxRetries: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5)) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// No retries at all.
    public static let never = RetryPolicy(maxRetries: 0)

    /// A random delay up to `baseDelay × 2^(attempt - 1)`, capped.
    public func delay(beforeRetry attempt: Int) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(20, attempt - 1)))
        return ceiling * Double.random(in: 0...1)
    }

    /// Runs `operation`, retrying the errors `isRetryable` accepts (by
    /// default the network's: ``TransportError/isRetryable``). Each retry is
    /// logged as a warning, `"<context>: <error>; retry N of M"`.
    public func run<T: Sendable>(
        logger: Logger? = nil,
        context: @autoclosure () -> String = "",
        isRetryable: (any Error) -> Bool = { ($0 as? TransportError)?.isRetryable ?? false },
        _ operation: () async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await operation()
            } catch {
                attempt += 1
                guard attempt <= maxRetries, isRetryable(error), !Task.isCancelled else { throw error }
                let prefix = context()
                logger?.warning("\(prefix.isEmpty ? "" : prefix + ": ")\(error); retry \(attempt) of \(maxRetries)")
                try await Task.sleep(for: delay(beforeRetry: attempt))
            }
        }
    }
}
