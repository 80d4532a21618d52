import Dispatch
import Fetching
import Foundation
import Hotels
import Imaging
import Locking
import Logos
import OfflineStore
import Runtime
import Scheduling

/// What a ``BrowseSession`` browses, and how.
public struct BrowseConfiguration: Sendable {
    /// The store (cached rows show at once, and what is fetched is kept), the logo cache and the transport.
    public var runtime: HotelRuntime
    public var client: HotelClient
    public var city: String
    public var keyword: String?
    /// A search by position; rows then show their distance from it.
    public var area: SearchArea?
    public var pageSize: Int
    /// Applied to each logo before it is painted (a 64×64 fit by default).
    public var filter: FilterChain
    /// Logo downloads at once.
    public var concurrency = 4
    /// Serve the cache alone, without asking the service.
    public var offline = false
    /// nil: detect the terminal's graphics.
    public var graphics: GraphicsMode?
    /// Movement that stops for this long has settled: the visible rows load.
    /// Longer than a held key's repeat interval (about 30 ms) and a wheel's.
    public var settleDelay: Duration = .milliseconds(300)
    /// After a single key press, how long to wait for it to repeat before the
    /// list settles: a held key repeats only after the keyboard's first-repeat
    /// delay (500 to 660 ms on common desktops), and must count as one drag.
    public var keyRepeatDelay: Duration = .milliseconds(700)
    /// How long the view waits, offline, before asking the service again; doubled each time, up to 8 times this.
    public var offlineRetry: Duration = .seconds(10)
    /// Bytes of decoded logos kept in memory.
    public var memoryCacheLimit = 64 << 20
    public var title: String

    public init(
        runtime: HotelRuntime, client: HotelClient, city: String, keyword: String? = nil, area: SearchArea? = nil, pageSize: Int = 50,
        filter: FilterChain = FilterChain([.resize(width: 64, height: 64, mode: .fit)]), title: String? = nil
    ) {
        self.runtime = runtime
        self.client = client
        self.city = city
        self.keyword = keyword
        self.area = area
        self.pageSize = pageSize
        self.filter = filter
        self.title = title ?? "hotels browse: \(city)\(area.map { " near \($0)" } ?? "")"
    }
}

/// How a browse session ended.
public enum BrowseEnd: Sendable, Equatable {
    /// `q`.
    case quit
    /// SIGINT, SIGTERM or SIGHUP.
    case signal(Int32)
}
