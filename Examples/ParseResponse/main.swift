// Parse a recorded SOAP response with a profile and print each hotel as it
// streams out of the parser:
//   swift run ParseResponse Samples/Fixtures/ota-search.xml ota-search
import Foundation
import Hotels

let arguments = CommandLine.arguments
guard arguments.count >= 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: ParseResponse FILE [PROFILE]\n".utf8))
    exit(64)
}
do {
    let parser = HotelResponseParser(profile: try ServiceProfile.named(arguments.count > 2 ? arguments[2] : "sample"))
    let session = try parser.session(
        onRecord: { hotel in print(hotel.code, hotel.name ?? "-", hotel.latitude ?? 0, hotel.longitude ?? 0) },
        onWarning: { warning in FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
    )
    // Feed it in chunks, as a network would.
    for start in stride(from: 0, to: data.count, by: 4096) {
        try data[start..<min(data.count, start + 4096)].withUnsafeBytes { try session.feed($0) }
    }
    let summary = try session.finish()
    print("\(summary.records) records, \(summary.warnings) warnings, next cursor: \(summary.nextCursor ?? "none")")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
