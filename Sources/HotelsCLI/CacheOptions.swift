import ArgumentParser
import Console
import Failures
import Fetching
import Foundation
import Hotels
import OfflineStore
import PostgresStore
import Runtime

/// `--cache DIR` and `--store URL`: where the lists and the logo cache live, for the commands that use them.
struct CacheOptions: ParsableArguments {
    @Option(help: "Cache folder: hotels.sqlite and images/ (default $XDG_CACHE_HOME/hotelkit).") var cache: String?
    @Option(
        help: ArgumentHelp(
            "A shared PostgreSQL store for the lists and the logo index, instead of hotels.sqlite (or HOTELKIT_STORE).",
            discussion:
                "postgres://USER@HOST:PORT/DATABASE?sslmode=disable; the password from the URL, PGPASSWORD or ~/.pgpass. Logo files stay in --cache.",
            valueName: "url"))
    var store: String?

    var folder: URL { cache.map { URL(fileURLWithPath: $0) } ?? SQLiteHotelStore.defaultFolder }

    /// `--store`, else `HOTELKIT_STORE`: the shared store's URL, if one is named.
    var storeURL: String? { sharedStoreURL(store) }

    /// `check` and `vacuum` are SQLite's: PostgreSQL checks and vacuums a shared store itself.
    func refuseSharedStore(_ command: String) throws {
        guard storeURL != nil else { return }
        Diagnostics.error(
            "hotels cache \(command) works on the SQLite cache in --cache, not on a shared store",
            hint: "PostgreSQL's autovacuum tidies a shared store; leave out --store (and HOTELKIT_STORE)")
        throw ExitStatus.usage.code
    }

    /// The runtime on the shared store when one is named, else on SQLite in the cache folder; logo files in the folder's `images/`.
    func runtime(_ configure: (inout HotelRuntime.Configuration) throws -> Void = { _ in }) async throws -> HotelRuntime {
        try await openRuntime(store: storeURL, folder: folder, configure)
    }
}

/// `option` (a `--store`), else `HOTELKIT_STORE`.
func sharedStoreURL(_ option: String?) -> String? {
    option ?? ProcessInfo.processInfo.environment["HOTELKIT_STORE"].flatMap { $0.isEmpty ? nil : $0 }
}

/// The runtime on the shared store at `url`, else on SQLite in `folder`, else in memory; logo files in `folder/images`.
/// A failure is reported as `--store`'s (64, 69, 77, 78, never with its password) or the cache folder's (74).
func openRuntime(store url: String?, folder: URL?, _ configure: (inout HotelRuntime.Configuration) throws -> Void = { _ in }) async throws
    -> HotelRuntime
{
    var configuration = HotelRuntime.Configuration(store: folder.map { .folder($0) } ?? .inMemory)
    configuration.logoFolder = folder?.appendingPathComponent("images")
    try configure(&configuration)
    return try await reported(url == nil ? "" : "--store") {
        if let url { configuration.store = .shared(try PostgresLocation(url: url)) }
        return try await HotelRuntime.open(configuration)
    }
}

extension HotelRuntime.Configuration {
    /// `--credentials FILE` and `--dump DIR`; a failure is reported in `context` (78, 66, 74).
    mutating func read(credentials file: String?, dump: String? = nil, context: String) throws {
        credentials = try reported(context) { try file.map(Credentials.environment(overlaidWith:)) ?? .environment }
        exchangeLog = try reported(context) { [logger] in
            try dump.map { try ExchangeFolder(folder: URL(fileURLWithPath: $0), logger: logger) }
        }
    }
}

extension HotelRuntime {
    /// The client of `profile` at `endpoint`, its secrets kept out of everything printed; a failure reported as the profile's.
    func client(_ profile: ServiceProfile, endpoint: String, named name: String) async throws -> HotelClient {
        do {
            let client = try client(profile: profile, endpoint: endpoint)
            Diagnostics.redact(with: client.secrets)
            return client
        } catch {
            await close()
            throw Diagnostics.report(error, context: "--profile \(name)").code
        }
    }
}

/// `--near LAT,LON` and `--radius KM`: a search by position, for profiles
/// whose body uses `{latitude}`, `{longitude}` and `{radius}`. The position
/// is part of the list's key, so `--city` still names the list.
struct AreaOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Search near a position, in decimal degrees: 47.6062,-122.3321 ({latitude}, {longitude}).",
            valueName: "lat,lon"))
    var near: String?
    @Option(help: ArgumentHelp("The search's radius in kilometres, with --near ({radius}; default 5).", valueName: "km"))
    var radius: Double?

    /// The area asked for, or nil; a malformed one is a usage error (64).
    func area() throws -> SearchArea? {
        guard let near else {
            if radius != nil { throw ValidationError("--radius goes with --near LAT,LON") }
            return nil
        }
        do {
            return try SearchArea(near: near, radius: radius)
        } catch {
            throw ValidationError("--near/--radius: \(error)")
        }
    }

    func validate() throws { _ = try area() }
}
