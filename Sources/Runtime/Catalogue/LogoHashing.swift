import Foundation
import Imaging
import Logos
import OfflineStore

/// The logo stage of `hotels match --logos`: each logo a scope's records name
/// that the store has no hash for is loaded through the logo pipeline (its
/// caches first, then the network, as the original bytes) and given its
/// perceptual hash, which the store keeps with the logo's index entry.
struct LogoHashing: Sendable {
    /// Logos loaded and hashed at once.
    let parallel: Int

    /// What a run of the stage did.
    struct Outcome: Sendable {
        var hashes: [String: UInt64] = [:]
        /// Pictures of one colour (placeholders): nothing to compare.
        var flat = 0
        /// Logos that could not be had or decoded, with the first reason.
        var failed = 0
        var firstFailure: String?
    }

    /// - Parameter work: each logo with the pipeline (no filter: the hash is of the picture the supplier sent) it loads through.
    func hash(_ work: [(url: String, pipeline: LogoPipeline)]) async -> Outcome {
        await withTaskGroup(of: (String, Result<UInt64?, any Error>).self) { group in
            var outcome = Outcome()
            var next = 0
            func start(_ group: inout TaskGroup<(String, Result<UInt64?, any Error>)>) {
                let (url, pipeline) = work[next]
                next += 1
                group.addTask {
                    do {
                        let logo = try await pipeline.data(for: url)
                        guard let data = logo.data else { throw LogoError.notCached(ShownURL.of(url)) }
                        return (url, .success(try PerceptualHash(data: data, decoder: pipeline.configuration.decoder)?.value))
                    } catch {
                        return (url, .failure(error))
                    }
                }
            }
            while next < min(max(1, parallel), work.count) { start(&group) }
            for await (url, result) in group {
                switch result {
                case .success(let hash?): outcome.hashes[url] = hash
                case .success(nil): outcome.flat += 1
                case .failure(let error):
                    outcome.failed += 1
                    // As pages show a URL: a supplier may sign its logo URLs.
                    if outcome.firstFailure == nil { outcome.firstFailure = "\(ShownURL.of(url)): \(error)" }
                }
                if next < work.count { start(&group) }
            }
            return outcome
        }
    }
}
