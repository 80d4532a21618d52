// Load one logo through the logo pipeline, with a disk cache, and save it:
//   swift run Thumbnail http://127.0.0.1:8080/logos/H000002.png thumb.png
// A second run within the logo's max-age comes from the disk cache; after
// it, the server is asked with If-None-Match and a 304 keeps the copy.
import Foundation
import Imaging
import Logos

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: Thumbnail URL OUT.png\n".utf8))
    exit(64)
}
do {
    let pipeline = LogoPipeline(
        configuration: .init(
            filter: try FilterChain(parsing: "resize:128x128:fit,sepia:0.5"),
            diskCache: try DiskImageCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-example"))
        ))
    let logo = try await pipeline.data(for: arguments[1])
    try Data(logo.data ?? []).write(to: URL(fileURLWithPath: arguments[2]))
    print("saved \(arguments[2]) (\(logo.data?.count ?? 0) bytes) from \(logo.source)")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
