import ArgumentParser
import Fetching
import Foundation
import OfflineStore
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
        @Option(help: ArgumentHelp("The store: postgres://USER@HOST:PORT/DATABASE?sslmode=disable (or HOTELKIT_STORE).", valueName: "url"))
        var store: String?
        @Flag(help: "Print as JSON.") var json = false

        func url() throws -> String {
            guard let url = sharedStoreURL(store) else {
                Diagnostics.error("no store named", hint: "give --store postgres://USER@HOST:PORT/DATABASE, or set HOTELKIT_STORE")
                throw ExitStatus.usage.code
            }
            return url
        }

        func location() throws -> PostgresLocation {
            do {
                return try PostgresLocation(url: try url())
            } catch let error as StoreError {
                throw Diagnostics.report(error, context: "--store").code
            }
        }
    }

    /// What `migrate` and `status` print under `--json`.
    struct Report: Encodable {
        var store: String
        var version: Int
        var latestKnown: Int
        var applied: [String]
        var pending: [String]
        var newer: Bool
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Apply the migrations the store lacks (under a lock: once, however many run it at once).")
        @OptionGroup var options: Options

        func run() async throws {
            let store = try await openSharedStore(try options.url())
            let applied = store.appliedMigrations.map { "\($0.version): \($0.name)" }
            await store.close()
            let version = PostgresSchema.latestVersion
            if options.json {
                let report = Report(store: store.location, version: version, latestKnown: version, applied: applied, pending: [], newer: false)
                writeAll(Array((jsonLine(report) + "\n").utf8), to: STDOUT_FILENO)
            } else {
                let what = applied.isEmpty ? "up to date" : "applied " + applied.joined(separator: ", ")
                writeAll(Array("\(store.location): \(what); schema version \(version)\n".utf8), to: STDOUT_FILENO)
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Report the store's schema version and pending migrations; changes nothing. Exit 78 when a newer HotelKit wrote it.")
        @OptionGroup var options: Options

        func run() async throws {
            let location = try options.location()
            let status: PostgresSchema.Status
            do {
                status = try await PostgresHotelStore.status(location)
            } catch {
                throw Diagnostics.report(error, context: "--store").code
            }
            let pending = status.pending.map { "\($0.version): \($0.name)" }
            if options.json {
                let report = Report(store: location.description, version: status.version, latestKnown: status.latestKnown,
                                    applied: status.applied.map { "\($0.version): \($0.name)" }, pending: pending, newer: status.isNewer)
                writeAll(Array((jsonLine(report) + "\n").utf8), to: STDOUT_FILENO)
            } else {
                var text = "\(location): schema version \(status.version) (this HotelKit knows up to \(status.latestKnown))"
                if status.isNewer { text += "; written by a newer HotelKit" }
                text += pending.isEmpty ? "" : "; pending: " + pending.joined(separator: ", ")
                writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO)
            }
            if status.isNewer { throw ExitStatus.config.code }
        }
    }
}
