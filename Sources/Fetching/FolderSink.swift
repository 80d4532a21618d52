import AtomicFiles
import Dispatch
import Foundation
import Hotels
import Locking
import OfflineStore

/// A list in a folder, as `hotels fetch --out DIR` writes it:
/// `hotels.jsonl` (one hotel a line, the keys of `hotels parse`) and
/// `logos/CODE.png` (`.jpg` for an unfiltered JPEG).
///
/// Every file is replaced atomically (`AtomicFile`), so a reader sees a
/// whole old file or a whole new one, and a killed run leaves only hidden
/// temporary files, which the next run removes. `hotels.jsonl` is written
/// page by page while the pages are exactly the list, and otherwise
/// rewritten whole from the store at the end.
public final class FolderSink: ListSink {
    public let folder: URL
    public var logosFolder: URL { folder.appendingPathComponent("logos") }
    public var listFile: URL { folder.appendingPathComponent("hotels.jsonl") }
    public var location: String? { folder.path }
    private let pages: PagesFile

    public init(folder: URL) {
        self.folder = folder
        pages = PagesFile(file: folder.appendingPathComponent("hotels.jsonl"))
    }

    public func open() async throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw AtomicFileError(path: folder.path, operation: "create the folder", error: error)
        }
        AtomicFile.removeLeftovers(in: folder)
        AtomicFile.removeLeftovers(in: logosFolder)
    }

    public func showCached(_ list: CachedList, from storage: any ListStorage) async throws {
        try await Self.write(list, from: storage, to: listFile)
    }

    public func pageStored(_ page: FetchedPage, _ change: PageChange) async throws {
        pages.stored(page.hotels, change)
    }

    public func saveLogo(_ logo: LogoFile) async throws {
        do {
            try FileManager.default.createDirectory(at: logosFolder, withIntermediateDirectories: true)
        } catch {
            throw AtomicFileError(path: logosFolder.path, operation: "create the folder", error: error)
        }
        try AtomicFile.write(logo.bytes, to: logosFolder.appendingPathComponent(logo.fileName))
    }

    public func finish(_ list: CachedList, from storage: any ListStorage) async throws {
        if !pages.finish(rows: list.count) { try await Self.write(list, from: storage, to: listFile) }
    }

    /// Writes `list` from `storage` to `file` as JSON Lines, a batch at a
    /// time, so memory stays flat for any length; atomically.
    public static func write(_ list: CachedList, from storage: any ListStorage, to file: URL) async throws {
        let output = try AtomicFile(replacing: file)
        try await writeLines(of: list, from: storage) { try output.write($0) }
        try output.commit()
    }

    /// Hands `list`'s rows, as JSON Lines, to `write` a batch at a time.
    public static func writeLines(of list: CachedList, from storage: any ListStorage, _ write: ([UInt8]) throws -> Void) async throws {
        var lines: [UInt8] = []
        try await storage.forEachBatch(in: list, batchSize: 5000) { batch in
            batch.forEach { HotelJSONLines.append($0, to: &lines) }
            try write(lines)
            lines.removeAll(keepingCapacity: true)
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
final class PagesFile: Sendable {
    private let file: URL
    private let queue: DispatchQueue
    /// The file being written and the rows in it: touched on `queue` only.
    /// Dropping it discards the temporary file (``AtomicFile`` does), so
    /// there is no `deinit` here: the last release may run on `queue`
    /// itself, after a page's write, where waiting on `queue` would trap.
    private let output = PosixMutex<(file: AtomicFile?, rows: Int)>((nil, 0))
    /// Whether pages are being written: read and changed on the caller's side only.
    private let writing = PosixMutex(false)

    /// - Parameter queue: A serial queue for the writes; a test passes its own, to wait for them.
    init(file: URL, queue: DispatchQueue = DispatchQueue(label: "hotelkit.fetching.pages-file")) {
        self.file = file
        self.queue = queue
    }

    /// A page after it was stored: page 1 starts the file when the list is
    /// now that page alone; a later page keeps it when all its rows were new.
    func stored(_ page: [Hotel], _ change: PageChange) {
        switch change {
        case .merged(let merge):
            guard !page.isEmpty, merge.inserted == page.count else { return }
            writing.withLock { $0 = true }
            // Made on the queue, which alone touches it; if it cannot be
            // made, ``finish(rows:)`` says so and the list is written whole.
            queue.async { [self] in
                output.withLock { $0 = (try? AtomicFile(replacing: file), 0) }
                append(page)
            }
        case .appended(let added):
            guard writing.withLock({ $0 }) else { return }
            guard added == page.count else { return abandon() }
            queue.async { [self] in append(page) }
        }
    }

    /// Puts the file in place if it holds `rows` rows; false if the list must be written from the store.
    func finish(rows expected: Int) -> Bool {
        guard stopWriting() else { return false }
        return queue.sync {
            output.withLock { output in
                defer { output = (nil, 0) }
                guard let file = output.file else { return false }
                guard output.rows == expected, (try? file.commit()) != nil else {
                    file.discard()
                    return false
                }
                return true
            }
        }
    }

    /// Drops the file: the list is no longer just the pages.
    func abandon() {
        guard stopWriting() else { return }
        queue.sync {
            output.withLock {
                $0.file?.discard()
                $0 = (nil, 0)
            }
        }
    }

    /// Whether pages were being written; they no longer are.
    private func stopWriting() -> Bool {
        writing.withLock { wasWriting in
            defer { wasWriting = false }
            return wasWriting
        }
    }

    private func append(_ page: [Hotel]) {
        var lines: [UInt8] = []
        // By index: the loop borrows each hotel where forEach would copy it (a retain of every field).
        for index in page.indices { HotelJSONLines.append(page[index], to: &lines) }
        output.withLock { output in
            guard let file = output.file else { return }
            do {
                try file.write(lines)
                output.rows += page.count
            } catch {
                output.file = nil
            }
        }
    }
}
