import ArgumentParser
import Foundation
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

    @Option(help: "A built-in profile or a profile file.") var profile: String
    @Option(help: "The service's SOAP endpoint URL.") var endpoint: String
    @OptionGroup var values: RequestValueOptions
    @Option(help: "Write the request and response, with their HTTP headers, to numbered files here; secrets redacted.")
    var dump: String?
    @Flag(help: "Do not verify TLS certificates (unsafe).") var insecure = false
    @OptionGroup var limits: XMLLimitOptions

    func validate() throws {
        try checkEndpoint(endpoint)
    }

    func run() async throws {
        let loaded = try reported("--profile \(profile)") { try ServiceProfile.named(profile) }
        if insecure { Diagnostics.warning("--insecure: TLS certificates are NOT verified") }
        // Nothing is stored: the request is the point.
        let runtime = try await openRuntime(store: nil, folder: nil) { configuration in
            try configuration.read(credentials: values.credentials, dump: dump, context: "--profile \(profile)")
            configuration.transport.verifyTLS = !insecure
            configuration.limits = limits.limits
            configuration.retry = .never
            configuration.warningsPerKind = nil
        }
        let client = try await runtime.client(loaded, endpoint: endpoint, named: profile)
        let interruption = Interruption()
        let parameters = try values.parameters(for: loaded)
        let outcome = await interruption.run { try await client.page(parameters, context: "call") }
        await runtime.close()
        if let code = interruption.exitCode { throw code }
        switch outcome {
        case .success(let page):
            let output = StandardOutput()
            for hotel in page.hotels { output.write { HotelJSONLines.append(hotel, to: &$0) } }
            output.flush()
            for warning in page.warnings { Diagnostics.warning("\(endpoint): \(warning)") }
            if let hint = page.noRecordsHint { Diagnostics.warning("\(endpoint): \(hint)") }
            ResponseReport.lines(records: page.hotels.count, skipped: nil, warnings: page.warningsByKind.values.reduce(0, +),
                                 pagingState: page.pagingState(loaded.paging, endMarker: loaded.endMarker), headerValues: page.headerValues,
                                 profile: loaded).forEach { Diagnostics.note("\(endpoint): \($0)") }
        case .failure(let error as ExitCode):
            throw error
        case .failure(let error):
            throw Diagnostics.report(error, context: endpoint).code
        }
    }
}
