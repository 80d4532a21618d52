import Hummingbird
import Logging
import Prometheus

/// `GET /metrics` in Prometheus' text format, for `hotels worker --metrics-port`.
enum MetricsEndpoint {
    /// Serves `registry` until cancelled.
    static func run(registry: PrometheusCollectorRegistry, host: String, port: Int) async throws {
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
