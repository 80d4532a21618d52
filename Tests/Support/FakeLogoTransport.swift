import Foundation
import HTTP
import Locking
import Logos

/// A logo server in memory that records every request (with its headers),
/// every cancel, and answers when the test says so, or at once.
///
/// It answers like the sample service: a PNG with an ETag, Last-Modified and
/// max-age, or 304 when If-None-Match carries that ETag.
public final class FakeLogoTransport: LogoTransport {
    struct State {
        var requests: [(url: String, headers: [String: String])] = []
        var cancels: [String] = []
        var pending: [String: @Sendable (Result<LogoDownload, any Error>) -> Void] = [:]
    }

    private let state = PosixMutex(State())
    public let png: [UInt8]
    private let answersAtOnce: Bool
    private let maxAge: Double?
    private let offline: Bool

    /// - Parameters:
    ///   - answersAtOnce: Complete in `download` itself (false: wait for ``complete(_:error:)``).
    ///   - maxAge: The max-age the answers carry.
    ///   - offline: Every transfer fails as unreachable.
    public init(answersAtOnce: Bool = false, maxAge: Double? = 3600, offline: Bool = false) throws {
        png = try Array(Data(contentsOf: Samples.url("Images/png-rgba8.png")))
        self.answersAtOnce = answersAtOnce
        self.maxAge = maxAge
        self.offline = offline
    }

    public var requests: [(url: String, headers: [String: String])] { state.withLock { $0.requests } }
    public var starts: [String] { requests.map(\.url) }
    public var cancels: [String] { state.withLock { $0.cancels } }
    public var inFlight: Set<String> { state.withLock { Set($0.pending.keys) } }

    private struct Transfer: LogoTransfer {
        let transport: FakeLogoTransport
        let url: String
        func cancel() {
            let completion = transport.state.withLock { state in
                state.cancels.append(url)
                return state.pending.removeValue(forKey: url)
            }
            completion?(.failure(TransportError.cancelled))
        }
    }

    public func download(
        _ url: String, headers: [(name: String, value: String)],
        completion: @escaping @Sendable (Result<LogoDownload, any Error>) -> Void
    ) -> any LogoTransfer {
        let headers = Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        let answer = self.answer(to: headers)
        state.withLock { state in
            state.requests.append((url, headers))
            if !answersAtOnce {
                state.pending[url] = { result in completion((try? result.get()) == nil ? result : answer) }
            }
        }
        if answersAtOnce { completion(answer) }
        return Transfer(transport: self, url: url)
    }

    private func answer(to headers: [String: String]) -> Result<LogoDownload, any Error> {
        if offline { return .failure(TransportError.unreachable("down")) }
        if headers["If-None-Match"] == "\"v1\"" {
            return .success(LogoDownload(bytes: [], notModified: true, etag: "\"v1\"", maxAge: maxAge))
        }
        return .success(LogoDownload(bytes: png, etag: "\"v1\"", lastModified: "Mon, 23 Nov 2026 07:00:00 GMT", maxAge: maxAge))
    }

    /// Completes the transfer for `url` with its answer, or with `error`.
    public func complete(_ url: String, error: (any Error)? = nil) {
        let completion = state.withLock { $0.pending.removeValue(forKey: url) }
        completion?(error.map { .failure($0) } ?? .success(LogoDownload(bytes: [])))
    }

    public func completeAll() {
        inFlight.forEach { complete($0) }
    }
}
