import ArgumentParser
import Console
import Dashboard
import Failures
import Fetching
import Foundation
import Imaging
import Runtime

/// `hotels dashboard`: the store's lists and the queue in a browser.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the store's lists, their hotels and the shared store's queue to a browser, with JSON under /api/.",
        discussion: """
            Binds to 127.0.0.1. Any other --host needs --token-file: the token (16 characters or more) is then asked \
            for by a login form, or taken from an Authorization: Bearer header. Pages read without a script and \
            are served with Content-Security-Policy: default-src 'self'. A row's logo missing from the caches is \
            fetched when the row comes into view, and the transfer is cancelled when it leaves; only URLs of the \
            store's hotels, over http(s), and a private, loopback or link-local address only for a list whose \
            service is on one. --offline fetches none.
            """
    )

    @OptionGroup var cacheOptions: CacheOptions
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port; 0 picks a free one.") var port = 8080
    @Option(
        help: ArgumentHelp(
            "A host name browsers may use besides the address and localhost, e.g. a reverse proxy's (repeatable).",
            valueName: "name"))
    var allowedHost: [String] = []
    @Option(help: ArgumentHelp("A file holding the token browsers and scripts must show (mode 600).", valueName: "file"))
    var tokenFile: String?
    @Option(
        help: """
            The filter chain of the logos the pages show: from the caches and the store's logo index when there, \
            else fetched as the rows come into view (hotels fetch --logos --filter stores them ahead).
            """)
    var filter = ""
    @Flag(help: "Show only the logos the store's logo index holds under --filter: fetch none.")
    var offline = false
    @Flag(help: "Print each answered request on stderr: method, path, status, and for /logo the logo's URL.")
    var accessLog = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
    }

    func run() async throws {
        let token = try tokenFile.map { path in try reported("--token-file") { try DashboardServer.Configuration.token(file: path) } }
        let chain = try reported("--filter") { try FilterChain(parsing: filter) }
        var configuration = DashboardServer.Configuration(host: host, port: port, token: token, logoFilter: chain.description)
        configuration.allowedHosts = allowedHost
        configuration.offline = offline
        if accessLog { configuration.onResponse = { access in Diagnostics.note("dashboard: \(access)") } }
        try reported(tokenFile.map { "--token-file \($0)" } ?? "--host \(host)") { try configuration.check() }
        let runtime = try await cacheOptions.runtime()
        let server = try reported("dashboard") { try DashboardServer(runtime: runtime, configuration: configuration) }
        let application = server.application { port in
            writeAll(Array("dashboard on http://\(host):\(port)/\n".utf8), to: STDOUT_FILENO)
        }
        let failure = await ProcessServices().failure(running: [application], closingLast: runtime)
        if let failure {
            Diagnostics.error("cannot serve on \(host):\(port): \(failure)", hint: "is the port in use? --port 0 picks a free one")
            throw ExitStatus.unavailable.code
        }
    }
}
