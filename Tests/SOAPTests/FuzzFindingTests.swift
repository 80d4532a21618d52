import Foundation
import SOAP
import Seeding
import TestSupport
import Testing

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

    /// libxml2 2.9's push parser checks UTF-8 in some places only when a
    /// chunk boundary falls there: the 0xFF bytes at line 272 stopped a whole
    /// parse at line 3, and chunked parses elsewhere. The reader now checks
    /// UTF-8 itself, before libxml2 sees a chunk.
    @Test("invalid UTF-8 stops the parse at the bad byte, whatever the chunking")
    func invalidUTF8() throws {
        for size in [nil, 1, 2, 3, 7, 8, 9, 64, 4096] {
            let position = try errorPosition("parse-invalid-utf8-chunking.xml", chunkSize: size)
            #expect(position == XMLPosition(line: 272, column: 9), "chunks of \(size.map(String.init) ?? "all")")
        }
    }

    /// Session 7's `parse` run: in UTF-16, which libxml2 converts itself, a
    /// malformed declaration was placed at column 21 in a whole parse and at
    /// column 1 in chunks. The reader now hands libxml2 the first kilobyte in
    /// one piece, so the declaration and its encoding switch never straddle
    /// chunks: it is column 1 however the input is cut.
    @Test("a malformed UTF-16 declaration is refused at the same place whatever the chunking")
    func utf16Chunking() throws {
        let whole = try errorPosition("parse-utf16-bom-chunking.xml")
        #expect(whole == XMLPosition(line: 1, column: 1))
        for size in [1, 7, 64, 1000, 1024, 1025] {
            #expect(try errorPosition("parse-utf16-bom-chunking.xml", chunkSize: size) == whole, "chunks of \(size)")
        }
    }

    /// The malformed error for `bytes`, fed in chunks of `size`.
    func utf8Error(_ bytes: [UInt8], chunkSize: Int? = nil) -> (reason: String, position: XMLPosition)? {
        do {
            _ = try recordEvents(bytes, chunkSize: chunkSize)
            return nil
        } catch XMLReaderError.malformed(let reason, let position) {
            return (reason, position)
        } catch {
            return ("unexpected \(error)", XMLPosition(line: 0, column: 0))
        }
    }

    @Test(
        "UTF-8 is checked as Unicode defines it, across chunk boundaries; columns count characters",
        arguments: [
            ([0xC0, 0xAF], "an overlong slash"),
            ([0xE0, 0x80, 0xAF], "an overlong three-byte form"),
            ([0xED, 0xA0, 0x80], "a surrogate"),
            ([0xF4, 0x90, 0x80, 0x80], "past U+10FFFF"),
            ([0xF5, 0x80, 0x80, 0x80], "a lead byte that never starts a character"),
            ([0xE4, 0xB8], "a character cut short by text"),
            ([0xF0, 0x9F, 0x98], "a four-byte character cut short by text"),
            ([0x80], "a lone continuation byte"),
        ] as [([UInt8], String)])
    func invalidSequences(bad: [UInt8], what: String) {
        // Line 2 starts with two Chinese characters (three bytes each), then the bad bytes, then text.
        let document = Array("<?xml version=\"1.0\"?>\n<a>上海".utf8) + bad + Array("x</a>".utf8)
        for size in [nil, 1, 2, 5] {
            let error = utf8Error(document, chunkSize: size)
            #expect(error?.reason == "bytes that are not valid UTF-8", "\(what), chunks of \(size.map(String.init) ?? "all")")
            #expect(error?.position.line == 2)
            #expect(error?.position.column == 6 || error?.position.column == 7, "\(what): \(String(describing: error?.position))")
        }
    }

    /// The check steps over ASCII 32 bytes at a time, and a word at a time
    /// where a block holds a newline or a character past ASCII: wherever the
    /// bad byte falls among them, its line and column must be those that
    /// counting character by character gives.
    @Test("the first bad byte is placed exactly, among lines and characters of any length")
    func badBytePlacedExactly() {
        var random = SeededGenerator(seed: 36)
        for trial in 0..<300 {
            // Per trial, how often a newline and a Chinese character come: from never to often.
            let newlineEvery = [0, 3, 40, 200][trial % 4]
            let wideEvery = [0, 4, 30][trial % 3]
            var text = "<a>"
            for _ in 0..<Int.random(in: 0..<700, using: &random) {
                if newlineEvery > 0, Int.random(in: 0..<newlineEvery, using: &random) == 0 {
                    text += "\n"
                } else if wideEvery > 0, Int.random(in: 0..<wideEvery, using: &random) == 0 {
                    text += "海"
                } else {
                    text += String(UnicodeScalar(UInt8.random(in: 0x61...0x7A, using: &random)))
                }
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let expected = XMLPosition(line: lines.count, column: (lines.last?.unicodeScalars.count ?? 0) + 1)
            let document = Array(text.utf8) + [0xFF] + Array("x</a>".utf8)
            for size in [nil, 1, 9, 33] {
                let error = utf8Error(document, chunkSize: size)
                #expect(error?.reason == "bytes that are not valid UTF-8", "trial \(trial)")
                #expect(error?.position == expected, "trial \(trial), chunks of \(size.map(String.init) ?? "all")")
            }
        }
    }

    @Test("valid UTF-8 split anywhere parses; a character cut short at the end is an error; other encodings are left to libxml2")
    func validAndOtherEncodings() throws {
        let text = "<a>上海 ✈ 𝄞 café</a>"
        let whole = try recordEvents(Array(text.utf8))
        for size in 1...5 { #expect(try recordEvents(Array(text.utf8), chunkSize: size) == whole) }
        #expect(try recordEvents([0xEF, 0xBB, 0xBF] + Array(text.utf8), chunkSize: 1) == whole)
        #expect(utf8Error(Array("<a>x".utf8) + [0xE4, 0xB8])?.reason == "a UTF-8 character cut short at the end")
        // ISO-8859-1: 0xE9 is é there, and not UTF-8.
        let latin1 = Array("<?xml version='1.0' encoding='ISO-8859-1'?><a>caf".utf8) + [0xE9] + Array("</a>".utf8)
        #expect(try recordEvents(latin1, chunkSize: 3).contains { $0.contains("é") })
    }
}
