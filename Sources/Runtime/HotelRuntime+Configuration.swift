import Foundation
import HTTP
import Hotels
import Logging
import OfflineStore
import SOAP

extension HotelRuntime {
    /// Everything a ``HotelRuntime`` is made of, with the defaults of `hotels fetch`.
    public struct Configuration: Sendable {
        /// The lists and the logo index: SQLite in ``/OfflineStore/SQLiteHotelStore/defaultFolder`` by default.
        public var store: StoreLocation
        /// Where processed logo files are kept on this host (the disk cache, `images/`
        /// beside `hotels.sqlite` by default); nil for none. Opened when logos are first asked for.
        public var logoFolder: URL?
        /// libcurl's settings, for the one transport every client and logo pipeline shares.
        public var transport: TransportConfiguration
        /// How requests travel, instead of a transport made from ``transport``: an in-memory fake in tests.
        public var httpClient: (any HTTPClient)?
        /// The profiles' `{env:NAME}` placeholders: the environment by default.
        public var credentials: Credentials
        /// Caps on every response: depth 128, one text 1 MiB, the document 256 MiB.
        public var limits: XMLReaderLimits
        /// Retries of the network, timeouts and HTTP 5xx: 3, with backoff.
        public var retry: RetryPolicy
        /// Record warnings of each kind logged per list (10); nil logs every one.
        public var warningsPerKind: Int?
        /// Receives every request and response, secrets redacted (``/Hotels/ExchangeFolder``).
        public var exchangeLog: (any ExchangeLog)?
        /// Retries, record warnings, a store moved aside, a logo cache that cannot be used.
        public var logger: Logger
        /// Logo downloads at once, per list.
        public var logoConcurrency: Int
        /// The fields the store keeps and a worker's profiles may map: the built-in ones, and any added
        /// (``/Hotels/HotelFieldTable/adding(_:)``). Profiles loaded elsewhere take the same table.
        public var fields: HotelFieldTable
        /// Cities' last matches kept in memory, so that a city's next match in this process matches again only what
        /// changed: for a process that matches cities again and again (a worker). Nil (the default) keeps none.
        public var matchMemory: MatchMemory?

        public init(
            store: StoreLocation = .folder(SQLiteHotelStore.defaultFolder), logoFolder: URL? = nil,
            transport: TransportConfiguration = TransportConfiguration(), httpClient: (any HTTPClient)? = nil,
            credentials: Credentials = .environment, limits: XMLReaderLimits = XMLReaderLimits(), retry: RetryPolicy = RetryPolicy(),
            warningsPerKind: Int? = 10, exchangeLog: (any ExchangeLog)? = nil, logger: Logger = Logger(label: "hotelkit"),
            logoConcurrency: Int = 6, fields: HotelFieldTable = .standard
        ) {
            self.store = store
            self.logoFolder = logoFolder ?? Self.defaultLogoFolder(for: store)
            self.transport = transport
            self.httpClient = httpClient
            self.credentials = credentials
            self.limits = limits
            self.retry = retry
            self.warningsPerKind = warningsPerKind
            self.exchangeLog = exchangeLog
            self.logger = logger
            self.logoConcurrency = max(1, logoConcurrency)
            self.fields = fields
        }

        /// `images/` beside a folder's `hotels.sqlite`; in ``/OfflineStore/SQLiteHotelStore/defaultFolder`` for a shared store; none in memory.
        public static func defaultLogoFolder(for store: StoreLocation) -> URL? {
            switch store {
            case .folder(let folder): folder.appendingPathComponent("images")
            case .shared: SQLiteHotelStore.defaultFolder.appendingPathComponent("images")
            case .inMemory: nil
            }
        }

        /// The settings every client of this runtime is made with.
        func clientConfiguration(transport: any HTTPClient) -> HotelClientConfiguration {
            HotelClientConfiguration(
                transport: transport, limits: limits, retry: retry, logger: logger, warningsPerKind: warningsPerKind,
                credentials: credentials, exchangeLog: exchangeLog)
        }
    }
}
