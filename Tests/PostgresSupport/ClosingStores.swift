import Hotels
import PostgresStore
import Testing

/// Closes the PostgreSQL databases each test opened through ``open(_:fields:)`` once it ends, passed or failed.
/// Each is a pool on the tests' one server: left open, their idle connections fill its connections (`TestPostgres.maxConnections`).
public struct ClosingStores: SuiteTrait, TestTrait, TestScoping {
    /// The databases the running test opened.
    actor Opened {
        private var databases: [PostgresDatabase] = []

        func add(_ database: PostgresDatabase) { databases.append(database) }

        func closeAll() async {
            for database in databases { await database.close() }
            databases = []
        }
    }

    @TaskLocal static var opened: Opened?

    public init() {}

    /// A database of the tests' server, closed when the running test ends.
    public static func open(_ url: String, fields: HotelFieldTable = .standard) async throws -> PostgresDatabase {
        let database = try await PostgresDatabase.open(try PostgresLocation(url: url), fields: fields)
        await opened?.add(database)
        return database
    }

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void)
        async throws
    {
        guard testCase != nil else { return try await function() }
        let opened = Opened()
        do {
            try await Self.$opened.withValue(opened) { try await function() }
        } catch {
            await opened.closeAll()
            throw error
        }
        await opened.closeAll()
    }
}

extension Trait where Self == ClosingStores {
    /// Closes the PostgreSQL stores each test makes (``ClosingStores``).
    public static var closingStores: Self { ClosingStores() }
}
