import Dispatch
import Foundation
import HTTP
import Locking
import Logos

/// Logo pipelines under one filter chain, chosen by where a list's service
/// is: what a supplier's data names is fetched from public addresses only
/// (``/HTTP/AddressRule/publicOnly``), unless the list's own service is on
/// this machine's network, as the sample service on loopback is. So a
/// supplier's logo URL cannot make HotelKit reach `169.254.169.254` or the
/// database. The dashboard's live logos and `hotels match --logos` load
/// through it.
public final class SupplierLogos: Sendable {
    private let publicOnly: LogoPipeline
    private let anyAddress: LogoPipeline
    /// Whether each service host is on this machine's network, looked up once.
    private let onPrivateNetwork = Locked<[String: Bool]>([:])

    /// - Parameters:
    ///   - publicOnly: for lists whose service is elsewhere: a pipeline whose transport refuses private addresses.
    ///   - anyAddress: for lists whose service is on this machine's network.
    public init(publicOnly: LogoPipeline, anyAddress: LogoPipeline) {
        self.publicOnly = publicOnly
        self.anyAddress = anyAddress
    }

    /// The pipeline for logos of a list whose service is at `endpoint`.
    public func pipeline(forServiceAt endpoint: String) async -> LogoPipeline {
        await isOnPrivateNetwork(URL(string: endpoint)?.host ?? "") ? anyAddress : publicOnly
    }

    /// Waits for the pipelines' index notes (``/Logos/LogoPipeline/indexWritten()``).
    public func indexWritten() async {
        await publicOnly.indexWritten()
        await anyAddress.indexWritten()
    }

    private func isOnPrivateNetwork(_ host: String) async -> Bool {
        if let known = onPrivateNetwork.withLock({ $0[host] }) { return known }
        // A name lookup blocks its thread: off the cooperative pool.
        let special = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: AddressRule.isSpecial(host: host)) }
        }
        onPrivateNetwork.withLock { $0[host] = special }
        return special
    }
}
