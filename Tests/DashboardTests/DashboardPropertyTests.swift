import Dashboard
import Foundation
import HTTPTypes
import Hotels
import Hummingbird
import HummingbirdTesting
import Matching
import OfflineStore
import Runtime
import Testing

/// The catalogue's pages: /properties, /properties/ID, /review with its buttons, /api/properties.
@Suite("hotels dashboard: properties and review")
struct DashboardPropertyTests {
    static let hostile = "<script>alert(1)</script>"

    /// Two suppliers' Paris lists: two hotels both list, a pair of siblings in one building, and a hostile name.
    func runtime() async throws -> HotelRuntime {
        let runtime = try await HotelRuntime.open(.init(store: .inMemory))
        let checkpoint = Pager.Checkpoint(pagesReceived: 1, nextPage: 0, nextCursor: nil, usedCursors: [], end: .endMarker)
        let first = [
            Hotel(
                code: "A1", name: "Hôtel Lutetia \(Self.hostile)", address: "45 Boulevard Raspail", latitude: 48.8512, longitude: 2.3271,
                logoURL: "http://logos.test/a1.png", phone: "+33 1 49 54 46 00", postalCode: "75006"),
            Hotel(
                code: "A2", name: "Ibis Paris Gare du Nord", address: "31 Rue de Saint-Quentin", latitude: 48.8806, longitude: 2.3539,
                phone: "+33 1 42 85 20 00", chainCode: "IB"),
        ]
        let second = [
            Hotel(
                code: "B1", name: "LUTETIA", address: "45 BD RASPAIL 75006 PARIS", latitude: 48.8514, longitude: 2.3268,
                phone: "0149544600", postalCode: "75006"),
            Hotel(
                code: "B2", name: "IBIS STYLES PARIS GARE DU NORD", address: "31 RUE DE SAINT QUENTIN", latitude: 48.88062,
                longitude: 2.35395,
                chainCode: "IB"),
        ]
        _ = try await runtime.storage.mergeFirstPage(
            first, into: ListKey(profile: "one", endpoint: "http://one.test/soap", city: "Paris"),
            checkpoint: checkpoint, now: Date())
        _ = try await runtime.storage.mergeFirstPage(
            second, into: ListKey(profile: "two", endpoint: "http://two.test/soap", city: "Paris"),
            checkpoint: checkpoint, now: Date())
        _ = try await runtime.catalogue.match()
        return runtime
    }

    @Test(
        "the properties page filters by city and suppliers and escapes names; a property's page shows its members side by side with their distance and logo; an unknown id is 404"
    )
    func propertiesPages() async throws {
        let runtime = try await runtime()
        let lutetia = try #require(
            try await runtime.storage.properties(PropertyQuery(minimumSuppliers: 2)).first { $0.members.contains { $0.code == "A1" } })
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/properties?city=paris&suppliers=2", method: .get) { String(buffer: $0.body) }
            #expect(page.contains(lutetia.id) && !page.contains(Self.hostile) && page.contains("&lt;script&gt;"))
            #expect(!page.contains("Ibis Styles") && !page.contains("IBIS STYLES"))
            let lyon = try await client.execute(uri: "/properties?city=Lyon", method: .get) { String(buffer: $0.body) }
            #expect(lyon.contains("No properties") && !lyon.contains(lutetia.id))
            let detail = try await client.execute(uri: "/properties/\(lutetia.id)", method: .get) { String(buffer: $0.body) }
            #expect(
                detail.contains("45 BD RASPAIL 75006 PARIS") && detail.contains("45 Boulevard Raspail") && !detail.contains(Self.hostile))
            #expect(
                detail.contains(#"data-logo="/logo?list="#) && detail.contains(#"&amp;url=http%3A%2F%2Flogos%2Etest%2Fa1%2Epng&amp;sig="#)
                    && detail.contains(" m</td>"))
            try await client.execute(uri: "/properties/PNOSUCHTHING", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/properties?suppliers=many", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    @Test("/api/properties answers every property as hotels properties --json prints it, paged by id")
    func api() async throws {
        let runtime = try await runtime()
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        try await app.test(.router) { client in
            let object = try await client.execute(uri: "/api/properties", method: .get) { response in
                #expect(response.headers[.contentType] == "application/json")
                return try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
            }
            let properties = try #require(object?["properties"] as? [[String: Any]])
            let stored = try await runtime.storage.properties(PropertyQuery())
            #expect(properties.count == stored.count && properties.compactMap { $0["id"] as? String } == stored.map(\.id))
            #expect(Set(properties[0].keys) == ["id", "name", "city", "latitude", "longitude", "confidence", "members"])
            #expect(object?["next"] is NSNull)
        }
    }

    @Test(
        "the review page lists the pairs between the thresholds; its buttons decide with the page's CSRF token only, and the decision holds in the catalogue"
    )
    func review() async throws {
        let runtime = try await runtime()
        let app = try DashboardServer(runtime: runtime, configuration: .init(port: 0)).application()
        let reviews = try await runtime.catalogue.reviews()
        let pair = try #require(reviews.first { [$0.first.code, $0.second.code].sorted() == ["A2", "B2"] })
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/review", method: .get) { String(buffer: $0.body) }
            #expect(
                page.contains("IBIS STYLES PARIS GARE DU NORD") && page.contains("value=\"same\"") && page.contains("value=\"different\""))
            let csrf = try #require(page.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.1).description
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let decision = "first=\(pair.first.reference)&second=\(pair.second.reference)&verdict=same"
            for body in [decision, decision + "&csrf=0123"] {
                try await client.execute(uri: "/review", method: .post, headers: form, body: ByteBuffer(string: body)) {
                    #expect($0.status == .forbidden)
                }
            }
            #expect(try await runtime.storage.decisions().isEmpty)
            try await client.execute(uri: "/review", method: .post, headers: form, body: ByteBuffer(string: decision + "&csrf=\(csrf)")) {
                response in
                #expect(response.status == .seeOther && response.headers[.location]?.hasPrefix("/review?said=") == true)
            }
            #expect(try await runtime.storage.decisions().map(\.verdict) == [.same])
            let joined = try #require(
                try await runtime.storage.properties(PropertyQuery(minimumSuppliers: 2)).first { $0.members.contains { $0.code == "B2" } })
            #expect(Set(joined.members.map(\.code)) == ["A2", "B2"])
            let after = try await client.execute(uri: "/review", method: .get) { String(buffer: $0.body) }
            #expect(!after.contains("IBIS STYLES PARIS GARE DU NORD"))
        }
    }
}
