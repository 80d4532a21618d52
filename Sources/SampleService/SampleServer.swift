import AtomicFiles
import Foundation
import Hummingbird
import Locking
import Logging
import SOAP
import Seeding
import SupplierWorlds

/// What `hotels serve` is started with.
public struct SampleServiceOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 0
    public var seed: UInt64 = 1
    public var hotels = 5000
    /// Added before every response, in milliseconds, plus up to `jitter` more.
    public var latency = 0
    public var jitter = 0
    /// The share of SOAP requests answered with a Server fault or an HTTP 500.
    public var failRate = 0.0
    /// The share of SOAP requests answered with HTTP 429 and `Retry-After` (``retryAfter`` seconds).
    public var throttleRate = 0.0
    public var retryAfter = 2
    /// The share of responses whose connection is reset mid-body.
    public var dropRate = 0.0
    /// A file that gets one JSON line per request.
    public var logFile: String?
    /// Cache-Control max-age of logos, in seconds; 0 makes clients revalidate every time.
    public var logoMaxAge = 3600
    /// What every SOAP request must carry; nil: nothing.
    public var authentication: SampleAuthentication?
    /// The least severe of the web server's own log messages that are shown.
    public var logLevel: Logger.Level = .warning
    /// Serve supplier N's view (1 to 5) of a world of `hotels` true hotels made from `seed` (``SupplierWorld``)
    /// instead of the seeded catalogue.
    public var supplier: Int?
    /// With `supplier`: where the truth is written before the server listens, as JSON Lines
    /// (``SupplierWorld/truthLines(_:)``): which of the served codes are one hotel.
    public var truthFile: String?

    public init() {}
}

/// HotelKit's sample SOAP service: `QueryHotels` at `POST /soap` in SOAP 1.1
/// and 1.2, its WSDL at `GET /soap?wsdl`, and each hotel's logo at
/// `GET /logos/CODE.png|jpg`, with fault injection for tests and demos.
public enum SampleServer {
    /// A server running in the background, from ``start(_:)`` until ``stop()``.
    public struct Running: Sendable {
        public let port: Int
        let task: Task<Void, Never>

        /// The SOAP endpoint's URL on loopback.
        public var endpoint: String { "http://127.0.0.1:\(port)/soap" }

        /// Stops the server and waits until it has shut down, so that it never races the process's exit.
        public func stop() async {
            task.cancel()
            await task.value
        }
    }

    /// Starts the server in the background, and returns once it listens; a
    /// server that cannot start (its port taken) throws why.
    public static func start(_ options: SampleServiceOptions) async throws -> Running {
        let listening = AsyncStream<Result<Int, any Error>>.makeStream()
        let task = Task {
            do {
                try await run(options) { listening.continuation.yield(.success($0)) }
            } catch {
                listening.continuation.yield(.failure(error))
            }
            listening.continuation.finish()
        }
        guard let port = await listening.stream.first(where: { _ in true }) else {
            task.cancel()
            throw CancellationError()
        }
        return Running(port: try port.get(), task: task)
    }

    /// Runs until cancelled; `onListening` gets the bound port.
    public static func run(_ options: SampleServiceOptions, onListening: @escaping @Sendable (Int) -> Void) async throws {
        try await application(options, onListening: onListening).run()
    }

    /// The service as a web application, to run in a `ServiceGroup` (`hotels serve`); `onListening` gets the bound port.
    public static func application(
        _ options: SampleServiceOptions, onListening: @escaping @Sendable (Int) -> Void
    ) throws -> some ApplicationProtocol {
        let service = try SampleServiceState(options: options)
        let router = Router()
        router.post("soap") { request, _ in try await service.soap(request) }
        router.get("soap") { request, _ in try await service.wsdl(request) }
        router.get("logos/:file") { request, context in try await service.logo(request, file: context.parameters.get("file") ?? "") }
        var logger = Logger(label: "hotels-serve")
        logger.logLevel = options.logLevel
        return Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "hotelkit-sample"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? options.port) },
            logger: logger
        )
    }
}

/// The catalogue, logos, fault injection and request log, shared by handlers.
private final class SampleServiceState: Sendable {
    let options: SampleServiceOptions
    let catalog: SampleCatalog
    let logos: LogoGenerator
    let authenticator: SampleAuthenticator
    private let log: PosixMutex<FileHandle?>
    /// Seeded, so a run with injected failures is the same every time.
    private let random: PosixMutex<SeededGenerator>

    init(options: SampleServiceOptions) throws {
        self.options = options
        if let supplier = options.supplier {
            let world = SupplierWorld(.served(hotels: options.hotels, seed: options.seed), suppliers: [supplier])
            catalog = SampleCatalog(supplier: world.records, seed: options.seed)
            if let path = options.truthFile {
                do {
                    try Data(SupplierWorld.truthLines(world.records, hardCases: world.hardCases).utf8).write(
                        to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    throw AtomicFileError(path: path, operation: "write the truth to", error: error)
                }
            }
        } else {
            catalog = SampleCatalog(seed: options.seed, count: options.hotels)
        }
        logos = LogoGenerator(seed: options.seed)
        authenticator = SampleAuthenticator(options.authentication)
        random = PosixMutex(SeededGenerator(seed: options.seed &+ 0x5EED))
        var handle: FileHandle?
        if let path = options.logFile {
            do {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle?.seekToEnd()
            } catch {
                throw AtomicFileError(path: path, operation: "open the request log", error: error)
            }
        }
        log = PosixMutex(handle)
    }

    func soap(_ request: Request) async throws -> Response {
        var request = request
        try await delay()
        let contentType = request.headers[.contentType] ?? ""
        guard let version = SOAPVersion(contentType: contentType) else {
            return soapReply(
                request,
                SampleMessages.fault(
                    SampleFault(
                        sender: true,
                        reason: "Content-Type must be text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2), not “\(contentType)”"),
                    version: .v1_1), status: .unsupportedMediaType, version: .v1_1)
        }
        if authenticator.refusesHTTP(authorization: request.headers[.authorization]) {
            return streamed(
                request, status: .unauthorized, bytes: Array("Unauthorized\n".utf8),
                headers: [.contentType: "text/plain", .wwwAuthenticate: #"Basic realm="hotelkit-sample""#])
        }
        if chance(options.throttleRate) {
            return streamed(
                request, status: .tooManyRequests, bytes: Array("Too Many Requests\n".utf8),
                headers: [.contentType: "text/plain", .retryAfter: String(options.retryAfter)])
        }
        if chance(options.failRate) {
            if chance(0.5) {
                return streamed(
                    request, status: .internalServerError, bytes: Array("Internal Server Error\n".utf8),
                    headers: [.contentType: "text/plain"])
            }
            let fault = SampleFault(sender: false, reason: "injected failure: the property system is busy", busy: true)
            return soapReply(request, SampleMessages.fault(fault, version: version), status: .internalServerError, version: version)
        }
        let body = try await request.collectBody(upTo: 1 << 20)
        do {
            let query = try QueryHotelsReader.parse(Array(buffer: body), authenticator: authenticator)
            let page = catalog.page(city: query.city, pageSize: query.pageSize, before: query.before)
            let xml = SampleMessages.response(page.hotels, lastAddTime: page.lastAddTime, baseURL: baseURL(request), version: version)
            // Logged with the page it answered: a run's log says which pages were asked for twice.
            let asked = "\(query.city)|\(query.pageSize)|\(query.before.map(String.init) ?? "")"
            return streamed(
                request, status: .ok, bytes: xml, headers: [.contentType: version.mediaType + "; charset=utf-8"],
                page: asked)
        } catch {
            let status: HTTPResponse.Status = version == .v1_2 ? .badRequest : .internalServerError
            return soapReply(request, SampleMessages.fault(error, version: version), status: status, version: version)
        }
    }

    func wsdl(_ request: Request) async throws -> Response {
        guard request.uri.query?.lowercased() == "wsdl" else {
            return record(request, response: Response(status: .notFound))
        }
        let xml = SampleMessages.wsdl(endpoint: baseURL(request) + "/soap", optionalFields: options.supplier != nil)
        return streamed(request, status: .ok, bytes: Array(xml.utf8), headers: [.contentType: "text/xml; charset=utf-8"])
    }

    func logo(_ request: Request, file: String) async throws -> Response {
        // When the request came, for the log: its line is written when it ends, after the latency.
        let arrived = Self.now()
        do {
            // Noticing the client hang up during the latency needs the inbound side watched
            // (which closes the connection after the response); without latency, keep-alive wins.
            if options.latency > 0 || options.jitter > 0 {
                try await request.body.consumeWithCancellationOnInboundClose { _ in try await delay() }
            }
        } catch {
            // The client went away while the latency ran.
            write(path: loggedPath(request), status: 499, bytes: 0, hungUp: true, arrived: arrived)
            throw error
        }
        let code = (file as NSString).deletingPathExtension
        let ext = (file as NSString).pathExtension
        guard let hotel = catalog.hotel(code: code), let logo = hotel.logo, ext == (logo.isPNG ? "png" : "jpg") else {
            return record(request, response: Response(status: .notFound), arrived: arrived)
        }
        let (bytes, etag) = try logos.logo(for: hotel, logo)
        let lastModified = Date(timeIntervalSince1970: TimeInterval(hotel.addtime)).httpDate
        if request.headers[.ifNoneMatch] == etag
            || (request.headers[.ifNoneMatch] == nil && request.headers[.ifModifiedSince] == lastModified)
        {
            return record(
                request, response: Response(status: .notModified, headers: [.eTag: etag, .lastModified: lastModified]), arrived: arrived)
        }
        let headers: HTTPFields = [
            .contentType: logo.isPNG ? "image/png" : "image/jpeg", .eTag: etag,
            .lastModified: lastModified, .cacheControl: "max-age=\(options.logoMaxAge)",
        ]
        return streamed(request, status: .ok, bytes: bytes, headers: headers, arrived: arrived)
    }

    // MARK: Helpers

    private func soapReply(_ request: Request, _ xml: String, status: HTTPResponse.Status, version: SOAPVersion) -> Response {
        soapReply(request, bytes: Array(xml.utf8), status: status, version: version)
    }

    private func soapReply(_ request: Request, bytes: [UInt8], status: HTTPResponse.Status, version: SOAPVersion) -> Response {
        streamed(request, status: status, bytes: bytes, headers: [.contentType: version.mediaType + "; charset=utf-8"])
    }

    /// Sends `bytes` in pieces, so a drop can cut the body (the connection is
    /// reset mid-body) and a client that hangs up is noticed and logged.
    private func streamed(
        _ request: Request, status: HTTPResponse.Status, bytes: [UInt8], headers: HTTPFields, page: String? = nil,
        arrived: Int? = nil
    ) -> Response {
        let drop = status == .ok && chance(options.dropRate)
        let path = loggedPath(request)
        var headers = headers
        headers[.contentLength] = String(bytes.count)
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: bytes.count) { writer in
                let piece = 16 << 10
                var sent = 0
                do {
                    while sent < bytes.count {
                        if drop, sent >= bytes.count / 2 { throw CancellationError() }
                        let end = min(bytes.count, drop ? max(sent + 1, bytes.count / 2) : sent + piece)
                        try await writer.write(ByteBuffer(bytes: bytes[sent..<end]))
                        sent = end
                    }
                    try await writer.finish(nil)
                    self.write(path: path, status: Int(status.code), bytes: sent, hungUp: false, page: page, arrived: arrived)
                } catch {
                    self.write(path: path, status: Int(status.code), bytes: sent, hungUp: !drop, page: page, arrived: arrived)
                    throw error
                }
            })
    }

    /// The path and query of a request, as the log writes it.
    private func loggedPath(_ request: Request) -> String {
        request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
    }

    private func record(_ request: Request, response: Response, arrived: Int? = nil) -> Response {
        let path = loggedPath(request)
        write(path: path, status: Int(response.status.code), bytes: 0, hungUp: false, arrived: arrived)
        return response
    }

    private static func now() -> Int { Int((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// One JSON line, at the request's end (`time`, Unix ms); `page`
    /// (city|pageSize|before) for a page of hotels; `arrived` (Unix ms) for a logo.
    private func write(path: String, status: Int, bytes: Int, hungUp: Bool, page: String? = nil, arrived: Int? = nil) {
        log.withLock { handle in
            guard let handle else { return }
            let time = Self.now()
            let quoted = { (text: String) in
                "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            }
            let line =
                #"{"time": \#(time), "path": \#(quoted(path)), "status": \#(status), "bytes": \#(bytes), "hungUp": \#(hungUp)"#
                + (page.map { #", "page": \#(quoted($0))"# } ?? "") + (arrived.map { #", "arrived": \#($0)"# } ?? "") + "}\n"
            try? handle.write(contentsOf: Data(line.utf8))
        }
    }

    private func delay() async throws {
        guard options.latency > 0 || options.jitter > 0 else { return }
        let extra = options.jitter > 0 ? random.withLock { Int.random(in: 0...options.jitter, using: &$0) } : 0
        try await Task.sleep(for: .milliseconds(options.latency + extra))
    }

    private func chance(_ probability: Double) -> Bool {
        probability > 0 && random.withLock { Double.random(in: 0..<1, using: &$0) } < probability
    }

    private func baseURL(_ request: Request) -> String {
        "http://" + (request.head.authority ?? "\(options.host):\(options.port)")
    }
}

extension Date {
    /// RFC 9110 IMF-fixdate, as Last-Modified wants it.
    var httpDate: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: self)
    }
}

extension SampleMessages {
    static func fault(_ error: any Error, version: SOAPVersion) -> String {
        fault(error as? SampleFault ?? SampleFault(sender: false, reason: "\(error)"), version: version)
    }
}
