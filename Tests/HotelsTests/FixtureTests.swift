import Foundation
import Hotels
import SOAP
import TestSupport
import Testing

@Suite("Recorded responses")
struct FixtureTests {
    static let cases = (try? Samples.manifest()) ?? []

    @Test("the manifest lists every fixture")
    func manifestIsComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Samples.url("Fixtures").path)
            .filter { $0 != "manifest.json" }
        #expect(Set(files) == Set(FixtureTests.cases.map(\.file)))
        #expect(files.count >= 30)
    }

    @Test("each fixture gives its records or its typed error, whole or byte by byte", arguments: cases)
    func fixture(_ fixture: FixtureCase) throws {
        let parser = HotelResponseParser(profile: try ServiceProfile.named(Samples.profileArgument(fixture.profile)))
        let bytes = try Samples.fixture(fixture.file)
        let whole = Result { try parser.parse(bytes: bytes) }
        let byteByByte = Result {
            var hotels: [Hotel] = []
            let session = try parser.session(onRecord: { hotels.append($0) })
            for byte in bytes.prefix(64 << 10) { try session.feed([byte]) }
            try session.feed(Array(bytes.dropFirst(64 << 10)))
            let summary = try session.finish()
            return HotelPage(hotels: hotels, warnings: [], nextCursor: summary.nextCursor)
        }
        switch (fixture.outcome, whole) {
        case (.records, .success(let page)):
            #expect(page.hotels.count == fixture.records)
            let expected = try String(contentsOf: fixture.expectedOutput, encoding: .utf8)
            #expect(page.hotels.map(HotelJSONLines.line).joined() == expected)
            #expect(try byteByByte.get().hotels == page.hotels)
            #expect(try byteByByte.get().nextCursor == page.nextCursor)
        case (.fault, .failure(let error)):
            #expect(error is SOAPFault)
        case (.serviceError, .failure(let error)):
            #expect(error is ServiceReportedError)
        case (.notSOAP, .failure(let error)):
            #expect(error is NotSOAPEnvelopeError)
        case (.doctype, .failure(XMLReaderError.doctypeForbidden)),
            (.limit, .failure(XMLReaderError.limitExceeded)),
            (.malformed, .failure(XMLReaderError.malformed)):
            break
        default:
            Issue.record("\(fixture.file): expected \(fixture.outcome), got \(whole)")
        }
        if case .failure(let error) = whole, case .failure(let chunked) = byteByByte {
            #expect(String(describing: type(of: chunked)) == String(describing: type(of: error)))
        } else if case .failure = whole {
            Issue.record("\(fixture.file): byte-by-byte parse succeeded where the whole one failed")
        }
    }

    @Test("cursors: the addtime of the last record, or a token from the body")
    func cursors() throws {
        let sample = HotelResponseParser(profile: try .named("sample"))
        #expect(try sample.parse(bytes: Samples.fixture("sample-soap11.xml")).nextCursor == "1700000100")
        #expect(try sample.parse(bytes: Samples.fixture("sample-empty.xml")).nextCursor == nil)
        let ota = HotelResponseParser(profile: try .named("ota-search"))
        #expect(try ota.parse(bytes: Samples.fixture("ota-search.xml")).nextCursor == "PAR-PAGE-2")
        #expect(try ota.parse(bytes: Samples.fixture("ota-search-last-page.xml")).nextCursor == nil)
    }

    @Test("bad records are skipped or trimmed, each with a warning")
    func badRecords() throws {
        let page = try HotelResponseParser(profile: try .named("sample")).parse(bytes: Samples.fixture("sample-bad-records.xml"))
        #expect(page.hotels.map(\.code) == ["B1", "B2", "B3"])
        #expect(page.hotels[1].addtime == 1_700_000_000)  // ISO 8601 converted
        #expect(page.hotels[2].latitude == -90 && page.hotels[2].longitude == 180)
        let described = page.warnings.map(\.description)
        #expect(described.first == "record 1: no code; record skipped")
        #expect(page.warnings.filter { $0.field == nil }.map(\.record) == [1, 2])
        #expect(page.warnings.filter { $0.code == "B1" }.compactMap(\.field) == [.latitude, .longitude, .logoURL, .addtime])
        #expect(page.warnings.filter { $0.code == "B2" }.compactMap(\.field) == [.latitude, .longitude, .logoURL])
        #expect(page.warnings.filter { $0.code == "B3" }.compactMap(\.field) == [.logoURL])
    }

    @Test("numbers, times and URLs are read from the bytes in every form, and bad ones refused")
    func numberForms() throws {
        let page = try HotelResponseParser(profile: try .named("sample")).parse(bytes: Samples.fixture("sample-number-forms.xml"))
        #expect(page.hotels.map(\.code) == ["N1", "N2", "N3", "N4", "N5"])
        let byCode = Dictionary(uniqueKeysWithValues: page.hotels.map { ($0.code, $0) })
        #expect(byCode["N1"]?.latitude == 5 && byCode["N1"]?.longitude == 0.5 && byCode["N1"]?.addtime == 17)
        // An exponent, or more digits than the exact fast path takes, goes to Double.init.
        #expect(byCode["N2"]?.latitude == 10 && byCode["N2"]?.longitude == -1.5)
        #expect(byCode["N2"]?.logoURL == "HTTPS://Example.COM/a?b=c#d")
        #expect(byCode["N2"]?.addtime == 1_767_323_045)
        #expect(byCode["N3"]?.latitude == nil && byCode["N3"]?.longitude == nil && byCode["N3"]?.logoURL == nil)
        #expect(byCode["N3"]?.addtime == -5)
        #expect(byCode["N4"]?.latitude == 12.5 && byCode["N4"]?.longitude == nil && byCode["N4"]?.addtime == .max)
        #expect(byCode["N5"]?.logoURL == nil && byCode["N5"]?.addtime == nil)
        #expect(page.warnings.filter { $0.code == "N1" || $0.code == "N2" }.isEmpty)
        #expect(page.warnings.filter { $0.code == "N3" }.compactMap(\.field) == [.latitude, .longitude, .logoURL])
        #expect(page.warnings.filter { $0.code == "N4" }.compactMap(\.field) == [.longitude, .logoURL])
        #expect(page.warnings.filter { $0.code == "N5" }.compactMap(\.field) == [.logoURL, .addtime])
        #expect(
            page.warnings.first { $0.code == "N3" }?.message == "latitude “1.2.3” is not a latitude (a number from −90 to 90); left empty")
    }

    @Test("a nested element named like the record or a field is not taken")
    func nesting() throws {
        let page = try HotelResponseParser(profile: try .named("sample")).parse(bytes: Samples.fixture("sample-extra-elements.xml"))
        #expect(page.hotels.map(\.code) == ["E1", "E2"])
        #expect(page.hotels[0].name == "Real Name")
    }

    @Test("coordinates are divided by the profile's scale")
    func scaledCoordinates() throws {
        let profile = try ServiceProfile.named(Samples.profileArgument("Samples/Profiles/gds-scaled.json"))
        let page = try HotelResponseParser(profile: profile).parse(bytes: Samples.fixture("scaled-coordinates.xml"))
        #expect(page.hotels.first?.latitude == 40.7565)
        #expect(page.hotels.first?.longitude == -73.9735)
    }

    @Test("an OTA error reads as its Code, ShortText and text, whichever it has")
    func otaErrors() throws {
        let ota = HotelResponseParser(profile: try .named("ota-search"))
        // The first error is the error; the second is counted.
        #expect(throws: ServiceReportedError(message: "392 Invalid hotel city code City XYZ is unknown", path: "//Errors/Error", others: 1))
        {
            try ota.parse(bytes: Samples.fixture("ota-errors.xml"))
        }
        #expect(throws: ServiceReportedError(message: "450 Unable to process: system busy", path: "//Errors/Error")) {
            try ota.parse(bytes: Samples.fixture("ota-errors-text-only.xml"))
        }
    }

    @Test("records stream out before the response ends, once the first kilobyte is in")
    func streaming() throws {
        var seen: [String] = []
        let session = try HotelResponseParser(profile: try .named("sample")).session(onRecord: { seen.append($0.code) })
        let bytes = try Samples.fixture("sample-soap11.xml")
        // The third hotel ends at byte 1,069, past the kilobyte the reader holds before it parses.
        let text = String(decoding: bytes, as: UTF8.self)
        let ends = text.ranges(of: "</h:Hotel>").map { text.utf8.distance(from: text.startIndex, to: $0.upperBound) }
        let cut = try #require(ends.first { $0 > 1024 })
        try session.feed(Array(bytes[..<(cut + 1)]))
        #expect(seen == ["SH0001", "SH0002", "SH0003"])
        try session.feed(Array(bytes[(cut + 1)...]))
        _ = try session.finish()
        #expect(seen.count == 5)
    }
}
