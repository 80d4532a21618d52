import ArgumentParser
import Foundation
import Hotels
import Imaging
import OfflineStore

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
