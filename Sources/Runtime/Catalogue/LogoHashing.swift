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
        let results = await HotelRuntime.forEach(work, parallel: parallel) { job in
            do {
                guard let data = try await job.pipeline.data(for: job.url).data else { throw LogoError.notCached(ShownURL.of(job.url)) }
                return Result<UInt64?, any Error>.success(
                    try PerceptualHash(data: data, decoder: job.pipeline.configuration.decoder)?.value)
            } catch {
                return .failure(error)
            }
        }
        var outcome = Outcome()
        for ((url, _), result) in zip(work, results) {
            switch result {
            case .success(let hash?): outcome.hashes[url] = hash
            case .success(nil): outcome.flat += 1
            case .failure(let error):
                outcome.failed += 1
                // As pages show a URL: a supplier may sign its logo URLs.
                if outcome.firstFailure == nil { outcome.firstFailure = "\(ShownURL.of(url)): \(error)" }
            }
        }
        return outcome
    }
}
