import ArgumentParser
import Console
import Hotels
import Runtime

struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Send one request with a profile and print its records, paging state and header values.",
        discussion: """
            The loop to repeat while adjusting a profile: records go to standard output as \
            JSON Lines (the keys of hotels parse), and what the response says about paging and \
            its header values to standard error, as hotels parse --summary prints them. \
            --dump DIR writes the request and response, secrets redacted. Exit codes are those \
            of hotels fetch.
            """
    )

    @OptionGroup var service: ServiceOptions
    @OptionGroup var values: RequestValueOptions
    @Option(help: "Write the request and response, with their HTTP headers, to numbered files here; secrets redacted.")
    var dump: String?
    @Flag(help: "Do not verify TLS certificates (unsafe).") var insecure = false
    @OptionGroup var limits: XMLLimitOptions

    func run() async throws {
        let loaded = try service.loadProfile()
        let endpoint = service.endpoint
        if insecure { Diagnostics.warning("--insecure: TLS certificates are NOT verified") }
        // Nothing is stored: the request is the point.
        let runtime = try await openRuntime(store: nil, folder: nil) { configuration in
            try configuration.read(credentials: values.credentials, dump: dump, context: "--profile \(service.profile)")
            configuration.transport.verifyTLS = !insecure
            configuration.limits = limits.limits
            configuration.retry = .never
            configuration.warningsPerKind = nil
        }
        let client = try await runtime.client(loaded, endpoint: endpoint, named: service.profile)
        let parameters = try values.parameters(for: loaded)
        let page = try await interruptible(closing: runtime, context: endpoint) { try await client.page(parameters, context: "call") }
        let output = StandardOutput()
        for hotel in page.hotels { output.write { HotelJSONLines.append(hotel, to: &$0) } }
        output.flush()
        for warning in page.warnings { Diagnostics.warning("\(endpoint): \(warning)") }
        if let hint = page.noRecordsHint { Diagnostics.warning("\(endpoint): \(hint)") }
        ResponseReport.lines(
            records: page.hotels.count, skipped: nil, warnings: page.warningsByKind.values.reduce(0, +),
            pagingState: page.pagingState(loaded.paging, endMarker: loaded.endMarker), headerValues: page.headerValues,
            profile: loaded
        ).forEach { Diagnostics.note("\(endpoint): \($0)") }
    }
}
