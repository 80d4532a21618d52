import Foundation
import Hotels
import Matching
import OfflineStore
import PostgresStore

/// The profile a job runs with. A profile file's contents travel with the
/// job, so a worker on another host needs no copy; a built-in profile is
/// named. Credentials never travel: each worker reads them from its own
/// environment (or credentials file).
public struct JobProfile: Codable, Sendable, Equatable {
    /// The profile's own name (its `name` key): what the list is keyed by.
    public var name: String
    /// The profile file's JSON, or nil for a built-in profile.
    public var json: String?

    /// `nameOrPath` as `hotels fetch --profile` reads it: a built-in name, or a file whose contents are kept.
    public init(nameOrPath: String) throws(ProfileError) {
        let profile = try ServiceProfile.named(nameOrPath)
        name = profile.name
        if ServiceProfile.builtInNames.contains(nameOrPath) {
            json = nil
        } else {
            do {
                json = String(decoding: try Data(contentsOf: URL(fileURLWithPath: nameOrPath)), as: UTF8.self)
            } catch {
                throw ProfileError(
                    kind: .unreadable, source: nameOrPath, key: nil, reason: "cannot read the file (\(error.localizedDescription))")
            }
        }
    }

    /// The profile itself, mapping the built-in fields and any `fields` adds; a stored profile that no longer reads is
    /// a configuration error, never retried.
    public func load(fields: HotelFieldTable = .standard) throws(ProfileError) -> ServiceProfile {
        guard let json else { return try ServiceProfile.named(name, fields: fields) }
        return try ServiceProfile(json: Data(json.utf8), source: "the job's profile \(name)", fields: fields)
    }
}

/// What a `list` job fetches: one list, as `hotels fetch` would.
public struct ListJobArguments: Codable, Sendable, Equatable {
    public var profile: JobProfile
    public var endpoint: String
    public var city: String
    public var keyword: String?
    /// A search by position; absent from jobs queued before areas existed.
    public var area: SearchArea?
    public var pageSize: Int
    /// Queue `logos` jobs for the list's rows once it is fetched.
    public var logos: Bool
    /// The filter chain's spec the logos are processed with ("" for none).
    public var filter: String

    public init(
        profile: JobProfile, endpoint: String, city: String, keyword: String? = nil, area: SearchArea? = nil, pageSize: Int = 50,
        logos: Bool = false, filter: String = ""
    ) {
        self.profile = profile
        self.endpoint = endpoint
        self.city = city
        self.keyword = keyword
        self.area = area
        self.pageSize = pageSize
        self.logos = logos
        self.filter = filter
    }

    /// The list in the store.
    public var key: ListKey { ListKey(profile: profile.name, endpoint: endpoint, city: city, keyword: keyword, area: area) }

    /// These arguments as reports show them: the profile by name alone (a file's contents may hold a password),
    /// the endpoint without `user:password@`.
    var shown: ListJobArguments {
        var shown = self
        shown.profile.json = nil
        shown.endpoint = key.shownEndpoint
        return shown
    }

    /// A list job's deadline unless one is given: an hour.
    public static let defaultTimeout: Double = 3600

    /// The job: at most one live per list; with `every`, the list's schedule too.
    public func job(priority: Int = 0, maxAttempts: Int = 5, every: Double? = nil, timeout: Double? = defaultTimeout) -> NewJob<JobKind> {
        NewJob(
            kind: .list, arguments: Self.encode(self), uniqueKey: Self.uniqueKey(kind: .list, key, suffix: nil),
            priority: priority, maxAttempts: maxAttempts, every: every, timeout: timeout)
    }

    /// `kind|profile|endpoint|city|keyword[␟area][|suffix]`, each part escaped so none can pass for another's.
    static func uniqueKey(kind: JobKind, _ key: ListKey, suffix: String?) -> String {
        uniqueKey([kind.rawValue, key.profile, key.endpoint, key.city, key.storedKeyword] + (suffix.map { [$0] } ?? []))
    }

    /// The parts joined by `|`, each escaped so none can pass for another's.
    static func uniqueKey(_ parts: [String]) -> String {
        parts.map { $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|") }.joined(separator: "|")
    }

    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Plain Codable structs of strings, numbers and booleans always encode.
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

/// What a `logos` job processes: the logos of a list's rows whose positions
/// are after `after` (from the top when nil) and up to `through` (to the end
/// when nil), into the store's logo index. A run of rows is named by
/// position, not by offset: a refresh that adds rows at the top meanwhile
/// shifts no run, so no row is skipped or done twice. (Arguments queued by
/// a HotelKit that named an offset read as the whole list.)
public struct LogosJobArguments: Codable, Sendable, Equatable {
    public var list: ListJobArguments
    public var after: Int64?
    public var through: Int64?

    public init(list: ListJobArguments, after: Int64?, through: Int64?) {
        self.list = list
        self.after = after
        self.through = through
    }

    /// One job a run of rows, between consecutive `bounds` (``/OfflineStore/HotelStorage/runBounds(in:rowsPerRun:)``).
    public static func runs(of list: ListJobArguments, between bounds: [Int64]) -> [LogosJobArguments] {
        zip(bounds, bounds.dropFirst()).map { LogosJobArguments(list: list, after: $0, through: $1) }
    }

    /// A logos job's deadline unless one is given: ten minutes.
    public static let defaultTimeout: Double = 600

    public func job(priority: Int = 0, maxAttempts: Int = 5, timeout: Double? = defaultTimeout) -> NewJob<JobKind> {
        NewJob(
            kind: .logos, arguments: ListJobArguments.encode(self),
            uniqueKey: ListJobArguments.uniqueKey(
                kind: .logos, list.key, suffix: "\(list.filter)|\(after.map(String.init) ?? "top")|\(through.map(String.init) ?? "end")"),
            priority: priority, maxAttempts: maxAttempts, timeout: timeout)
    }
}

/// What a `match` job matches: the lists of one city (a scope, see
/// ``/Matching/MatchSource/scope``), into the store's properties.
public struct MatchJobArguments: Codable, Sendable, Equatable {
    /// The city as a list names it; its scope is what the job matches.
    public var city: String

    public init(city: String) {
        self.city = city
    }

    public var scope: String { MatchSource.scope(ofCity: city, listID: 0) }

    /// A match job's deadline unless one is given: half an hour.
    public static let defaultTimeout: Double = 1800

    /// At most one live per city's scope: "Paris" and "PARIS" queue one job.
    public func job(priority: Int = 0, maxAttempts: Int = 5, timeout: Double? = defaultTimeout) -> NewJob<JobKind> {
        NewJob(
            kind: .match, arguments: ListJobArguments.encode(self), uniqueKey: ListJobArguments.uniqueKey([JobKind.match.rawValue, scope]),
            priority: priority, maxAttempts: maxAttempts, timeout: timeout)
    }
}

/// A job's arguments that do not read: the job is dead, not retried.
public struct JobArgumentsError: Error, Sendable, CustomStringConvertible {
    public var job: Int64
    public var reason: String
    public var description: String { "job \(job): its arguments do not read: \(reason)" }
}

extension ClaimedJob {
    /// The arguments as `type`.
    public func arguments<Arguments: Decodable>(as type: Arguments.Type) throws(JobArgumentsError) -> Arguments {
        do {
            return try JSONDecoder().decode(type, from: Data(arguments.utf8))
        } catch {
            throw JobArgumentsError(job: id, reason: String(describing: error))
        }
    }
}
