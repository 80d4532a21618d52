import ArgumentParser
import Console
import Failures
import Fetching
import Foundation
import Imaging

struct ImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Decode, filter and encode logos: one file, or a whole folder with --batch.",
        discussion: """
            Filters: resize:WxH[:fit|fill], sepia[:0..1], grayscale, round:R, blur:SIGMA, \
            joined by commas, e.g. resize:64x64:fill,sepia:0.8,round:8. The output format \
            follows --out's extension (.png, .jpg); in batch mode, --format. Exit 65 on a bad image.
            """
    )

    @Argument(help: "The image to convert (not with --batch).") var input: String?
    @Option(help: "A folder of images to convert, in one process, on every core.") var batch: String?
    @Option(help: "The output file, or the output folder with --batch.") var out: String
    @Option(help: "The filter chain.") var filter = ""
    @Option(help: "Parallel jobs for --batch (default: every core).") var jobs = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "Output format for --batch: png or jpg.") var format = "png"
    @Option(help: "Refuse images with more pixels than this.") var maxPixels = ImageLimits().maxPixels
    @Option(help: "Refuse files larger than this many bytes (default: no limit; files are streamed, and --max-pixels bounds memory).")
    var maxInput: Int?
    @Flag(
        help:
            "Refuse a PNG whose chunk CRC or zlib checksum is wrong when making a thumbnail (by default, as in libvips, they are not computed)."
    )
    var verifyChecksums = false
    @Flag(help: "Print the batch summary as JSON.") var json = false

    func validate() throws {
        guard (input == nil) != (batch == nil) else { throw ValidationError("give one input file, or --batch DIR") }
        guard jobs > 0 else { throw ValidationError("--jobs must be at least 1") }
        if batch != nil, format != "png", format != "jpg" { throw ValidationError("--format is png or jpg") }
        if batch == nil, ImageEncoding(fileName: out) == nil { throw ValidationError("--out must end in .png, .jpg or .jpeg") }
    }

    func run() throws {
        let chain = try reported("--filter") { try FilterChain(parsing: filter) }
        let decoder = ImageDecoder(limits: ImageLimits(maxPixels: maxPixels, maxInputBytes: maxInput, verifiesChecksums: verifyChecksums))
        if let batch {
            let encoding: ImageEncoding = format == "png" ? .png() : .jpeg()
            let progress = ProgressLine(
                total: (try? FileManager.default.contentsOfDirectory(atPath: batch).count) ?? 0, label: "images", quiet: json)
            let summary = try ImageBatch(
                processor: ImageProcessor(decoder: decoder, filter: chain, encoding: encoding), fileExtension: format, jobs: jobs
            )
            .run(folder: batch, into: out) { progress.advance() }
            progress.finish()
            for failure in summary.failures { Diagnostics.error("\(failure.name): \(failure.reason)") }
            print(json ? summary.json : "\(summary) into \(out)")
            if !summary.failures.isEmpty { throw ExitStatus.dataError.code }
        } else if let input, let encoding = ImageEncoding(fileName: out) {
            let processor = ImageProcessor(decoder: decoder, filter: chain, encoding: encoding)
            try reported(input) { try processor.convert(input, to: out) }.forEach { Diagnostics.warning("\(input): \($0)") }
        }
    }
}
