import Foundation
import SOAP
import Testing
import TestSupport

/// Inputs that `scripts/fuzz parse` found, in Samples/Fuzz (FUZZING.md).
@Suite("Fuzzing findings")
struct FuzzFindingTests {
    /// The position of the first error, fed whole and in chunks of `size`.
    func errorPosition(_ file: String, chunkSize: Int? = nil) throws -> XMLPosition? {
        let bytes = try [UInt8](Data(contentsOf: Samples.url("Fuzz/\(file)")))
        do {
            _ = try recordEvents(bytes, chunkSize: chunkSize)
            return nil
        } catch XMLReaderError.malformed(_, let position) {
            return position
        }
    }

    /// Open: libxml2 2.9's push parser checks UTF-8 in some places only when
    /// a chunk boundary falls there, so bytes invalid at line 3 stop a whole
    /// parse at once but chunked parses much later. Until the reader checks
    /// UTF-8 itself, this is a known issue: when it is fixed, this test says so.
    @Test("invalid UTF-8 stops the parse at the same place whatever the chunking")
    func invalidUTF8() throws {
        let whole = try errorPosition("parse-invalid-utf8-chunking.xml")
        #expect(whole == XMLPosition(line: 3, column: 38))
        withKnownIssue("libxml2's push parser misses invalid UTF-8 at some chunk boundaries") {
            for size in [1, 7, 64] {
                let chunked = try errorPosition("parse-invalid-utf8-chunking.xml", chunkSize: size)
                #expect(chunked == whole, "chunks of \(size)")
            }
        }
    }
}
