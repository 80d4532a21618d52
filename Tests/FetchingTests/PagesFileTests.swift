import Dispatch
import Foundation
import Hotels
import OfflineStore
import Testing

@testable import Fetching

/// `hotels.jsonl` written page by page (``PagesFile``), as a cancelled run leaves it.
@Suite("the page-by-page list file")
struct PagesFileTests {
    /// A cancelled run (Ctrl-C) drops its sink while a page is still being
    /// written on the file's queue; the last release then runs on that queue.
    /// It used to wait on the queue from its deinit and trap (CI, session 10).
    @Test("a file dropped while its page is being written is discarded, with no crash and nothing left in the folder")
    func droppedMidWrite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hotelkit-pages-file-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = (1...200).map { Hotel(code: "H\($0)", name: "Hotel \($0)") }
        // Many rounds: the page's write must still hold the file when the test lets go of it.
        let writes = DispatchQueue(label: "test.pages-file")
        for _ in 0..<200 {
            var file: PagesFile? = PagesFile(file: folder.appendingPathComponent("hotels.jsonl"), queue: writes)
            file?.stored(page, .merged(MergeResult(inserted: page.count)))
            file = nil
        }
        // Every write, and the last release that discards its file, has run once the queue gets to this.
        writes.sync {}
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.isEmpty)
    }
}
