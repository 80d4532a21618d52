import ArgumentParser
import Console
import Failures
import Fetching
import Runtime
import SampleService
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sample hotel SOAP service on loopback.",
        discussion: """
            QueryHotels(city, pageSize, before?) at POST /soap (SOAP 1.1 and 1.2), the WSDL at \
            GET /soap?wsdl, and logos at GET /logos/CODE.png|jpg. Hotels are made from --seed: \
            Shanghai, Beijing, Paris, New York, Tokyo and London.

            --supplier N serves instead supplier N's records of a world of --hotels true hotels in \
            Paris, London, Berlin and New York (about 0.71 records per hotel: --hotels 281500 gives \
            200,000), each supplier with its own habits and noise, and the matching hard cases \
            planted in Paris. --truth FILE writes which codes are one hotel, as JSON Lines.
            """
    )

    @Option(help: "The port; 0 picks a free one.") var port = 8080
    @Option(help: "Seed of the generated hotels and logos.") var seed: UInt64 = 1
    @Option(help: "How many hotels.") var hotels = 5000
    @Option(help: "Milliseconds added to every response.") var latency = 0
    @Option(help: "Up to this many more milliseconds, at random.") var jitter = 0
    @Option(help: "Share of SOAP requests that fail (a Server fault or HTTP 500), 0 to 1.") var failRate = 0.0
    @Option(help: "Share of responses reset mid-body, 0 to 1.") var dropRate = 0.0
    @Option(help: "Share of SOAP requests answered HTTP 429 with Retry-After: --retry-after seconds, 0 to 1.") var throttleRate = 0.0
    @Option(help: "The Retry-After of --throttle-rate's answers, in seconds.") var retryAfter = 2
    @Option(help: "Append one JSON line per request to this file.") var log: String?
    @Option(help: "Cache-Control max-age of logos, in seconds (0: clients revalidate every time).") var logoMaxAge = 3600
    @Option(help: "Demand authentication: basic:USER:PASS (HTTP 401 when wrong) or wsse:USER:PASS[:digest] (WS-Security faults).")
    var auth: String?
    @Option(help: "Serve supplier N's view (1 to 5) of a world of --hotels true hotels made from --seed, for matching.")
    var supplier: Int?
    @Option(
        help: ArgumentHelp(
            "With --supplier: write the truth here before listening, one JSON line per served record.",
            discussion: #"{"supplier": 2, "code": "S2-28", "hotel": 17, "city": "Paris"}: records with the same hotel are one hotel."#,
            valueName: "file"))
    var truth: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard hotels > 0, latency >= 0, jitter >= 0, logoMaxAge >= 0 else {
            throw ValidationError("--hotels must be positive; --latency, --jitter and --logo-max-age must not be negative")
        }
        guard (0...1).contains(failRate), (0...1).contains(dropRate), (0...1).contains(throttleRate) else {
            throw ValidationError("rates are from 0 to 1")
        }
        guard retryAfter >= 0 else { throw ValidationError("--retry-after must not be negative") }
        if let supplier, !(1...5).contains(supplier) { throw ValidationError("--supplier must be 1 to 5, not \(supplier)") }
        if truth != nil, supplier == nil { throw ValidationError("--truth goes with --supplier") }
        if let auth, SampleAuthentication(argument: auth) == nil {
            throw ValidationError("--auth takes basic:USER:PASS, wsse:USER:PASS or wsse:USER:PASS:digest, not “\(auth)”")
        }
    }

    func run() async throws {
        var options = SampleServiceOptions()
        options.port = port
        options.seed = seed
        options.hotels = hotels
        options.latency = latency
        options.jitter = jitter
        options.failRate = failRate
        options.dropRate = dropRate
        options.throttleRate = throttleRate
        options.retryAfter = retryAfter
        options.logFile = log
        options.logoMaxAge = logoMaxAge
        options.authentication = auth.flatMap(SampleAuthentication.init(argument:))
        options.supplier = supplier
        options.truthFile = truth
        let application: any Service
        do {
            application = try SampleServer.application(options) { port in
                writeAll(
                    Array("listening on http://127.0.0.1:\(port)/soap (WSDL: http://127.0.0.1:\(port)/soap?wsdl)\n".utf8),
                    to: STDOUT_FILENO)
            }
        } catch {
            throw Diagnostics.report(error, context: "").code
        }
        if let failure = await ProcessServices().failure(running: [application]) {
            Diagnostics.error("cannot serve on 127.0.0.1:\(port): \(failure)", hint: "is the port in use? --port 0 picks a free one")
            throw ExitStatus.unavailable.code
        }
    }
}
