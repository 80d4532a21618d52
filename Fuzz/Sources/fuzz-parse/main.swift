import FuzzCheck
import Hotels
import SOAP

/// What one parse gave: the records and warnings delivered, then the summary
/// or the error.
struct Outcome: Equatable {
    var hotels: [Hotel] = []
    var warnings: [RecordWarning] = []
    var summary: ParseSummary?
    var error: String?
}

enum Profiles {
    static let builtIn = ServiceProfile.builtInNames.compactMap { try? ServiceProfile.named($0) }
}

func parse(_ bytes: [UInt8], profile: ServiceProfile, chunks: [Int]) -> Outcome {
    var outcome = Outcome()
    do {
        let session = try HotelResponseParser(profile: profile).session(
            onRecord: { outcome.hotels.append($0) }, onWarning: { outcome.warnings.append($0) })
        var offset = 0
        for size in chunks {
            try session.feed(Array(bytes[offset..<offset + size]))
            offset += size
        }
        outcome.summary = try session.finish()
    } catch {
        // Only the parser's documented errors may come out.
        invariant(
            error is XMLReaderError || error is SOAPFault || error is NotSOAPEnvelopeError || error is ServiceReportedError,
            "untyped error \(type(of: error)): \(error)")
        // Where a malformed document fails depends on the chunking, and is
        // left out; the records delivered before the error must agree, and
        // it must be malformed either way. libxml2's push parser parses as
        // far as the input it has: it words one malformation differently at
        // a chunk boundary (“Input is not proper UTF-8” or “error parsing
        // attribute name”), places a broken XML declaration at column 6
        // whole and column 304 in chunks, and, fed less at a time, may not
        // yet have met a malformation when the reader's UTF-8 check meets a
        // bad byte after it (FUZZING.md). Also left out: how far a non-XML
        // response had arrived when its start was quoted.
        outcome.error =
            switch error {
            case is NotSOAPEnvelopeError: "not SOAP"
            case is XMLReaderError: if case .malformed = error as? XMLReaderError { "malformed" } else { "\(error)" }
            default: "\(type(of: error)): \(error)"
            }
    }
    return outcome
}

/// The streaming reader with the record extractor, under each built-in
/// profile, fed whole and in random chunk sizes (from the input's hash): the
/// same records, warnings and summary or error, whatever the chunking.
func fuzzParse(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let buffer = input(start, count)
    let bytes = [UInt8](buffer)
    var random = InputRandom(buffer)
    var chunks: [Int] = []
    var left = bytes.count
    while left > 0 {
        let size = min(left, 1 + random.next(below: 64))
        chunks.append(size)
        left -= size
    }
    for profile in Profiles.builtIn {
        let whole = parse(bytes, profile: profile, chunks: bytes.isEmpty ? [] : [bytes.count])
        let chunked = parse(bytes, profile: profile, chunks: chunks)
        invariant(whole == chunked, "profile \(profile.name): whole \(whole) but chunked \(chunked)")
    }
    return 0
}

runFuzzer(fuzzParse)
