import ArgumentParser
import Console
import Failures
import Fetching
import Foundation
import PostgresStore

/// `hotels store`: the shared PostgreSQL store's schema.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "The shared PostgreSQL store: apply and report its schema migrations.",
        discussion: "Every command that opens the store migrates it on first use; these two do it, or report it, on their own.",
        subcommands: [Migrate.self, Status.self]
    )

    struct Options: ParsableArguments {
        @OptionGroup var store: JobStoreOptions
        @Flag(help: "Print as JSON.") var json = false

        func print(_ report: PostgresSchema.Report) {
            writeAll(Array(((json ? JSONLine.string(report) : report.description) + "\n").utf8), to: STDOUT_FILENO)
        }

        func location() throws -> PostgresLocation {
            try reported("--store") { try PostgresLocation(url: try store.url()) }
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the migrations the store lacks (under a lock: once, however many run it at once).")
        @OptionGroup var options: Options

        func run() async throws {
            guard let store = try await options.store.runtime().sharedStore else { throw ExitStatus.usage.code }
            await store.database.close()
            options.print(PostgresSchema.Report(migrated: store.database))
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report the store's schema version and pending migrations; changes nothing. Exit 78 when a newer HotelKit wrote it.")
        @OptionGroup var options: Options

        func run() async throws {
            let location = try options.location()
            let status = try await reported("--store") { try await PostgresDatabase.status(location) }
            options.print(PostgresSchema.Report(status, store: location.description))
            if status.isNewer { throw ExitStatus.config.code }
        }
    }
}
