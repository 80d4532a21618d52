import ArgumentParser
import Console
import HTTP
import Logging
import Runtime

/// Installs the log handler, then runs the command line.
@main
enum Main {
    static func main() async {
        MallocArenas.bound()
        LoggingSystem.bootstrap { _ in StandardErrorLogHandler() }
        await HotelsCommand.main(withoutHelpForUnknownCommand(Array(CommandLine.arguments.dropFirst())))
    }

    /// ArgumentParser answers `hotels NOSUCH --help` with the top help and
    /// exit 0, so a script would take a misspelt command for a working one.
    /// Without the help flag, the unknown command is reported (64).
    static func withoutHelpForUnknownCommand(_ arguments: [String]) -> [String] {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help",
            !HotelsCommand.configuration.subcommands.contains(where: { $0._commandName == first })
        else { return arguments }
        return arguments.filter { $0 != "--help" && $0 != "-h" }
    }
}

struct HotelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotels",
        abstract: "Talk to hotel SOAP services: parse, fetch and page hotel lists.",
        discussion: """
            Exit codes follow sysexits: 0 ok, 64 usage, 65 bad data, 66 no input, \
            69 service unavailable, 76 SOAP fault or service error, 77 credentials refused, 78 bad profile \
            or missing credentials, 130/143 interrupted by SIGINT/SIGTERM.
            """,
        version: HotelKitVersion.string,
        subcommands: [
            ParseCommand.self, FetchCommand.self, ServeCommand.self, ImageCommand.self, ListCommand.self, CacheCommand.self,
            SimulateCommand.self, DemoCommand.self, BrowseCommand.self,
            ProfileCommand.self, CallCommand.self, StoreCommand.self, EnqueueCommand.self, WorkerCommand.self, JobsCommand.self,
            SchedulesCommand.self, DashboardCommand.self, MatchCommand.self, PropertiesCommand.self,
        ]
    )
}
