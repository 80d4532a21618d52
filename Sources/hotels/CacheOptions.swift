import ArgumentParser
import Foundation
import Hotels
import Imaging
import OfflineStore
import SOAP

/// `--cache DIR`: where the offline store and the logo cache live, for the commands that use them.
struct CacheOptions: ParsableArguments {
    @Option(help: "Cache folder: hotels.sqlite and images/ (default $XDG_CACHE_HOME/hotelkit).") var cache: String?

    var folder: CacheFolder { CacheFolder(cache.map { URL(fileURLWithPath: $0) } ?? HotelStore.defaultFolder) }
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

/// Serving the cache when the network is gone.
enum OfflineFallback {
    /// `offline: showing 1,234 hotels for Shanghai cached 3 h ago`
    static func banner(hotels: Int, city: String, fetchedAt: Date, now: Date = Date()) -> String {
        "offline: showing \(hotels.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))) hotels for \(city) cached \(age(now.timeIntervalSince(fetchedAt))) ago"
    }

    static func age(_ seconds: Double) -> String {
        switch max(0, seconds) {
        case ..<60: "\(Int(seconds)) s"
        case ..<3600: "\(Int(seconds / 60)) min"
        case ..<86400: "\(Int(seconds / 3600)) h"
        default: "\(Int(seconds / 86400)) d"
        }
    }
}

/// Writes a cached list as JSON Lines, a slice at a time, so memory stays flat for any length.
func writeList(_ list: CachedList, from store: HotelStore, to handle: FileHandle) throws {
    var offset = 0
    while offset < list.count {
        let slice = try store.hotels(in: list, offset: offset, limit: 5000)
        guard !slice.isEmpty else { break }
        var lines: [UInt8] = []
        slice.forEach { HotelJSONLines.append($0, to: &lines) }
        try handle.write(contentsOf: Data(lines))
        offset += slice.count
    }
}
