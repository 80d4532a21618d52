import ArgumentParser
import Console
import Failures
import Fetching
import Foundation
import Hotels
import Imaging
import OfflineStore
import Runtime

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print a cached hotel list (JSON Lines, the keys of hotels parse) without touching the network.",
        discussion: "Without --endpoint, the most recently fetched list of the city. Exit 66 when nothing is cached."
    )

    @Option(help: "The city.") var city: String
    @Option(help: "Only lists fetched with this profile: a built-in name or a profile file, as given to hotels fetch.") var profile: String?
    @Option(help: "Only the list fetched from this endpoint.") var endpoint: String?
    @Option(help: "A keyword the list was fetched with.") var keyword: String?
    @OptionGroup(title: "The position the list was fetched near, if it was") var areaOptions: AreaOptions
    @Option(help: "Print at most this many rows.") var limit: Int?
    @Option(
        help: ArgumentHelp(
            "Also write the list's logos from the store's logo index into this folder (CODE.png), as hotels fetch --logos saves them.",
            valueName: "dir"))
    var logosOut: String?
    @Option(help: "With --logos-out: the filter chain the logos were fetched with (hotels fetch --filter).") var filter = ""
    @OptionGroup var cacheOptions: CacheOptions
    @Flag(
        help:
            "JSON Lines, every field of every row (the keys of hotels parse): what hotels list always prints; accepted as every command's --json is."
    )
    var json = false

    func run() async throws {
        try await reported("list") { try await printList() }
    }

    private func printList() async throws {
        // Lists are keyed by the profile's own name, as hotels fetch keys them, whether it was given by name or by path.
        let profileName = try reported("--profile") { try profile.map { try ServiceProfile.named($0).name } }
        let area = try areaOptions.area()
        let store = try await cacheOptions.runtime().storage
        guard let list = try await store.list(city: city, profile: profileName, endpoint: endpoint, keyword: keyword, area: area),
            list.count > 0
        else {
            Diagnostics.error(
                "nothing is cached for \(city)" + (area.map { " near \($0)" } ?? "") + (endpoint.map { " from \($0)" } ?? ""),
                hint: "hotels fetch --city \(city) --endpoint URL fills the cache; hotels cache stats shows what is there")
            throw ExitStatus.noInput.code
        }
        if let logosOut { try await exportLogos(of: list, from: store, to: logosOut) }
        if let limit {
            var lines: [UInt8] = []
            try await store.hotels(in: list, limit: max(0, limit)).forEach { HotelJSONLines.append($0, to: &lines) }
            writeAll(lines, to: STDOUT_FILENO)
        } else {
            try await FolderSink.writeLines(of: list, from: store) { writeAll($0, to: STDOUT_FILENO) }
        }
    }
}

extension ListCommand {
    /// Writes the list's logos into `folder`; says on stderr how many, and which are missing.
    private func exportLogos(of list: CachedList, from store: any HotelStorage, to folder: String) async throws {
        let description = try reported("--filter") { try FilterChain(parsing: filter).description }
        let export = LogoExport(storage: store, filter: description)
        let summary = try await reported("--logos-out") { try await export.write(list, to: URL(fileURLWithPath: folder)) }
        Diagnostics.note("\(folder): \(summary)")
    }
}

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and tidy the offline store and logo cache.",
        subcommands: [Stats.self, Check.self, Clear.self, Vacuum.self]
    )

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What is cached: lists, hotels, logos, bytes.")
        @OptionGroup var cacheOptions: CacheOptions
        @Flag(help: "Print as JSON.") var json = false

        func run() async throws {
            let stats = try await reported("cache stats") { try await cacheOptions.runtime().storage.stats() }
            writeAll(Array(((json ? JSONLine.string(stats) : stats.description) + "\n").utf8), to: STDOUT_FILENO)
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check the store (SQLite's integrity check) and every logo entry (length and SHA-256): prints ok, or what is damaged and exits 65."
        )
        @OptionGroup var cacheOptions: CacheOptions

        func run() async throws {
            try cacheOptions.refuseSharedStore("check")
            let problems = try await cacheOptions.runtime().damage()
            let report = problems.isEmpty ? "ok" : problems.joined(separator: "\n")
            writeAll(Array((report + "\n").utf8), to: STDOUT_FILENO)
            if !problems.isEmpty { throw ExitStatus.dataError.code }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget every cached list and logo.")
        @OptionGroup var cacheOptions: CacheOptions

        func run() async throws {
            let runtime = try await cacheOptions.runtime()
            try await runtime.clear()
            writeAll(
                Array("cleared \(cacheOptions.storeURL == nil ? cacheOptions.folder.path : runtime.storage.location)\n".utf8),
                to: STDOUT_FILENO)
        }
    }

    struct Vacuum: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Compact the store and drop index entries whose logo file is gone.")
        @OptionGroup var cacheOptions: CacheOptions

        func run() async throws {
            try cacheOptions.refuseSharedStore("vacuum")
            guard let store = try await cacheOptions.runtime().embeddedStore else { throw ExitStatus.usage.code }
            let before = store.fileBytes
            try store.vacuum { FileManager.default.fileExists(atPath: $0) }
            writeAll(Array("vacuumed \(store.path): \(before) → \(store.fileBytes) bytes\n".utf8), to: STDOUT_FILENO)
        }
    }
}
