import Foundation
import Hotels
import Imaging
import Locking
import OfflineStore

/// Where a ``ListJob`` puts a list's rows and logos, as they come.
///
/// The store always has the list; a sink is where it goes besides:
/// ``FolderSink`` writes `hotels.jsonl` and `logos/`, ``StoreOnlySink``
/// nothing (a worker that only fills the shared store). A sink is used by one job run.
public protocol ListSink: Sendable {
    /// Before anything else: make the folder, tidy what a killed run left.
    func open() async throws

    /// The cached list, before the network is asked: show it whole, at once.
    func showCached(_ list: CachedList, from storage: any ListStorage) async throws

    /// A page that was just stored, with what storing it did.
    func pageStored(_ page: FetchedPage, _ change: PageChange) async throws

    /// A row's logo, as the logo pipeline keeps it.
    func saveLogo(_ logo: LogoFile) async throws

    /// The list as it stands when the job ends (after a failed page, as the
    /// store has it): what the sink holds must now be this list, whole.
    func finish(_ list: CachedList, from storage: any ListStorage) async throws

    /// Where the list goes, fit to print (a folder's path); nil when it stays in the store.
    var location: String? { get }
}

extension ListSink {
    public var location: String? { nil }
}

/// What storing a page did to the list.
public enum PageChange: Sendable, Equatable {
    /// Page 1, merged into the cached list.
    case merged(MergeResult)
    /// A "load more" page; `added` of its rows were new to the list.
    case appended(added: Int)
}

/// A row's logo, ready to be written.
public struct LogoFile: Sendable, Equatable {
    public enum Format: String, Sendable {
        case png, jpeg

        /// The file extension: `png` or `jpg`.
        public var fileExtension: String { self == .png ? "png" : "jpg" }

        /// A filtered logo is always a PNG; an unfiltered one is what its bytes say.
        public init(of bytes: [UInt8], filtered: Bool) {
            self = !filtered && (try? ImageFormat.detect(bytes)) == .jpeg ? .jpeg : .png
        }
    }

    /// The hotel's code, as the service sent it.
    public var code: String
    public var bytes: [UInt8]
    /// A filtered logo is a PNG; an unfiltered one keeps its own format.
    public var format: Format

    public init(code: String, bytes: [UInt8], format: Format) {
        self.code = code
        self.bytes = bytes
        self.format = format
    }

    /// `CODE.png` (or `.jpg`): a code that is not a plain file name gets its
    /// plain characters and a hash (``SafeFileName``), so a service can never
    /// name a file outside the folder.
    public var fileName: String {
        SafeFileName.base(for: code) + "." + format.fileExtension
    }
}

/// The store alone: nothing is written anywhere else. For workers that keep
/// a shared store up to date, and for scripts that read the store after.
public struct StoreOnlySink: ListSink {
    public init() {}

    public func open() async throws {}
    public func showCached(_ list: CachedList, from storage: any ListStorage) async throws {}
    public func pageStored(_ page: FetchedPage, _ change: PageChange) async throws {}
    public func saveLogo(_ logo: LogoFile) async throws {}
    public func finish(_ list: CachedList, from storage: any ListStorage) async throws {}
}
