import AtomicFiles
import Foundation
import NIOCore
import NIOPosix
import OfflineStore
import PostgresNIO
import _ConnectionPoolModule

/// Turns what postgres-nio and NIO throw into a ``/OfflineStore/StoreError``
/// with a kind: the server unreachable, the password refused, the database
/// missing. PSQLError's own description is blank on purpose (it may hold
/// data), so the server's message is read from its fields; the password is
/// never in any of them.
enum StoreFailure: Error {
    /// No pooled connection within the connect timeout.
    case noConnection(after: Double)
    /// A call that had its connection got no answer within its deadline; the connection was closed.
    case noAnswer(after: Double)
    /// The call's connection closed, and its query was never answered nor failed: it was written after the close and never sent.
    case closedUnanswered

    static func storeError(_ error: any Error, location: PostgresLocation) -> StoreError {
        storeError(error, location: location.description, server: "\(location.host):\(location.port)")
    }

    static func storeError(_ error: any Error, location: String, server: String? = nil) -> StoreError {
        let server = server ?? location
        switch error {
        case let error as StoreError:
            return error
        case StoreFailure.noConnection(let seconds):
            return StoreError(
                path: location, reason: "no connection to \(server) within \(String(format: "%g", seconds)) s", kind: .unavailable)
        case StoreFailure.closedUnanswered:
            return StoreError(path: location, reason: "the connection to \(server) closed before the call was sent", kind: .unavailable)
        case StoreFailure.noAnswer(let seconds):
            let why = "the connection was closed (raise call_timeout in the URL for longer calls)"
            return StoreError(
                path: location, reason: "no answer from \(server) within \(String(format: "%g", seconds)) s; \(why)", kind: .unavailable)
        case let error as PSQLError:
            return storeError(error, location: location, server: server)
        case let error as NIOSSLError:
            return StoreError(path: location, reason: "TLS with \(server) failed: \(error)", kind: .unavailable)
        case let error as ConnectionPoolError where error == .connectionCreationCircuitBreakerTripped:
            return StoreError(
                path: location, reason: "cannot connect to \(server): every attempt failed for too long, so the pool stopped trying",
                kind: .unavailable)
        case let error as ConnectionPoolError where error == .poolShutdown:
            return StoreError(
                path: location, reason: "the connections to \(server) are closed: the store is shutting down", kind: .unavailable)
        default:
            if isUnreachable(error) {
                return StoreError(path: location, reason: "cannot connect to \(server): \(plainWords(error))", kind: .unavailable)
            }
            return StoreError(path: location, reason: plainWords(error))
        }
    }

    /// What went wrong, as a person says it: the operating system's words
    /// for a failed system call ("connection refused"), never a dump of the
    /// error's Swift type and fields.
    static func plainWords(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return SystemErrorWords.of(errno: error.errnoCode)
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first { return plainWords(failure.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "the host name \(error.host) was not found" }
            return "no address of \(error.host) to connect to"
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: return "the connection is closed"
            case .eof: return "the server closed the connection"
            default: return "the connection failed"
            }
        case let error as PSQLError:
            if let underlying = error.underlying { return plainWords(underlying) }
            switch error.code {
            case .serverClosedConnection: return "the server closed the connection"
            case .uncleanShutdown: return "the connection ended without a proper goodbye"
            case .clientClosedConnection, .poolClosed: return "the connection was closed"
            case .queryCancelled: return "the call was cancelled"
            default: return "the connection failed"
            }
        case let error as CustomStringConvertible:
            return error.description
        default:
            // Without a description of its own, an error would print as its type and fields.
            return "an unexpected \(type(of: error)) error"
        }
    }

    private static func storeError(_ error: PSQLError, location: String, server: String) -> StoreError {
        let state = error.serverInfo?[.sqlState]
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        switch error.code {
        case .server:
            switch state ?? "" {
            case "28P01", "28000":
                return StoreError(path: location, reason: "the server refused the login: \(message)", kind: .authentication)
            case "3D000":
                return StoreError(
                    path: location, reason: "\(message): create it (createdb) or name another in the URL", kind: .configuration)
            case let state where state.hasPrefix("08") || state.hasPrefix("57P"):
                return StoreError(path: location, reason: "the server at \(server) dropped the connection: \(message)", kind: .unavailable)
            default:
                return StoreError(path: location, reason: "\(message) (SQLSTATE \(state ?? "?"))", kind: .server)
            }
        case .authMechanismRequiresPassword:
            return StoreError(path: location, reason: "the server asks for a password and none was given", kind: .authentication)
        case .sslUnsupported:
            return StoreError(
                path: location, reason: "the server at \(server) does not offer TLS, which sslmode requires", kind: .unavailable)
        default:
            if isConnectionLost(error) || error.underlying.map(isUnreachable) == true {
                return StoreError(path: location, reason: "cannot connect to \(server): \(plainWords(error))", kind: .unavailable)
            }
            return StoreError(path: location, reason: plainWords(error))
        }
    }

    /// The call never reached the server, or its transaction was rolled back
    /// there (the connection lost; a deadlock, 40P01, or a serialization
    /// failure, 40001, which PostgreSQL resolves by aborting one side): it may be tried again.
    static func isRetriable(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError: isConnectionLost(error) || ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "")
        case StoreFailure.closedUnanswered: true
        default: false
        }
    }

    /// The connection broke: a transaction on it was rolled back by the server.
    static func isConnectionLost(_ error: PSQLError) -> Bool {
        [.connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection].contains(error.code)
    }

    /// The connection broke, or the server ended it (a connection exception, an operator's intervention: SQLSTATE 08, 57P).
    static func isConnectionGone(_ error: PSQLError) -> Bool {
        let state = error.serverInfo?[.sqlState] ?? ""
        return isConnectionLost(error) || state.hasPrefix("08") || state.hasPrefix("57P")
    }

    private static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case is NIOConnectionError, is ChannelError, is IOError: true
        default: false
        }
    }
}
