import AtomicFiles
import Dispatch
import Foundation
import Locking
import Synchronization

/// A folder of images through one ``ImageProcessor``, in one process, `jobs`
/// files at once: what `hotels image --batch` runs. A file that cannot be
/// converted is counted and named; the others go on.
public struct ImageBatch: Sendable {
    /// What a batch did.
    public struct Summary: Sendable {
        public var images = 0
        public var converted = 0
        /// Each failed file's name and why, by name.
        public var failures: [(name: String, reason: String)] = []
        public var seconds = 0.0
    }

    public var processor: ImageProcessor
    /// The output files' extension: `png` or `jpg`.
    public var fileExtension: String
    public var jobs: Int

    public init(processor: ImageProcessor, fileExtension: String, jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.processor = processor
        self.fileExtension = fileExtension
        self.jobs = max(1, jobs)
    }

    /// Converts every file of `folder` into `output` (created), each written atomically.
    /// - Parameters:
    ///   - folder: The folder whose files are converted.
    ///   - output: The folder the converted files go into.
    ///   - converted: Called after each file, from any thread.
    public func run(folder: String, into output: String, converted: @Sendable () -> Void = {}) throws -> Summary {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? []
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let started = Date()
        let next = Atomic<Int>(0)
        let failures = PosixMutex<[(name: String, reason: String)]>([])
        // Each worker takes the next file until none is left.
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(1, names.count))) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < names.count else { return }
                let name = names[index]
                let target = (output as NSString).appendingPathComponent(((name as NSString).deletingPathExtension) + "." + fileExtension)
                do {
                    _ = try processor.convert((folder as NSString).appendingPathComponent(name), to: target)
                } catch {
                    failures.withLock { $0.append((name, String(describing: error))) }
                }
                converted()
            }
        }
        let failed = failures.withLock { $0 }.sorted { $0.name < $1.name }
        return Summary(
            images: names.count, converted: names.count - failed.count, failures: failed, seconds: Date().timeIntervalSince(started))
    }

}

extension ImageProcessor {
    /// One file: decoded, filtered, encoded and written atomically; the decoder's warnings returned.
    public func convert(_ input: String, to output: String) throws -> [String] {
        let result = try process(.file(path: input))
        try AtomicFile.write(result.encoded, to: URL(fileURLWithPath: output))
        return result.warnings
    }
}

extension ImageBatch.Summary: CustomStringConvertible {
    /// `converted 118 of 120 images in 1.52 s; 2 failed`.
    public var description: String {
        "converted \(converted) of \(images) images in \(String(format: "%.2f", seconds)) s"
            + (failures.isEmpty ? "" : "; \(failures.count) failed")
    }

    /// One JSON object: `{"images": 120, "converted": 118, "failed": 2, "seconds": 1.520}`.
    public var json: String {
        #"{"images": \#(images), "converted": \#(converted), "failed": \#(failures.count), "seconds": \#(String(format: "%.3f", seconds))}"#
    }
}
