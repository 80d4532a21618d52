import Hummingbird
import Logging
import Metrics
import Prometheus
import Workers

/// `GET /metrics` in Prometheus' text format, beside a worker: claims,
/// outcomes by kind, leases, pages, hotels, logos, stale lists.
///
/// ```swift
/// try await MetricsEndpoint(port: 9464).run(worker)
/// ```
public struct MetricsEndpoint: Sendable {
    public var host: String
    public var port: Int

    /// An endpoint on `host` (loopback by default) and `port`.
    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// The endpoint could not serve (its port in use, say): the worker beside it was stopped.
    public struct CannotServe: Error, CustomStringConvertible {
        public var port: Int
        public var underlying: any Error
        public var description: String { "cannot serve metrics: \(underlying)" }
    }

    /// Runs `worker` until it stops, with the endpoint serving its metrics.
    /// The process's metrics go to a Prometheus registry from now on (swift-metrics
    /// is bootstrapped once per process). An endpoint that cannot serve stops the
    /// worker, and ``CannotServe`` is thrown once the worker has stopped; the
    /// worker's own failure comes first.
    public func run(_ worker: Worker) async throws {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let serving = Task { () -> (any Error)? in
            do {
                try await serve(registry)
                return nil
            } catch where !Task.isCancelled {
                worker.stop()
                return error
            } catch {
                return nil
            }
        }
        // The endpoint stops with the worker, however the worker ends.
        var workerError: (any Error)?
        do { try await worker.run() } catch { workerError = error }
        serving.cancel()
        let endpointError = await serving.value
        if let workerError { throw workerError }
        if let endpointError { throw CannotServe(port: port, underlying: endpointError) }
    }

    /// Serves `registry` until cancelled.
    public func serve(_ registry: PrometheusCollectorRegistry) async throws {
        let router = Router()
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hotelkit-worker"),
                              logger: Logger(label: "hotelkit.metrics"))
        try await app.runService(gracefulShutdownSignals: [])
    }
}
