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
