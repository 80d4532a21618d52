import ArgumentParser
import Dispatch
import AtomicFiles
import Foundation
import Imaging
import Locking
import Synchronization

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

    @Argument(help: "The image to convert (not with --batch).")
    var input: String?

    @Option(help: "A folder of images to convert, in one process, on every core.")
    var batch: String?

    @Option(help: "The output file, or the output folder with --batch.")
    var out: String

    @Option(help: "The filter chain.")
    var filter = ""

    @Option(help: "Parallel jobs for --batch (default: every core).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Output format for --batch: png or jpg.")
    var format = "png"

    @Option(help: "Refuse images with more pixels than this.")
    var maxPixels = ImageLimits().maxPixels

    @Option(help: "Refuse files larger than this many bytes (default: no limit; files are streamed, and --max-pixels bounds memory).")
    var maxInput: Int?

    @Flag(help: "Print the batch summary as JSON.")
    var json = false

    func validate() throws {
        guard (input == nil) != (batch == nil) else { throw ValidationError("give one input file, or --batch DIR") }
        guard jobs > 0 else { throw ValidationError("--jobs must be at least 1") }
        if batch != nil, format != "png", format != "jpg" { throw ValidationError("--format is png or jpg") }
        if batch == nil, ImageEncoding(fileName: out) == nil { throw ValidationError("--out must end in .png, .jpg or .jpeg") }
    }

    func run() throws {
        let chain: FilterChain
        do {
            chain = try FilterChain(parsing: filter)
        } catch {
            Diagnostics.error("--filter: \(error)")
            throw ExitStatus.usage.code
        }
        let decoder = ImageDecoder(limits: ImageLimits(maxPixels: maxPixels, maxInputBytes: maxInput))
        if let batch {
            let encoding: ImageEncoding = format == "png" ? .png() : .jpeg()
            try runBatch(folder: batch, pipeline: ImagePipeline(decoder: decoder, filter: chain, encoding: encoding))
        } else if let input, let encoding = ImageEncoding(fileName: out) {
            let pipeline = ImagePipeline(decoder: decoder, filter: chain, encoding: encoding)
            do {
                let output = try convert(input, to: out, pipeline: pipeline)
                output.warnings.forEach { Diagnostics.warning("\(input): \($0)") }
            } catch {
                throw Diagnostics.report(error, context: input).code
            }
        }
    }

    private func convert(_ input: String, to output: String, pipeline: ImagePipeline) throws -> ImagePipeline.Output {
        let result = try pipeline.process(.file(path: input))
        try AtomicFile.write(result.encoded, to: URL(fileURLWithPath: output))
        return result
    }

    private func runBatch(folder: String, pipeline: ImagePipeline) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? []
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let started = Date()
        let next = Atomic<Int>(0)
        let failures = PosixMutex<[(String, String)]>([])
        let progress = ProgressLine(total: names.count, label: "images", quiet: json)
        // Each worker takes the next file until none is left.
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(1, names.count))) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < names.count else { return }
                let name = names[index]
                let target = (out as NSString).appendingPathComponent(((name as NSString).deletingPathExtension) + "." + format)
                do {
                    _ = try convert((folder as NSString).appendingPathComponent(name), to: target, pipeline: pipeline)
                } catch {
                    failures.withLock { $0.append((name, String(describing: error))) }
                }
                progress.advance()
            }
        }
        progress.finish()
        let failed = failures.withLock { $0 }
        for (name, reason) in failed.sorted(by: { $0.0 < $1.0 }) {
            Diagnostics.error("\(name): \(reason)")
        }
        let seconds = Date().timeIntervalSince(started)
        let converted = names.count - failed.count
        if json {
            print(#"{"images": \#(names.count), "converted": \#(converted), "failed": \#(failed.count), "seconds": \#(String(format: "%.3f", seconds))}"#)
        } else {
            print("converted \(converted) of \(names.count) images in \(String(format: "%.2f", seconds)) s into \(out)"
                + (failed.isEmpty ? "" : "; \(failed.count) failed"))
        }
        if !failed.isEmpty { throw ExitStatus.dataError.code }
    }
}
