import Logging
import ServiceLifecycle
import UnixSignals

/// Runs a long-lived command's services (a worker and its metrics endpoint,
/// the dashboard, the sample service) in one swift-service-lifecycle
/// `ServiceGroup`, with the ``HotelRuntime`` they share as the service that
/// closes last.
///
/// The first SIGTERM or SIGINT shuts the services down gracefully, the last
/// one given first: a worker stops claiming, lets its runs finish within its
/// grace period and gives the rest back; a server finishes the requests it is
/// answering. A second signal ends the process at once. When any service ends
/// or fails, the others are shut down the same way, and the first failure is
/// thrown.
///
/// ```swift
/// try await ProcessServices().run([worker, MetricsEndpoint(port: 9464)], closingLast: runtime)
/// ```
public struct ProcessServices: Sendable {
    public var logger: Logger

    public init(logger: Logger = Logger(label: "hotelkit.services")) {
        self.logger = logger
    }

    /// Runs `services` until one ends or fails, or a signal comes; `runtime`, when given, closes after all of them
    /// have stopped (``HotelRuntime/run()``).
    public func run(_ services: [any Service], closingLast runtime: HotelRuntime? = nil) async throws {
        // First in the group, so shut down last: it listens while the others stop.
        let secondSignal = ServiceGroupConfiguration.ServiceConfiguration(service: SecondSignal())
        // Next, so shut down once every service using it has returned.
        let closing = runtime.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0)] } ?? []
        let stopsTheGroup = services.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        var configuration = ServiceGroupConfiguration(services: [secondSignal] + closing + stopsTheGroup, logger: logger)
        configuration.gracefulShutdownSignals = [.sigterm, .sigint]
        try await ServiceGroup(configuration: configuration).run()
    }

    /// Runs `services` as ``run(_:closingLast:)`` does, and returns the first failure instead of throwing it,
    /// for the caller to report once everything, the runtime too, has stopped.
    public func failure(running services: [any Service], closingLast runtime: HotelRuntime? = nil) async -> (any Error)? {
        do {
            try await run(services, closingLast: runtime)
            return nil
        } catch {
            return error
        }
    }
}

/// The group turns the first SIGTERM or SIGINT into a graceful shutdown; a
/// second one, while the services are still stopping, ends the process at
/// once, as a second Ctrl-C does.
private struct SecondSignal: Service {
    func run() async {
        var seen = 0
        for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint).cancelOnGracefulShutdown() {
            seen += 1
            if seen > 1 { Interruption.endProcess(by: signal) }
        }
    }
}
