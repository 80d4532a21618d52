import SOAP
import Synchronization

/// A logo's bytes as downloaded, with the validators a cache keeps.
public struct LogoDownload: Sendable {
    public var bytes: [UInt8]
    public var etag: String?
    public var lastModified: String?

    public init(bytes: [UInt8], etag: String? = nil, lastModified: String? = nil) {
        self.bytes = bytes
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A transfer in flight, which the caller may abort.
public protocol LogoTransfer: Sendable {
    func cancel()
}

/// Starts logo downloads. The scheduler talks to the network only through
/// this, so tests substitute a fake that records starts and cancels.
public protocol LogoTransport: Sendable {
    /// Starts downloading `url` and calls `completion` once, from any thread.
    /// After ``LogoTransfer/cancel()`` the completion reports
    /// `TransportError.cancelled`, or is not called at all.
    func download(_ url: String, completion: @escaping @Sendable (Result<LogoDownload, any Error>) -> Void) -> any LogoTransfer
}

/// ``LogoTransport`` over libcurl: cancelling aborts the transfer, so the
/// server sees the connection close.
public struct HTTPLogoTransport: LogoTransport {
    private let transport: HTTPTransport

    public init(transport: HTTPTransport) {
        self.transport = transport
    }

    private struct TaskTransfer: LogoTransfer {
        let task: Task<Void, Never>
        func cancel() { task.cancel() }
    }

    public func download(_ url: String, completion: @escaping @Sendable (Result<LogoDownload, any Error>) -> Void) -> any LogoTransfer {
        TaskTransfer(task: Task { [transport] in
            completion(await Result { () async throws -> LogoDownload in
                let (head, body) = try await transport.data(for: HTTPRequest(url: url))
                guard head.status == 200 else { throw TransportError.httpStatus(head.status, snippet: "") }
                return LogoDownload(bytes: body, etag: head.headers["etag"], lastModified: head.headers["last-modified"])
            })
        })
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// One network transfer per URL, shared by every row that wants it. The
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
    private let state = Mutex(State())
    /// Told when a network transfer starts and when it ends (`nil` bytes: it failed or was cancelled).
    private let onTransferStart: @Sendable (String) -> Void
    private let onTransferEnd: @Sendable (String, Int?) -> Void

    init(transport: any LogoTransport, onTransferStart: @escaping @Sendable (String) -> Void,
         onTransferEnd: @escaping @Sendable (String, Int?) -> Void) {
        self.transport = transport
        self.onTransferStart = onTransferStart
        self.onTransferEnd = onTransferEnd
    }

    /// Joins the transfer for `url`, starting it if none is in flight.
    /// Returns the subscription's id, for ``leave(_:id:)``.
    func join(_ url: String, deliver: @escaping Subscriber) -> Int {
        let (id, isNew) = state.withLock { state in
            state.nextID += 1
            let isNew = state.entries[url] == nil
            state.entries[url, default: Entry()].subscribers.append((state.nextID, deliver))
            return (state.nextID, isNew)
        }
        guard isNew else { return id }
        onTransferStart(url)
        let transfer = transport.download(url) { [self] result in
            let subscribers = state.withLock { $0.entries.removeValue(forKey: url)?.subscribers ?? [] }
            // A transfer whose subscribers all left was reported when they left.
            guard !subscribers.isEmpty else { return }
            onTransferEnd(url, (try? result.get())?.bytes.count)
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
        onTransferEnd(url, nil)
    }
}
