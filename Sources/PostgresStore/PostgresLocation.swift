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
/// and HotelKit's `pool_size`, the most connections a process opens (10 by default).
///
/// ``description`` never holds the password: print it, log it.
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

    /// Reads `url`; a malformed one is a ``/OfflineStore/StoreError`` of kind `invalidLocation`.
    /// - Parameters:
    ///   - environment: Where `PG…` variables are read.
    ///   - passwordFile: `~/.pgpass` unless `PGPASSFILE` says otherwise.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                passwordFile: URL? = nil) throws(StoreError) {
        let shown = Self.withoutPassword(url)
        func invalid(_ reason: String) -> StoreError {
            StoreError(path: shown, reason: reason, kind: .invalidLocation)
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
        connectTimeout = try Self.positive(query["connect_timeout"], default: 10, name: "connect_timeout", invalid)
        poolSize = try Self.positive(query["pool_size"], default: 10, name: "pool_size", invalid)

        let file = passwordFile ?? environmentValue("PGPASSFILE").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".pgpass")
        password = components.password.flatMap { $0.isEmpty ? nil : $0 } ?? environmentValue("PGPASSWORD")
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

    /// `url` with any password taken out, for a message about a URL that may not even parse.
    public static func withoutPassword(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url[schemeEnd.upperBound...].firstIndex(of: "@") else { return url }
        let userInfo = url[schemeEnd.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + String(url[at...])
    }

    private static func positive(_ text: String?, default value: Int, name: String, _ invalid: (String) -> StoreError) throws(StoreError) -> Int {
        guard let text else { return value }
        guard let number = Int(text), number > 0 else { throw invalid("\(name) must be a whole number above 0, not \(text)") }
        return number
    }
}

/// `~/.pgpass`: `host:port:database:user:password` lines, `*` matching
/// anything, `\:` and `\\` escaped, as libpq reads it.
enum PasswordFile {
    static func password(in file: URL, host: String, port: Int, database: String, user: String) -> String? {
        // libpq ignores a file others can read, and says so; so do we, silently.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
              let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 == 0,
              let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
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
