import Foundation
import GRDB
import Hotels
import OfflineStore
import PostgresStore
import PostgresTestSupport
import Runtime
import TestSupport
import Testing

/// A field added outside the library, through its public API alone: one
/// table entry (`cityCode`, OpenTravel's `@HotelCityCode`, which the built-in
/// fields have no place for) and the profile that maps it. The parse, the
/// JSON and both stores then carry it with nothing else written.
@Suite("A field added outside the library", .closingStores)
struct AddedFieldTests {
    static let fields: HotelFieldTable = {
        do { return try HotelFieldTable.standard.adding(.added("cityCode", type: .text)) } catch { preconditionFailure("\(error)") }
    }()

    /// OpenTravel search results' fields, `cityCode` among them.
    static let profileJSON = #"""
        {"name": "ota-city", "body": "<Q/>", "record": "Property",
         "fields": {"code": "@HotelCode", "name": "@HotelName", "chainCode": "@ChainCode", "cityCode": "@HotelCityCode",
                    "latitude": "Position/@Latitude", "longitude": "Position/@Longitude", "city": "Address/CityName"}}
        """#

    let key = ListKey(profile: "ota-city", endpoint: "http://127.0.0.1:1/soap", city: "Paris")
    let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: "100", usedCursors: ["100"], end: nil)

    func parsed() throws -> [Hotel] {
        let profile = try ServiceProfile(json: Data(Self.profileJSON.utf8), source: "test", fields: Self.fields)
        return try HotelResponseParser(profile: profile).parse(bytes: Samples.fixture("ota-search.xml")).hotels
    }

    static func hotel(_ code: String, cityCode: String?) -> Hotel {
        var hotel = Hotel(code: code, name: "Hôtel \(code)", addtime: 1)
        hotel[extension: "cityCode"] = cityCode.map(HotelFieldSpec.Value.text) ?? .null
        return hotel
    }

    @Test("a profile maps the added field like any other; the parse keeps it, and the JSON line has its key after the built-in ones")
    func parseAndJSON() throws {
        let hotels = try parsed()
        #expect(hotels.map(\.code) == ["PARRITZ", "PARCRIL", "PARMEUR"])
        #expect(hotels.allSatisfy { $0[extension: "cityCode"] == .text("PAR") && $0.chainCode == "XX" && $0.city == "Paris" })
        let line = HotelJSONLines.line(hotels[0])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Set(Self.fields.jsonKeys) && object["cityCode"] as? String == "PAR")
        #expect(line.hasSuffix(#","cityCode":"PAR"}"# + "\n"))
    }

    @Test("without the entry, a profile that maps the field is refused, naming it; with it, the fields it may map are listed")
    func unknownWithoutTheEntry() throws {
        #expect {
            try ServiceProfile(json: Data(Self.profileJSON.utf8), source: "test")
        } throws: { error in
            (error as? ProfileError)?.key == "fields.cityCode" && "\(error)".contains("unknown field")
        }
        #expect {
            try ServiceProfile(
                json: Data(Self.profileJSON.replacingOccurrences(of: "cityCode", with: "cityKode").utf8), source: "t", fields: Self.fields)
        } throws: { error in
            "\(error)".contains("countryCode, cityCode")
        }
    }

    @Test("an added number that does not read as one is left empty with a warning of its own kind, and the record kept")
    func badNumber() throws {
        let fields = try HotelFieldTable.standard.adding(.added("roomCount", type: .integer))
        let json = #"{"name": "rooms", "body": "<Q/>", "record": "H", "fields": {"code": "@id", "roomCount": "Rooms"}}"#
        let profile = try ServiceProfile(json: Data(json.utf8), source: "test", fields: fields)
        let response =
            #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><R>"#
            + #"<H id="A"><Rooms>120</Rooms></H><H id="B"><Rooms>lots</Rooms></H><H id="C"/></R></soap:Body></soap:Envelope>"#
        let page = try HotelResponseParser(profile: profile, warningsPerKind: nil).parse(bytes: Array(response.utf8))
        #expect(page.hotels.map { $0[extension: "roomCount"] } == [.integer(120), .null, .null])
        #expect(page.warnings.map(\.kind) == ["roomCount"] && page.warnings.first?.code == "B")
        #expect(page.warnings.first?.message == "roomCount “lots” is not an integer; left empty")
    }

    @Test("an entry whose key or column is taken, is no identifier, or is a word SQL reserves, is refused in plain words")
    func refusedEntries() throws {
        for (key, words) in [
            ("code", "already a field"), ("position", "already a field or a column"), ("listId", "already a field or a column"),
            ("CityCode", "must start with a lower-case letter"), ("city code", "only ASCII letters and digits"), ("order", "reserves"),
            (String(repeating: "aB", count: 24), "too long a name for a column"),
        ] {
            #expect {
                try HotelFieldTable.standard.adding(.added(key, type: .text))
            } throws: { error in
                "\(error)".contains(words)
            }
        }
        #expect(throws: HotelFieldTableError.self) { try Self.fields.adding(.added("cityCode", type: .real)) }
        #expect(throws: HotelFieldTableError.self) { try HotelFieldSpec.added("refs2", type: .references) }
    }

    /// A new store with the added field; PostgreSQL's a new database on the tests' own server, with its URL.
    func makeStore(_ backend: Backend, fields: HotelFieldTable = Self.fields) async throws -> (any HotelStorage, url: String?) {
        switch backend {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("added-field-\(UUID().uuidString)")
            return (try SQLiteHotelStore(folder: folder, fields: fields), nil)
        case .postgres:
            let url = try await TestPostgres.shared().makeDatabase()
            return (PostgresHotelStore(database: try await ClosingStores.open(url, fields: fields)), url)
        }
    }

    @Test(
        "both stores keep the added field in a column of its own: a first page, a load-more page (the one-statement path), the general path and a merge that changes it",
        arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        let (store, _) = try await makeStore(backend)
        let parsed = try parsed()
        _ = try await store.mergeFirstPage(Array(parsed.prefix(2)), into: key, checkpoint: checkpoint, now: Date())
        #expect(try await store.appendPage([parsed[2]], to: key, checkpoint: checkpoint, now: Date()) == 1)
        // D is new and PARRITZ is in the list: the general way.
        #expect(try await store.appendPage([Self.hotel("D", cityCode: nil), parsed[0]], to: key, checkpoint: checkpoint, now: Date()) == 1)
        let list = try #require(try await store.cachedList(key))
        #expect(try await store.hotels(in: list, limit: nil) == parsed + [Self.hotel("D", cityCode: nil)])
        var moved = parsed[1]
        moved[extension: "cityCode"] = .text("XPG")
        let result = try await store.mergeFirstPage([parsed[0], moved, parsed[2]], into: key, checkpoint: checkpoint, now: Date())
        #expect(result.updated == 1)
        let rows = try await store.rows(in: list, after: nil, limit: 10, matching: nil)
        #expect(rows.hotels.map { $0[extension: "cityCode"] } == [.text("PAR"), .text("XPG"), .text("PAR"), .null])
        #expect(rows.hotels.allSatisfy { Set(Self.keys($0)) == Set(Self.fields.jsonKeys) })
    }

    static func keys(_ hotel: Hotel) -> [String] {
        let object = try? JSONSerialization.jsonObject(with: Data(HotelJSONLines.line(hotel).utf8)) as? [String: Any]
        return object.map { Array($0.keys) } ?? []
    }

    @Test("the table and both stores' live columns name the same fields, the added one last, in each store's spelling")
    func noDrift() async throws {
        let (sqlite, _) = try await makeStore(.sqlite)
        let sqliteColumns = try await (sqlite as? SQLiteHotelStore)?.writer.read { db in try db.columns(in: "hotels").map(\.name) }
        #expect(sqliteColumns?.last == "cityCode")
        #expect(Set(sqliteColumns ?? []) == Set(["listId", "position"] + Self.fields.fields.map(\.column)))
        let (_, url) = try await makeStore(.postgres)
        let live = try await TestPostgres.shared().psql(
            """
            SELECT string_agg(column_name || ':' || data_type, ',' ORDER BY ordinal_position) FROM information_schema.columns
            WHERE table_name = 'hotels' AND table_schema = current_schema()
            """, database: TestPostgres.database(in: try #require(url))
        ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        #expect(live.last == "city_code:text")
        // The load-more page's function takes the added field's array too: the list's key, lease, checkpoint and count, then 15 arrays.
        let arguments = try await TestPostgres.shared().psql(
            "SELECT string_agg(pronargs::text, ',') FROM pg_proc WHERE proname LIKE 'hotelkit_load_more_%'",
            database: TestPostgres.database(in: try #require(url)))
        #expect(arguments.trimmingCharacters(in: .whitespacesAndNewlines) == "25")
        #expect(
            Set(live)
                == Set(["list_id:bigint", "position:bigint"] + Self.fields.fields.map { "\($0.postgresColumn):\($0.type.postgresType)" }))
    }

    @Test(
        "a store made without the field, opened with it, takes its column in place: every row kept, the field empty until fetched again",
        arguments: Backend.allCases)
    func addedToAnExistingStore(_ backend: Backend) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("added-later-\(UUID().uuidString)")
        let url = backend == .postgres ? try await TestPostgres.shared().makeDatabase() : nil
        func open(_ fields: HotelFieldTable) async throws -> any HotelStorage {
            guard let url else { return try SQLiteHotelStore(folder: folder, fields: fields) }
            return PostgresHotelStore(database: try await ClosingStores.open(url, fields: fields))
        }
        let before = try await open(.standard)
        _ = try await before.mergeFirstPage([Hotel(code: "A", name: "Kept", addtime: 2)], into: key, checkpoint: checkpoint, now: Date())
        if let store = before as? PostgresHotelStore { await store.database.close() }
        let after = try await open(Self.fields)
        let list = try #require(try await after.cachedList(key))
        #expect(list.checkpoint == checkpoint)
        var kept = Hotel(code: "A", name: "Kept", addtime: 2)
        kept[extension: "cityCode"] = .null
        #expect(try await after.hotels(in: list, limit: nil) == [kept])
        #expect(try await after.appendPage([Self.hotel("B", cityCode: "PAR")], to: key, checkpoint: checkpoint, now: Date()) == 1)
        #expect(try await after.hotels(in: list, limit: nil).map { $0[extension: "cityCode"] } == [.null, .text("PAR")])
    }

    @Test(
        "a runtime configured with the table keeps the added field through a list job, as a worker's runs do: the store opened with it, the profile loaded with it",
        arguments: Backend.allCases)
    func throughTheRuntime(_ backend: Backend) async throws {
        let response = try Samples.fixture("ota-search.xml")
        let store: StoreLocation =
            switch backend {
            case .sqlite: .folder(FileManager.default.temporaryDirectory.appendingPathComponent("added-runtime-\(UUID().uuidString)"))
            case .postgres: .shared(try PostgresLocation(url: try await TestPostgres.shared().makeDatabase()))
            }
        let runtime = try await HotelRuntime.open(
            .init(store: store, httpClient: FakeHTTPClient { _, _ in .init(body: response) }, fields: Self.fields))
        let profile = try ServiceProfile(json: Data(Self.profileJSON.utf8), source: "test", fields: runtime.configuration.fields)
        _ = try await runtime.listJob(try runtime.client(profile: profile, endpoint: "http://ota.test/soap"), city: "Paris").run()
        let list = try #require(try await runtime.storage.allLists().first)
        #expect(
            try await runtime.storage.hotels(in: list, limit: nil).map { $0[extension: "cityCode"] }
                == Array(repeating: .text("PAR"), count: 3))
        await runtime.close()
    }
}
