import Failures

/// The service said, inside a normal response, that the request failed (for
/// example OTA `<Errors>` with HTTP 200): the profile's `error` path matched.
public struct ServiceReportedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The profile path that matched, e.g. `//Errors/Error/@ShortText`.
    public var path: String
    /// Further errors in the same response: the first one is the error.
    public var others: Int
    /// The profile's error rule names this error's value as a refusal of the
    /// credentials (``ErrorRule/authentication``).
    public var isAuthentication: Bool

    public init(message: String, path: String, others: Int = 0, isAuthentication: Bool = false) {
        self.message = message
        self.path = path
        self.others = others
        self.isAuthentication = isAuthentication
    }

    public var description: String {
        "the service reported an error: \(message) (\(path))" + (others > 0 ? "; \(others) more \(others == 1 ? "error" : "errors")" : "")
    }
}

extension ServiceReportedError: MeaningfulError {
    /// ``/Failures/ErrorMeaning/credentials`` when it is about authentication, else a refusal (76).
    public var meaning: ErrorMeaning {
        isAuthentication ? .credentials : ErrorMeaning(kind: .refused, status: .protocolError)
    }
}
