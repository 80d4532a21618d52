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

/// A list written out as JSON Lines (the keys of `hotels parse`).
struct ListOutput {
    /// `hotels.jsonl` in this folder.
    var folder: URL
    var store: HotelStore

    /// Replaces `hotels.jsonl` with `list`, atomically: a reader never sees half a list.
    func write(_ list: CachedList) throws {
        let file = folder.appendingPathComponent("hotels.jsonl")
        let temporary = folder.appendingPathComponent(".hotels.jsonl.\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            Diagnostics.error("cannot write \(file.path)", hint: "check the --out folder's permissions")
            throw ExitStatus.ioError.code
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try writeList(list, from: store, to: handle)
        try handle.close()
        guard rename(temporary.path, file.path) == 0 else {
            Diagnostics.error("cannot write \(file.path): \(String(cString: strerror(errno)))", hint: nil)
            throw ExitStatus.ioError.code
        }
    }
}

/// `hotels.jsonl` written page by page as pages are stored, for as long as
/// the list is exactly those pages in order: started on a first page whose
/// rows were all inserted (the list was empty, or was replaced by it), kept
/// while each "load more" page adds every one of its rows. Then the list
/// need not be read back from the store at the end. A page that updated a
/// cached row or repeated a code stops it, and the list is read back instead.
///
/// Pages are encoded and written on a queue of their own, while the next
/// page is fetched and stored.
final class PagesOutput: @unchecked Sendable {
    // @unchecked: the mutable state below is touched only on `queue`.
    private let file: URL
    private let temporary: URL
    private let queue = DispatchQueue(label: "hotelkit.fetch.pages-output")
    private var handle: FileHandle?
    private var lines: [UInt8] = []
    /// Rows written so far.
    private var rows = 0
    /// Whether pages are being written: read and changed on the caller's side only.
    private var writing = false

    init(folder: URL) {
        file = folder.appendingPathComponent("hotels.jsonl")
        temporary = folder.appendingPathComponent(".hotels.jsonl.\(getpid()).pages.tmp")
    }

    /// Page 1 after its merge: starts the file when the list is now that page alone.
    func merged(_ page: [Hotel], _ merge: MergeResult) {
        guard !page.isEmpty, merge.inserted == page.count,
              FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else { return }
        writing = true
        queue.async { [self] in
            self.handle = handle
            append(page)
        }
    }

    /// A "load more" page after it was stored: `added` of its rows were new.
    func appended(_ page: [Hotel], added: Int) {
        guard writing else { return }
        guard added == page.count else { return abandon() }
        queue.async { [self] in append(page) }
    }

    /// Puts the file in place if it holds `list`; false if the list must be written from the store.
    func finish(_ list: CachedList) -> Bool {
        guard writing else { return false }
        writing = false
        return queue.sync {
            guard let handle else { return false }
            self.handle = nil
            guard (try? handle.close()) != nil, rows == list.count, rename(temporary.path, file.path) == 0 else {
                unlink(temporary.path)
                return false
            }
            return true
        }
    }

    /// Drops the file: the list is no longer just the pages.
    func abandon() {
        guard writing else { return }
        writing = false
        queue.sync { close() }
    }

    private func close() {
        guard let handle else { return }
        self.handle = nil
        try? handle.close()
        unlink(temporary.path)
    }

    private func append(_ page: [Hotel]) {
        guard let handle else { return }
        page.forEach { HotelJSONLines.append($0, to: &lines) }
        do {
            try handle.write(contentsOf: lines)
            rows += page.count
        } catch {
            close()
        }
        lines.removeAll(keepingCapacity: true)
    }
}

/// Writes a cached list as JSON Lines, a batch at a time from one read, so memory stays flat for any length.
func writeList(_ list: CachedList, from store: HotelStore, to handle: FileHandle) throws {
    var lines: [UInt8] = []
    try store.forEachBatch(in: list, batchSize: 5000) { batch in
        batch.forEach { HotelJSONLines.append($0, to: &lines) }
        try handle.write(contentsOf: lines)
        lines.removeAll(keepingCapacity: true)
    }
}
