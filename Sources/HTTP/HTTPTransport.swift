import CCurl
import Foundation
import Locking

/// HTTP through libcurl: keep-alive connections reused from a pool,
/// HTTP/1.1 and HTTP/2, gzip and deflate, bounded redirects over http(s)
/// only, proxies from the environment, and a streamed body.
///
/// Cancelling the calling task aborts the transfer at once: the transfer
/// waits in `curl_multi_poll`, which a cancel wakes, and removing the handle
/// closes the connection, so the server sees it go.
public final class HTTPTransport: HTTPClient {
    public let configuration: TransportConfiguration
    private let pool = PosixMutex<[CurlSession]>([])

    public init(configuration: TransportConfiguration = TransportConfiguration()) {
        curlIsReady.assertReady()
        self.configuration = configuration
    }

    /// Sends `request`, streaming the body into `sink`; returns the final head.
    public func send(_ request: HTTPRequest, into sink: some HTTPBodySink) async throws -> HTTPResponseHead {
        let cancellation = CancellationSignal()
        // The transfer blocks its thread in libcurl, so it runs on a transfer
        // thread rather than on the cooperative pool.
        let handoff = SinkHandoff(sink)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transferThreads.run { [self] in
                    handoff.finish(Result { try perform(request, sink: handoff.sink, cancellation: cancellation) })
                    continuation.resume()
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try handoff.outcome()
    }

    private func perform(_ request: HTTPRequest, sink: any HTTPBodySink, cancellation: CancellationSignal) throws -> HTTPResponseHead {
        let session = checkOut()
        defer { checkIn(session) }
        let transfer = Transfer(sink: sink, limit: configuration.maxBodyBytes)
        let handle = session.easy
        session.reset()
        try configure(handle, request: request, transfer: transfer)
        var headerList: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            // libcurl drops a header written "Name:" with no value; "Name;" sends it empty
            // (SOAP 1.1 requires a SOAPAction header, and many services' is "").
            headerList = curl_slist_append(headerList, header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        headerList = curl_slist_append(headerList, "Expect:")  // no 100-continue round trip
        defer { curl_slist_free_all(headerList) }
        hk_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
        let body = request.body ?? []
        let code: CURLcode = body.withUnsafeBytes { bytes in
            if request.method == .post {
                hk_curl_setopt_long(handle, CURLOPT_POST, 1)
                if let base = bytes.baseAddress, !bytes.isEmpty {
                    hk_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                    hk_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                } else {
                    // A null POSTFIELDS would make libcurl read the body from stdin.
                    hk_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                }
            }
            return withExtendedLifetime(transfer) { run(session, cancellation: cancellation) }
        }
        if let failure = transfer.sinkError { throw failure }
        if cancellation.isCancelled { throw TransportError.cancelled }
        if let refused = transfer.refusedAddress { throw TransportError.refusedAddress(refused) }
        if transfer.exceededLimit { throw TransportError.tooLarge(limit: configuration.maxBodyBytes) }
        switch code {
        case CURLE_OK: break
        case CURLE_FILESIZE_EXCEEDED: throw TransportError.tooLarge(limit: configuration.maxBodyBytes)
        case CURLE_TOO_MANY_REDIRECTS: throw TransportError.tooManyRedirects(configuration.maxRedirects)
        default: throw TransportError(code: code, message: session.errorMessage)
        }
        var status = 0
        hk_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponseHead(status: status, headers: transfer.headers)
    }

    private func configure(_ handle: UnsafeMutableRawPointer, request: HTTPRequest, transfer: Transfer) throws {
        let configuration = self.configuration
        guard hk_curl_setopt_string(handle, CURLOPT_URL, request.url) == CURLE_OK else {
            throw TransportError.other("bad URL: \(request.url)")
        }
        hk_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        hk_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        hk_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        hk_curl_setopt_long(handle, CURLOPT_MAXREDIRS, configuration.maxRedirects)
        // Keep POST on 301 and 302 as SOAP needs; 303 means GET.
        hk_curl_setopt_long(handle, CURLOPT_POSTREDIR, Int(CURL_REDIR_POST_301 | CURL_REDIR_POST_302))
        hk_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")  // every encoding libcurl decodes
        hk_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        hk_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds)
        hk_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, configuration.requestTimeout.milliseconds)
        hk_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedBytesPerSecond)
        hk_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, configuration.lowSpeedTime.milliseconds / 1000))
        hk_curl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxBodyBytes))
        hk_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, configuration.verifyTLS ? 1 : 0)
        hk_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, configuration.verifyTLS ? 2 : 0)
        hk_curl_setopt_string(handle, CURLOPT_USERAGENT, configuration.userAgent)
        hk_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        hk_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        hk_curl_setopt_write_function(handle, writeCallback)
        hk_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        hk_curl_setopt_header_function(handle, headerCallback)
        hk_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        if configuration.addressRule == .publicOnly {
            hk_curl_setopt_opensocket_function(handle, openSocketCallback)
            hk_curl_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context)
            // Through a proxy the check would see the proxy's address, never the one the proxy reaches: no proxy.
            hk_curl_setopt_string(handle, CURLOPT_NOPROXY, "*")
        }
    }

    /// Drives one transfer on the session's multi handle until it ends or is cancelled.
    private func run(_ session: CurlSession, cancellation: CancellationSignal) -> CURLcode {
        guard cancellation.attach(session.multi) else { return CURLE_ABORTED_BY_CALLBACK }
        defer { cancellation.detach() }
        curl_multi_add_handle(session.multi, session.easy)
        defer { curl_multi_remove_handle(session.multi, session.easy) }
        var running: Int32 = 1
        while running > 0 {
            guard curl_multi_perform(session.multi, &running) == CURLM_OK else { return CURLE_FAILED_INIT }
            if running == 0 { break }
            curl_multi_poll(session.multi, nil, 0, 200, nil)
            if cancellation.isCancelled { return CURLE_ABORTED_BY_CALLBACK }
        }
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(session.multi, &remaining) {
            if message.pointee.msg == CURLMSG_DONE { return message.pointee.data.result }
        }
        return CURLE_OK
    }

    private func checkOut() -> CurlSession {
        pool.withLock { $0.popLast() } ?? CurlSession()
    }

    private func checkIn(_ session: CurlSession) {
        pool.withLock { sessions in
            if sessions.count < 16 { sessions.append(session) }
        }
    }
}

// MARK: - libcurl plumbing

/// libcurl is initialised once per process, before any handle exists.
private let curlIsReady = CurlSetup()

/// Shared by every transport: threads are reused across transports too.
private let transferThreads = TransferThreads()

private struct CurlSetup: Sendable {
    init() {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }

    func assertReady() {}
}

/// An easy handle and the multi handle that drives it; the multi handle keeps
/// the connection cache, so a session reused is a connection reused.
///
/// `@unchecked Sendable`: a session is used by one transfer at a time, handed
/// over only through the transport's Mutex-guarded pool.
private final class CurlSession: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let multi: UnsafeMutableRawPointer
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init() {
        // curl_easy_init and curl_multi_init fail only when out of memory.
        easy = curl_easy_init()!
        multi = curl_multi_init()!
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    /// Clears the options of the last transfer (connections stay cached).
    func reset() {
        curl_easy_reset(easy)
        errorBuffer[0] = 0
        hk_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// libcurl's detailed message for the last transfer.
    var errorMessage: String { String(cString: errorBuffer) }

    deinit {
        curl_easy_cleanup(easy)
        curl_multi_cleanup(multi)
        errorBuffer.deallocate()
    }
}

/// Cancellation that can reach a transfer blocked in `curl_multi_poll`.
private final class CancellationSignal: Sendable {
    private struct State {
        var cancelled = false
        /// The multi handle while a transfer runs, as a bit pattern.
        var multi: UInt?
    }

    private let state = PosixMutex(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let multi = state.multi, let handle = UnsafeMutableRawPointer(bitPattern: multi) {
                curl_multi_wakeup(handle)  // thread-safe by libcurl's contract
            }
        }
    }

    /// Returns false when already cancelled.
    func attach(_ multi: UnsafeMutableRawPointer) -> Bool {
        state.withLock { state in
            state.multi = UInt(bitPattern: multi)
            return !state.cancelled
        }
    }

    func detach() {
        state.withLock { $0.multi = nil }
    }
}

/// One transfer's state, reached from libcurl's callbacks on the transfer thread.
private final class Transfer {
    let sink: any HTTPBodySink
    let limit: Int
    var received = 0
    var exceededLimit = false
    var sinkError: (any Error)?
    var headers: [String: String] = [:]
    /// The address ``AddressRule/publicOnly`` refused, which is the transfer's failure.
    var refusedAddress: String?

    init(sink: any HTTPBodySink, limit: Int) {
        self.sink = sink
        self.limit = limit
    }
}

/// Takes the sink to the transfer thread, and the transfer's outcome back.
///
/// `@unchecked Sendable`: the sink is used only on the transfer thread until
/// the transfer ends, then only by the caller. The continuation's resume
/// orders the two, but inside the Swift runtime, where ThreadSanitizer cannot
/// see it, so it reported the sink's writes (`PageSink.receive`) and the
/// caller's reads (`PageSink.page`) as a race. The outcome goes through a
/// pthread mutex, which it sees: finished before resuming, taken after.
private final class SinkHandoff: @unchecked Sendable {
    let sink: any HTTPBodySink
    private let result = PosixMutex<Result<HTTPResponseHead, any Error>?>(nil)

    init(_ sink: any HTTPBodySink) { self.sink = sink }

    func finish(_ outcome: Result<HTTPResponseHead, any Error>) {
        result.withLock { $0 = outcome }
    }

    /// What `finish` was given; called after the transfer thread resumed the caller.
    func outcome() throws -> HTTPResponseHead {
        guard let outcome = result.withLock({ $0 }) else { throw TransportError.other("the transfer ended without an outcome") }
        return try outcome.get()
    }
}

private let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context, let data else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    transfer.received += length
    if transfer.received > transfer.limit {
        transfer.exceededLimit = true
        return 0  // any other count aborts the transfer
    }
    do {
        try transfer.sink.receive(UnsafeRawBufferPointer(start: data, count: length))
    } catch {
        transfer.sinkError = error
        return 0
    }
    return length
}

private let headerCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context, let data else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        transfer.headers = [:]  // a new response (after a redirect or 100): start over
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        transfer.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return length
}

extension TransportError {
    init(code: CURLcode, message: String) {
        let reason = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            self = .unreachable(reason)
        case CURLE_OPERATION_TIMEDOUT:
            self = .timeout(reason)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            self = .tls(reason)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            self = .connectionLost(reason)
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .other("unsupported protocol (only http and https are followed): \(reason)")
        default:
            self = .other(reason)
        }
    }
}

extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// Opens each connection's socket after ``AddressRule/publicOnly`` has seen
/// the address libcurl is about to connect to: the name as resolved for this
/// very connection, so a name that resolves anew (DNS rebinding) or a redirect
/// cannot slip past the check.
private let openSocketCallback:
    @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
        context, _, address in
        guard let context, let address else { return -1 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        // The address runs on past `struct sockaddr` (an IPv6 one is 28 bytes): read it from the struct's own storage, `addrlen` long.
        let addressField = UnsafeRawPointer(address) + (MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) ?? 16)
        let peer = SocketAddress(addressField, family: address.pointee.family, length: Int(address.pointee.addrlen))
        guard let peer, !peer.isSpecial else {
            transfer.refusedAddress = peer?.description ?? "an address of family \(address.pointee.family)"
            return -1
        }
        #if canImport(Glibc)
            let socketType = address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let socketType = address.pointee.socktype
        #endif
        return socket(address.pointee.family, socketType, address.pointee.protocol)
    }
