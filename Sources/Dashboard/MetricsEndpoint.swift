import Failures
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `GET /metrics` in Prometheus' text format, beside a worker: claims,
/// outcomes by kind, leases, pages, hotels, logos, stale lists. It is a
/// service, run in the worker's `ServiceGroup`:
///
/// ```swift
/// try await ProcessServices().run([worker, MetricsEndpoint(port: 9464)])
/// ```
///
/// An endpoint that cannot serve (its port in use, say) throws
/// ``CannotServe``, and the group stops the worker beside it.
public struct MetricsEndpoint: Service {
    public var host: String
    public var port: Int
    /// The process's metrics, from the endpoint's making on.
    let registry: PrometheusCollectorRegistry

    /// An endpoint on `host` (loopback by default) and `port`. The process's
    /// metrics go to its registry from now on: swift-metrics is bootstrapped
    /// once per process, so make one endpoint, before the worker.
    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
        registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }

    /// The endpoint could not serve (its port in use, say).
    public struct CannotServe: MeaningfulError, CustomStringConvertible {
        public var port: Int
        public var underlying: any Error
        public var description: String { "cannot serve metrics: \(underlying)" }
        /// Unavailable (69): another port may be free.
        public var meaning: ErrorMeaning { ErrorMeaning(kind: .unavailable, status: .unavailable, hint: "choose a free port") }
    }

    /// Serves the registry until the group shuts down.
    public func run() async throws {
        let router = Router()
        router.get("metrics") { [registry] _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hotelkit-worker"),
            logger: Logger(label: "hotelkit.metrics"))
        do {
            try await app.run()
        } catch {
            throw CannotServe(port: port, underlying: error)
        }
    }
}
