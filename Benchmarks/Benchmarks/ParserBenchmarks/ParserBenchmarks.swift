import Benchmark
import Foundation
import Hotels

/// A sample-profile response of `count` records, built in memory like the
/// generator in scripts/bench writes them.
private func response(records count: Int) -> [UInt8] {
    var text = #"<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">"#
    for index in 0..<count {
        let name = index % 3 == 0 ? "上海锦江国际饭店" : "Grand Plaza Hotel &amp; Suites Paris"
        text += "<h:Hotel><h:code>H\(index)</h:code><h:name>\(name)</h:name><h:address>\(index) Riverside Road, District 7</h:address>"
            + "<h:latitude>31.\(100000 + index)</h:latitude><h:longitude>121.\(200000 + index)</h:longitude>"
            + "<h:logoURL>http://127.0.0.1:8080/logos/H\(index).png</h:logoURL><h:addtime>\(1_800_000_000 - index)</h:addtime>"
            + "<h:rating>4</h:rating><h:description>Rooms 120, breakfast included, check-in from 14:00</h:description></h:Hotel>\n"
    }
    text += "<h:lastAddTime>1</h:lastAddTime></h:QueryHotelsResponse></soap:Body></soap:Envelope>"
    return Array(text.utf8)
}

let benchmarks: @Sendable () -> Void = {
    let document = response(records: 20_000)
    let megabytes = document.count / 1_000_000

    Benchmark(
        "Parse \(megabytes) MB sample response (records)",
        configuration: .init(metrics: [.throughput, .wallClock, .mallocCountTotal, .peakMemoryResident],
                             maxDuration: .seconds(10), maxIterations: 30)
    ) { benchmark in
        let parser = HotelResponseParser(profile: try ServiceProfile.named("sample"))
        for _ in benchmark.scaledIterations {
            var records = 0
            let session = try parser.session(onRecord: { _ in records += 1 })
            try document.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + 256 << 10, bytes.count)
                    try session.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                }
            }
            _ = try session.finish()
            blackHole(records)
        }
    }

    Benchmark(
        "Parse and encode JSON Lines",
        configuration: .init(metrics: [.throughput, .wallClock], maxDuration: .seconds(10), maxIterations: 30)
    ) { benchmark in
        let parser = HotelResponseParser(profile: try ServiceProfile.named("sample"))
        for _ in benchmark.scaledIterations {
            var output: [UInt8] = []
            output.reserveCapacity(document.count)
            let session = try parser.session(onRecord: { HotelJSONLines.append($0, to: &output) })
            try session.feed(document)
            _ = try session.finish()
            blackHole(output.count)
        }
    }
}
