// The core of `hotels parse --count`, linked with the Hotels library alone:
// the hotels executable also links the sample server (SwiftNIO), which
// valgrind 3.19 cannot run, and instruction counts need valgrind.
import Foundation
import Hotels

guard (2...3).contains(CommandLine.arguments.count) else {
    FileHandle.standardError.write(Data("usage: parse-count FILE [PROFILE]\n".utf8))
    exit(64)
}
let descriptor = open(CommandLine.arguments[1], O_RDONLY)
guard descriptor >= 0 else { exit(66) }
do {
    let profile = try ServiceProfile.named(CommandLine.arguments.count == 3 ? CommandLine.arguments[2] : "sample")
    let session = try HotelResponseParser(profile: profile).session(onRecord: { _ in })
    try session.feed(fileDescriptor: descriptor)
    let summary = try session.finish()
    print(#"{"records": \#(summary.records), "warnings": \#(summary.warnings)}"#)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(65)
}
