import ArgumentParser
import HTTP
import Logging

/// Installs the log handler, then runs the command line.
@main
enum Main {
    static func main() async {
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler() }
        await HotelsCommand.main()
    }
}

struct HotelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotels",
        abstract: "Talk to hotel SOAP services: parse, fetch and page hotel lists.",
        discussion: """
        Exit codes follow sysexits: 0 ok, 64 usage, 65 bad data, 66 no input, \
        69 service unavailable, 76 SOAP fault or service error, 78 bad profile.
        """,
        version: HotelKitVersion.string,
        subcommands: [ParseCommand.self, FetchCommand.self, ServeCommand.self, ImageCommand.self, ListCommand.self, CacheCommand.self, SimulateCommand.self, DemoCommand.self,
                      ProfileCommand.self, CallCommand.self]
    )
}
