import Crypto
import Foundation
import Imaging
import Logos
import OfflineStore
import Runtime

/// The dashboard's logos: links that name a logo of a list, and the pipelines
/// that load one live, through the window scheduler, when the store has none.
///
/// **Which URLs.** A page links a row's logo as `/logo?list=ID&url=…&sig=…`,
/// the signature an HMAC of the list and the URL under a key of this
/// process: `/logo` loads only URLs the dashboard itself took from a hotel of
/// the store, so a request cannot make it fetch anything else.
///
/// **Which addresses.** A logo is fetched over http or https only, through
/// ``/Runtime/SupplierLogos``: a private, loopback or link-local address is
/// reached only for a list whose own service is on one (the sample service
/// on loopback), so a supplier's data cannot make the dashboard reach
/// `169.254.169.254` or the database.
struct DashboardLogos: Sendable {
    /// The links' key: random for each process, so links live as long as the dashboard that gave them.
    private let key = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
    /// The pipelines, by where a list's service is.
    private let logos: SupplierLogos

    init(runtime: HotelRuntime, filter: FilterChain) {
        logos = runtime.supplierLogos(filter: filter)
    }

    /// The `/logo` link of a hotel's logo in `list`.
    func link(_ url: String, list: Int64) -> String {
        "/logo?list=\(list)&url=\(Page.queryEscaped(url))&sig=\(signature(url, list: list))"
    }

    /// Whether `signature` is this process's for `url` in `list`: a link a page of this dashboard gave.
    func verifies(_ signature: String, url: String, list: Int64) -> Bool {
        AccessGuard.constantTimeEqual(signature, self.signature(url, list: list))
    }

    private func signature(_ url: String, list: Int64) -> String {
        HMAC<SHA256>.authenticationCode(for: Data("\(list)\n\(url)".utf8), using: SymmetricKey(data: key)).prefix(16)
            .map { String(format: "%02x", $0) }.joined()
    }

    /// The logo's bytes as the disk cache keeps them under the dashboard's filter chain: from the caches,
    /// or fetched (then cached and indexed). Cancelling the task cancels the scheduler's operation and
    /// the transfer.
    /// Only http and https: the transport's own protocols.
    func data(_ url: String, list: CachedList) async throws -> [UInt8] {
        let pipeline = await logos.pipeline(forServiceAt: list.key.endpoint)
        guard let data = try await pipeline.data(for: url).data else { throw LogoError.notCached(ShownURL.of(url)) }
        return data
    }
}
