import ArgumentParser
import Foundation
import Hotels
import Imaging
import OfflineStore
import PostgresStore

/// `--cache DIR` and `--store URL`: where the lists and the logo cache live, for the commands that use them.
struct CacheOptions: ParsableArguments {
    @Option(help: "Cache folder: hotels.sqlite and images/ (default $XDG_CACHE_HOME/hotelkit).") var cache: String?
    @Option(help: ArgumentHelp("A shared PostgreSQL store for the lists and the logo index, instead of hotels.sqlite (or HOTELKIT_STORE).",
                               discussion: "postgres://USER@HOST:PORT/DATABASE?sslmode=disable; the password from the URL, PGPASSWORD or ~/.pgpass. Logo files stay in --cache.",
                               valueName: "url"))
    var store: String?

    var folder: CacheFolder { CacheFolder(cache.map { URL(fileURLWithPath: $0) } ?? HotelStore.defaultFolder) }

    /// `--store`, else `HOTELKIT_STORE`: the shared store's URL, if one is named.
    var storeURL: String? { sharedStoreURL(store) }

    /// `check` and `vacuum` are SQLite's: PostgreSQL checks and vacuums a shared store itself.
    func refuseSharedStore(_ command: String) throws {
        guard storeURL != nil else { return }
        Diagnostics.error("hotels cache \(command) works on the SQLite cache in --cache, not on a shared store",
                          hint: "PostgreSQL's autovacuum tidies a shared store; leave out --store (and HOTELKIT_STORE)")
        throw ExitStatus.usage.code
    }

    /// The shared store when one is named, else SQLite in the cache folder.
    func openStorage() async throws -> any HotelStorage {
        guard let storeURL else { return try folder.openStore() }
        return try await openSharedStore(storeURL)
    }
}

/// `--endpoint` is an http or https URL with a host, or the command is refused with 64.
func checkEndpoint(_ endpoint: String) throws {
    let url = URL(string: endpoint)
    guard ["http", "https"].contains(url?.scheme?.lowercased() ?? ""), url?.host?.isEmpty == false else {
        throw ValidationError("--endpoint must be an http or https URL, not “\(endpoint)”")
    }
}

/// `option` (a `--store`), else `HOTELKIT_STORE`.
func sharedStoreURL(_ option: String?) -> String? {
    option ?? ProcessInfo.processInfo.environment["HOTELKIT_STORE"].flatMap { $0.isEmpty ? nil : $0 }
}

/// Opens the shared store at `url`, reporting a failure as `--store`'s (64, 69, 77, 78), never with its password.
func openSharedStore(_ url: String) async throws -> PostgresHotelStore {
    do {
        return try await PostgresHotelStore.open(try PostgresLocation(url: url))
    } catch {
        throw Diagnostics.report(error, context: "--store").code
    }
}

/// A cache folder: the store's `hotels.sqlite` and the logo cache in `images/`.
struct CacheFolder {
    var url: URL

    init(_ url: URL) {
        self.url = url
    }

    var path: String { url.path }

    /// Opens the store, saying what was moved aside; exit 74 if it cannot be opened.
    func openStore() throws -> HotelStore {
        do {
            let store = try HotelStore(folder: url)
            store.warnings.forEach(Diagnostics.warning)
            return store
        } catch {
            Diagnostics.error(error.description, hint: "check the folder's permissions, or give another with --cache DIR")
            throw ExitStatus.ioError.code
        }
    }

    /// The logo cache, or nil (with a warning) when its folder cannot be used.
    func openImages() -> DiskImageCache? {
        do {
            return try DiskImageCache(directory: url.appendingPathComponent("images"))
        } catch {
            Diagnostics.warning("logo cache unavailable, going on without it: \(error)")
            return nil
        }
    }
}

/// `--near LAT,LON` and `--radius KM`: a search by position, for profiles
/// whose body uses `{latitude}`, `{longitude}` and `{radius}`. The position
/// is part of the list's key, so `--city` still names the list.
struct AreaOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Search near a position, in decimal degrees: 47.6062,-122.3321 ({latitude}, {longitude}).",
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
