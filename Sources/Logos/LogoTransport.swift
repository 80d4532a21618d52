import HTTP
import Imaging
import Locking
import Logging

/// A logo's bytes as the network gave them, with what a cache keeps.
public struct LogoDownload: Sendable {
    /// Empty when the server answered 304 Not Modified.
    public var bytes: [UInt8]
    public var notModified: Bool
    public var etag: String?
    public var lastModified: String?
    /// `Cache-Control: max-age`, in seconds.
    public var maxAge: Double?

    public init(bytes: [UInt8], notModified: Bool = false, etag: String? = nil, lastModified: String? = nil, maxAge: Double? = nil) {
        self.bytes = bytes
        self.notModified = notModified
        self.etag = etag
        self.lastModified = lastModified
        self.maxAge = maxAge
    }
}

/// A transfer in flight, which the caller may abort.
public protocol LogoTransfer: Sendable {
    func cancel()
}

/// The pipeline's network stage. It reaches the network only through this,
/// so tests substitute a fake that records starts and cancels.
public protocol LogoTransport: Sendable {
    /// Starts a GET of `url` with `headers` (the validators of a cached copy,
    /// if any) and calls `completion` once, from any thread. After
    /// ``LogoTransfer/cancel()`` the completion reports
    /// `TransportError.cancelled`, or is not called at all.
    func download(
        _ url: String, headers: [(name: String, value: String)],
        completion: @escaping @Sendable (Result<LogoDownload, any Error>) -> Void
    ) -> any LogoTransfer
}

/// ``LogoTransport`` over any ``/HTTP/HTTPClient``, retrying what the network
/// makes worth retrying. Over libcurl, cancelling aborts the transfer, so the
/// server sees the connection close.
public struct HTTPLogoTransport: LogoTransport {
    private let client: any HTTPClient
    private let retry: RetryPolicy
    private let logger: Logger

    /// - Parameters:
    ///   - client: What downloads the logos; libcurl by default.
    ///   - retry: Which failures are tried again, how often and after how long.
    ///   - logger: Where retries are logged, as warnings.
    public init(
        client: any HTTPClient = HTTPTransport(), retry: RetryPolicy = RetryPolicy(),
        logger: Logger = Logger(label: "hotelkit.logos")
    ) {
        self.client = client
        self.retry = retry
        self.logger = logger
    }

    private struct TaskTransfer: LogoTransfer {
        let task: Task<Void, Never>
        func cancel() { task.cancel() }
    }

    public func download(
        _ url: String, headers: [(name: String, value: String)],
        completion: @escaping @Sendable (Result<LogoDownload, any Error>) -> Void
    ) -> any LogoTransfer {
        TaskTransfer(
            task: Task { [client, retry, logger] in
                completion(
                    await Result { () async throws -> LogoDownload in
                        let (head, body) = try await retry.run(logger: logger, context: "logo \(url)") {
                            let (head, body) = try await client.data(for: HTTPRequest(url: url, headers: headers))
                            // Inside the retry: a 5xx is worth another try.
                            guard head.status == 200 || head.status == 304 else {
                                throw TransportError.httpStatus(head.status, snippet: "")
                            }
                            return (head, body)
                        }
                        return LogoDownload(
                            bytes: head.status == 304 ? [] : body, notModified: head.status == 304,
                            etag: head.headers["etag"], lastModified: head.headers["last-modified"],
                            maxAge: CachedImageMetadata.maxAge(cacheControl: head.headers["cache-control"]))
                    })
            })
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// How one network transfer ended: every transfer that starts ends in exactly one of these.
public enum TransferOutcome: Sendable, Equatable {
    case completed(bytes: Int)
    case failed
    /// Every row that wanted it left before it finished.
    case cancelled
}

/// One network transfer per URL, shared by every request that wants it. The
/// transfer is cancelled only when its last subscriber leaves.
final class SharedTransfers: Sendable {
    typealias Subscriber = @Sendable (_ result: Result<LogoDownload, any Error>, _ isFirstSubscriber: Bool) -> Void

    private struct Entry {
        var transfer: (any LogoTransfer)?
        var subscribers: [(id: Int, deliver: Subscriber)] = []
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextID = 0
    }

    private let transport: any LogoTransport
    private let state = PosixMutex(State())
    private let observe: @Sendable (LogoPipelineEvent) -> Void

    init(transport: any LogoTransport, observe: @escaping @Sendable (LogoPipelineEvent) -> Void) {
        self.transport = transport
        self.observe = observe
    }

    /// Joins the transfer for `url`, starting it with `headers` if none is in
    /// flight. Returns the subscription's id, for ``leave(_:id:)``.
    func join(_ url: String, headers: [(name: String, value: String)], deliver: @escaping Subscriber) -> Int {
        let (id, isNew) = state.withLock { state in
            state.nextID += 1
            let isNew = state.entries[url] == nil
            state.entries[url, default: Entry()].subscribers.append((state.nextID, deliver))
            return (state.nextID, isNew)
        }
        guard isNew else { return id }
        observe(.transferStarted(url: url))
        let transfer = transport.download(url, headers: headers) { [self] result in
            let subscribers = state.withLock { $0.entries.removeValue(forKey: url)?.subscribers ?? [] }
            // A transfer whose subscribers all left was reported when they left.
            guard !subscribers.isEmpty else { return }
            let outcome: TransferOutcome =
                switch result {
                case .success(let download): .completed(bytes: download.bytes.count)
                case .failure: .failed
                }
            observe(.transferEnded(url: url, outcome))
            for (index, subscriber) in subscribers.enumerated() {
                subscriber.deliver(result, index == 0)
            }
        }
        // Everyone may have left while the transfer was being started.
        let orphaned = state.withLock { state -> Bool in
            guard let entry = state.entries[url] else { return false }
            guard !entry.subscribers.isEmpty else {
                state.entries[url] = nil
                return true
            }
            state.entries[url]?.transfer = transfer
            return false
        }
        if orphaned { transfer.cancel() }
        return id
    }

    /// Leaves the transfer for `url`; the last one to leave cancels it.
    func leave(_ url: String, id: Int) {
        let (left, transfer) = state.withLock { state -> (Bool, (any LogoTransfer)?) in
            guard var entry = state.entries[url] else { return (false, nil) }
            entry.subscribers.removeAll { $0.id == id }
            guard entry.subscribers.isEmpty else {
                state.entries[url] = entry
                return (false, nil)
            }
            // Without a transfer yet, the empty entry tells `join` to cancel it once started.
            state.entries[url] = entry.transfer == nil ? entry : nil
            return (true, entry.transfer)
        }
        guard left else { return }
        transfer?.cancel()
        observe(.transferEnded(url: url, .cancelled))
    }
}
