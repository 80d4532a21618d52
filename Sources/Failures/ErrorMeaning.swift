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
/// worker decides between retrying a list and giving it up. Each error type
/// says its own meaning, as a ``MeaningfulError``, in the module that declares it.
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

    /// What `error` means: its own ``MeaningfulError/meaning``, or bad data
    /// (65) for an error that does not say.
    public init(_ error: any Error) {
        self = (error as? any MeaningfulError)?.meaning ?? Self(kind: .badData, status: .dataError)
    }

    /// The service refused the credentials (HTTP 401 or 403, a security fault).
    public static let credentials = ErrorMeaning(
        kind: .credentials, status: .permission,
        hint: """
            the service refused the credentials or the session: check the credentials \
            (the profile's {env:…} variables, or --credentials FILE), or start a new session
            """)
}

/// An error that says what it means: whether to retry, what to fix, the exit
/// status. ``ErrorMeaning/init(_:)`` reads it; an error that is not one means bad data (65).
///
/// ```swift
/// struct QuotaExceeded: MeaningfulError {
///     var meaning: ErrorMeaning {
///         ErrorMeaning(kind: .transient, status: .unavailable, hint: "the quota renews at midnight", isRetryable: true)
///     }
/// }
/// ```
public protocol MeaningfulError: Error {
    /// What this error means to whoever runs the work, and to a shell.
    var meaning: ErrorMeaning { get }
}
