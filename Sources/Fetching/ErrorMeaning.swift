import AtomicFiles
import Foundation
import HTTP
import Hotels
import Imaging
import Logos
import Matching
import OfflineStore
import SOAP
import WSDL

/// The process exit statuses of sysexits.h, as `hotels` and the examples use them.
public enum ExitStatus: Int32, Sendable {
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case ioError = 74
    /// Temporary: a job taken over by another worker.
    case tempFailure = 75
    /// A SOAP fault, or an error the service reports.
    case protocolError = 76
    /// Authentication.
    case permission = 77
    case config = 78
}

/// What an error from HotelKit's libraries means to whoever runs a list:
/// whether trying again later may help, what a person should fix, and the
/// process exit status (sysexits) that says it to a shell.
///
/// ```swift
/// let summary = try await job.run()
/// if let failure = summary.failure {
///     let meaning = ErrorMeaning(failure)
///     if meaning.isRetryable { /* try the list again later */ }
///     print(meaning.hint ?? "", "exit", meaning.exitCode)
/// }
/// ```
///
/// `hotels` prints its errors and chooses its exit codes from this, and a
/// worker decides between retrying a list and giving it up.
public struct ErrorMeaning: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The network, a timeout, HTTP 5xx, a fault in which the service
        /// says it failed: the same request may work later.
        case transient
        /// The service cannot be used as it is (its TLS certificate, say), nor the logo.
        case unavailable
        /// The service refused the credentials or the session.
        case credentials
        /// Something to set: the profile, a credential variable, the request it builds.
        case configuration
        /// The service answered, and said no: a fault about the request, an error it reports.
        case refused
        /// The response (or a file) is not what it should be: malformed, not SOAP, over a limit.
        case badData
        /// A name given by the caller does not exist (a built-in profile, say).
        case usage
        /// A file to read is missing or unreadable.
        case noInput
        /// Local storage: the store, or a file to write.
        case storage
    }

    public var kind: Kind
    /// The process exit status that says it to a shell.
    public var status: ExitStatus
    /// ``status`` as a number.
    public var exitCode: Int32 { status.rawValue }
    /// What a person can do about it, when that is known.
    public var hint: String?
    /// Whether running the same list again later may succeed.
    public var isRetryable: Bool

    public init(kind: Kind, status: ExitStatus, hint: String? = nil, isRetryable: Bool = false) {
        self.kind = kind
        self.status = status
        self.hint = hint
        self.isRetryable = isRetryable
    }

    public init(_ error: any Error) {
        switch error {
        case let fault as SOAPFault:
            self = Self.meaning(of: fault)
        case is SessionExpiredDuringSearch:
            self.init(kind: .transient, status: .protocolError, hint: """
                the service ended its session twice during this list; the next run resumes from the last stored page. \
                If it happens every time, its sessions last less than the list takes: a larger --page-size needs fewer calls
                """, isRetryable: true)
        case let reported as ServiceReportedError:
            self = reported.isAuthentication ? .credentials : Self(kind: .refused, status: .protocolError)
        case let error as NotSOAPEnvelopeError:
            let hint = if error.xmlRoot == "Fault" {
                "the service sent a SOAP fault without its Envelope: set \"envelope\": \"auto\" in the profile to read it"
            } else if let root = error.xmlRoot {
                "the service answers plain XML, with <\(root)> as the root: set \"envelope\": \"none\" (or \"auto\") in the profile"
            } else {
                "check the endpoint URL: the response was not a SOAP message"
            }
            self.init(kind: .badData, status: .dataError, hint: hint)
        case let error as XMLReaderError:
            guard case .limitExceeded = error else { self.init(kind: .badData, status: .dataError); return }
            self.init(kind: .badData, status: .dataError, hint: "if the document is trusted, raise the limit with --max-depth, --max-text or --max-input")
        case let error as ProfileError:
            switch error.kind {
            case .unknownName: self.init(kind: .usage, status: .usage)
            case .unreadable: self.init(kind: .noInput, status: .noInput)
            case .invalid: self.init(kind: .configuration, status: .config, hint: "see README.md, “Service profiles”, for the format")
            }
        case ImageError.unreadable, is UnreadableFile:
            self.init(kind: .noInput, status: .noInput)
        case is ImageError:
            self.init(kind: .badData, status: .dataError)
        case let error as TransportError:
            self = Self.meaning(of: error)
        case is MissingCredentialsError, is CredentialsError, is RequestBuildError:
            self.init(kind: .configuration, status: .config)
        case let error as StoreError:
            self = Self.meaning(of: error)
        case is AtomicFileError:
            self.init(kind: .storage, status: .ioError, hint: "check the folder's permissions and free space")
        case is InputReadError:
            self.init(kind: .storage, status: .ioError)
        case let error as ListSyncError:
            self = Self.meaning(of: error)
        case let error as WSDLError:
            self = Self.meaning(of: error)
        case is LogoError:
            self.init(kind: .unavailable, status: .unavailable)
        case let error as CatalogueError:
            self = Self.meaning(of: error)
        default:
            self.init(kind: .badData, status: .dataError)
        }
    }

    /// The service refused the credentials (HTTP 401 or 403, a security fault).
    public static let credentials = ErrorMeaning(kind: .credentials, status: .permission, hint: """
        the service refused the credentials or the session: check the credentials \
        (the profile's {env:…} variables, or --credentials FILE), or start a new session
        """)

    private static func meaning(of fault: SOAPFault) -> ErrorMeaning {
        switch fault.topic {
        case .authentication:
            .credentials
        case .addressing where fault.wantsAddressingHeaders:
            ErrorMeaning(kind: .refused, status: .protocolError, hint: """
                the service wants WS-Addressing headers: add "addressing": {"version": "1.0"} to the profile \
                ("2004/08" for a service of that vintage)
                """)
        case .addressing:
            ErrorMeaning(kind: .refused, status: .protocolError, hint: "the service did not accept the action: check the profile's soapAction")
        case .request:
            ErrorMeaning(kind: .refused, status: .protocolError, hint: "the service rejected the request; check the profile's body and parameters")
        case .service:
            ErrorMeaning(kind: .transient, status: .protocolError, hint: """
                the service could not carry out the request; its reason says why (retry only if it is passing, or tell its operator)
                """, isRetryable: true)
        case .other:
            ErrorMeaning(kind: .refused, status: .protocolError)
        }
    }

    private static func meaning(of error: TransportError) -> ErrorMeaning {
        switch error {
        case _ where error.isOffline:
            ErrorMeaning(kind: .transient, status: .unavailable, hint: "check that the service is running and the endpoint URL is right", isRetryable: true)
        case .tls:
            ErrorMeaning(kind: .unavailable, status: .unavailable, hint: "the certificate could not be verified; --insecure skips the check (unsafe)")
        case .httpStatus(let status, _) where status == 401 || status == 403:
            .credentials
        case .httpStatus(let status, _) where status >= 500:
            ErrorMeaning(kind: .transient, status: .unavailable, isRetryable: true)
        case .retryLater(_, let after, _):
            ErrorMeaning(kind: .transient, status: .unavailable, hint: "the service asked to be called again in \(Int(after.rounded(.up))) s",
                         isRetryable: true)
        case .tooLarge:
            ErrorMeaning(kind: .badData, status: .dataError)
        default:
            ErrorMeaning(kind: .refused, status: .protocolError)
        }
    }

    private static func meaning(of error: StoreError) -> ErrorMeaning {
        switch error.kind {
        case .io:
            ErrorMeaning(kind: .storage, status: .ioError, hint: "check the folder's permissions, or give another with --cache DIR")
        case .unavailable:
            ErrorMeaning(kind: .transient, status: .unavailable, hint: "check that the database server is running and the store URL's host and port are right",
                         isRetryable: true)
        case .authentication:
            ErrorMeaning(kind: .credentials, status: .permission, hint: """
                the database refused the user or password: give the password in the URL, PGPASSWORD or ~/.pgpass
                """)
        case .newerSchema:
            ErrorMeaning(kind: .configuration, status: .config, hint: "use the HotelKit that wrote this database, or another database")
        case .configuration:
            ErrorMeaning(kind: .configuration, status: .config)
        case .server:
            ErrorMeaning(kind: .storage, status: .ioError, hint: "the database refused a statement; hotels store status says whether its schema is this HotelKit's")
        case .invalidLocation:
            ErrorMeaning(kind: .usage, status: .usage, hint: "a store URL reads postgres://USER@HOST:PORT/DATABASE?sslmode=disable")
        case .leaseLost:
            ErrorMeaning(kind: .transient, status: .tempFailure, hint: "another worker holds the job now; this one stopped it")
        }
    }

    private static func meaning(of error: WSDLError) -> ErrorMeaning {
        switch error {
        case .missing: ErrorMeaning(kind: .noInput, status: .noInput, hint: error.hint)
        case .unavailable, .notCached: ErrorMeaning(kind: .unavailable, status: .unavailable, hint: error.hint, isRetryable: true)
        case .unknownOperation: ErrorMeaning(kind: .usage, status: .usage, hint: error.hint)
        default: ErrorMeaning(kind: .badData, status: .dataError, hint: error.hint)
        }
    }

    private static func meaning(of error: ListSyncError) -> ErrorMeaning {
        switch error {
        case .nothingCached(_, let reason):
            ErrorMeaning(kind: .transient, status: .unavailable, hint: "run hotels fetch once with the service reachable; hotels cache stats shows what is cached",
                         isRetryable: reason != nil)
        case .staleRefused(_, let reason):
            ErrorMeaning(kind: .transient, status: .unavailable, hint: "without --require-fresh the cached list is served, with a banner",
                         isRetryable: reason != nil)
        }
    }
}

extension ErrorMeaning {
    private static func meaning(of error: CatalogueError) -> ErrorMeaning {
        switch error.kind {
        case .nothingToMatch:
            ErrorMeaning(kind: .noInput, status: .noInput, hint: "hotels fetch --city CITY --endpoint URL fills the store; hotels cache stats shows what is there")
        case .malformedReference, .sameRecord, .acrossScopes:
            ErrorMeaning(kind: .usage, status: .usage, hint: "name a record as LIST:CODE; hotels match review prints pairs that way")
        case .unknownList, .unknownRecord:
            ErrorMeaning(kind: .noInput, status: .noInput, hint: "hotels cache stats lists the lists; hotels list --city CITY prints a list's codes")
        case .unknownProperty:
            ErrorMeaning(kind: .noInput, status: .noInput, hint: "hotels properties lists the ids; hotels match makes them")
        }
    }
}
