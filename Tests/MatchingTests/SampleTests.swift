import Foundation
import Hotels
import Matching
import Testing

/// `Samples/Matching/paris.jsonl`: the hard cases as a file, each record with the hotel it really is.
@Suite struct SampleTests {
    private struct Line: Decodable {
        var property: String
        var source: MatchSource
        var hotel: Hotel
    }

    @Test func theParisSampleGroupsByItsProperties() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Samples/Matching/paris.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        let decoder = JSONDecoder()
        let lines = try text.split(separator: "\n").map { try decoder.decode(Line.self, from: Data($0.utf8)) }
        let records = try text.split(separator: "\n").map { try decoder.decode(MatchRecord.self, from: Data($0.utf8)) }
        #expect(records.count == lines.count)

        let result = Matcher().match(records)
        var expected: [String: Set<RecordKey>] = [:]
        for line in lines { expected[line.property, default: []].insert(MatchRecord(hotel: line.hotel, source: line.source).key) }
        let found = Set(result.properties.map { Set($0.members) })
        #expect(found == Set(expected.values))
        let marriott = try #require(
            result.properties.first {
                $0.members.contains(RecordKey(profile: "supplier1", endpoint: "https://supplier1.example/soap", code: "MC-PAR-CE"))
            })
        #expect(marriott.tier != .low)
    }
}
