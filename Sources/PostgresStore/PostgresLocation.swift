import Foundation
import OfflineStore

/// Where a shared store lives: a `postgres://` URL, read as libpq reads it.
///
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE?sslmode=disable`
/// (`postgresql://` too). What the URL leaves out comes from the
/// environment, as `psql` would take it: `PGUSER`, `PGHOST`, `PGPORT`,
/// `PGDATABASE`; the password from the URL, else `PGPASSWORD`, else the
/// first matching line of `~/.pgpass` (or `PGPASSFILE`), which is ignored
/// when others can read it.
///
/// Query parameters: `sslmode` (`disable`, `prefer`, the default,
/// `require`, `verify-full`), `connect_timeout` (seconds, 10 by default),
/// `password` (as libpq takes it), and HotelKit's own:
/// - `pool_size`, the most connections a process opens (10 by default);
/// - the server's deadlines, set on every connection, in seconds (0 turns
///   one off): `statement_timeout` (60), `lock_timeout` (10) and
///   `idle_in_transaction_session_timeout` (60), so no statement, lock wait
///   or forgotten transaction holds a row for ever;
/// - `call_timeout` (120): the client's own deadline on each call, which
///   gives up its connection. A connection frozen mid-call (a failover
///   that sent no reset) never reaches the server, whose deadlines then
///   cannot help.
///
/// A password is percent-encoded in the URL (`%40` for `@`); a raw `@` in
/// it is refused, as libpq refuses it. ``description`` never holds the
/// password: print it, log it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// Never printed: ``description`` leaves it out.
    public var password: String?
    public var tls: TLSMode
    public var connectTimeout: Int
    public var poolSize: Int
    /// The server's deadlines, in seconds; 0 is none.
    public var statementTimeout: Int
    public var lockTimeout: Int
    public var idleInTransactionTimeout: Int
    /// The client's deadline on one call (a transaction, a read), in seconds.
    public var callTimeout: Int

    /// Reads `url`; a malformed one is a ``/OfflineStore/StoreError`` of kind `invalidLocation`.
    /// - Parameters:
    ///   - url: A `postgres://` URL, read as libpq reads it.
    ///   - environment: Where `PG…` variables are read.
    ///   - passwordFile: `~/.pgpass` unless `PGPASSFILE` says otherwise.
    public init(
        url: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        passwordFile: URL? = nil
    ) throws(StoreError) {
        let shown = Self.withoutPassword(url)
        func invalid(_ reason: String) -> StoreError {
            StoreError(path: shown, reason: reason, kind: .invalidLocation)
        }
        if let schemeEnd = url.range(of: "://"),
            url[schemeEnd.upperBound...].prefix(while: { $0 != "/" && $0 != "?" }).filter({ $0 == "@" }).count > 1
        {
            throw invalid("its password holds a raw @: percent-encode it as %40")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw invalid("not a URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://, not \(scheme)://")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }

        let environmentValue = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? environmentValue("PGHOST") ?? "localhost"
        let portText = components.port.map(String.init) ?? environmentValue("PGPORT") ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else { throw invalid("the port must be 1 to 65535, not \(portText)") }
        self.port = port
        user = components.user.flatMap { $0.isEmpty ? nil : $0 } ?? environmentValue("PGUSER") ?? NSUserName()
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.contains("/") else { throw invalid("the path must be one database name, not \(path)") }
        database = path.isEmpty ? environmentValue("PGDATABASE") ?? user : path

        let mode = query["sslmode"] ?? "prefer"
        guard let tls = TLSMode(rawValue: mode) else {
            throw invalid("sslmode must be disable, prefer, require or verify-full, not \(mode)")
        }
        self.tls = tls
        func number(_ name: String, default value: Int, zeroAllowed: Bool = false) throws(StoreError) -> Int {
            guard let text = query[name] else { return value }
            guard let number = Int(text), number >= (zeroAllowed ? 0 : 1) else {
                throw invalid("\(name) must be a whole number " + (zeroAllowed ? "of seconds, 0 for none" : "above 0") + ", not \(text)")
            }
            return number
        }
        connectTimeout = try number("connect_timeout", default: 10)
        poolSize = try number("pool_size", default: 10)
        statementTimeout = try number("statement_timeout", default: 60, zeroAllowed: true)
        lockTimeout = try number("lock_timeout", default: 10, zeroAllowed: true)
        idleInTransactionTimeout = try number("idle_in_transaction_session_timeout", default: 60, zeroAllowed: true)
        callTimeout = try number("call_timeout", default: 120)

        let file =
            passwordFile ?? environmentValue("PGPASSFILE").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".pgpass")
        password =
            components.password.flatMap { $0.isEmpty ? nil : $0 } ?? query["password"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environmentValue("PGPASSWORD")
            ?? PasswordFile.password(in: file, host: host, port: port, database: database, user: user)
    }

    /// `postgres://USER@HOST:PORT/DATABASE`: no password, ever.
    public var description: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.host = host
        components.port = port
        components.path = "/" + database
        return components.string ?? "postgres://\(host):\(port)"
    }

    /// `url` with any password replaced by `***`, for a message about a URL
    /// that may not even parse: in the user part and in `?password=`. The
    /// user part's password runs from the colon after the user name to the
    /// URL's last `@`, so a raw `@`, `/` or `?` in it hides more, never less.
    public static func withoutPassword(_ url: String) -> String {
        var shown = url
        if let schemeEnd = shown.range(of: "://"), let at = shown[schemeEnd.upperBound...].lastIndex(of: "@"),
            let colon = shown[schemeEnd.upperBound..<at].firstIndex(of: ":"),
            !shown[schemeEnd.upperBound..<colon].contains(where: { "@/?".contains($0) })
        {
            shown = String(shown[...colon]) + "***" + String(shown[at...])
        }
        guard let query = shown.firstIndex(of: "?") else { return shown }
        let parameters = shown[shown.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
        }
        return String(shown[...query]) + parameters.joined(separator: "&")
    }

    /// The server's deadlines as start-up parameters, in milliseconds, sent with every connection;
    /// one set to 0 is not sent, and the server's own setting holds (PgBouncer refuses start-up parameters it was not told to ignore).
    var serverDeadlines: [(String, String)] {
        [
            ("statement_timeout", statementTimeout), ("lock_timeout", lockTimeout),
            ("idle_in_transaction_session_timeout", idleInTransactionTimeout),
        ].filter { $0.1 > 0 }.map { ($0.0, String($0.1 * 1000)) }
    }
}

/// `~/.pgpass`: `host:port:database:user:password` lines, `*` matching
/// anything, `\:` and `\\` escaped, as libpq reads it.
enum PasswordFile {
    static func password(in file: URL, host: String, port: Int, database: String, user: String) -> String? {
        // libpq ignores a file others can read, and says so; so do we, silently.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 == 0,
            let text = try? String(contentsOf: file, encoding: .utf8)
        else { return nil }
        let wanted = [host, String(port), database, user]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = fieldsOf(line)
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    private static func fieldsOf(_ line: Substring) -> [String] {
        var fields: [String] = []
        var field = ""
        var escaped = false
        for character in line {
            if escaped {
                field.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
