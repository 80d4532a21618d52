import Foundation
import Hotels
import Hummingbird
import Matching
import Runtime

/// The catalogue's pages: properties, one property's members side by side,
/// the pairs to review with their buttons, and `/api/properties`.
extension DashboardServer {
    /// How many properties a page or an API answer holds.
    static let propertiesPerPage = 200

    func propertyRoutes(_ router: Router<DashboardContext>) {
        router.get("properties") { request, _ in try await propertiesPage(request) }
        router.get("properties/:id") { _, context in try await propertyPage(id: context.parameters.get("id") ?? "") }
        router.get("review") { request, _ in try await reviewPage(request) }
        router.post("review") { request, _ in try await reviewDecision(request) }
        router.get("api/properties") { request, _ in
            let (properties, next) = try await propertiesQuery(request)
            return JSONBody.properties(properties, next: next.map { "/api/properties?" + $0 })
        }
    }

    /// `city`, `suppliers` (at least this many) and `after` (an id), as the page and the API take them.
    private func propertiesQuery(_ request: Request) async throws -> (properties: [CatalogueProperty], next: String?) {
        let city = request.uri.queryParameters.get("city").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
        let suppliers = try Self.query(request, "suppliers", as: Int.self, "a whole number of suppliers") ?? 1
        let after = request.uri.queryParameters.get("after").map { String($0) }
        let query = PropertyQuery(city: city, minimumSuppliers: max(1, suppliers), limit: Self.propertiesPerPage, after: after)
        let properties = try await runtime.storage.properties(query)
        guard properties.count == Self.propertiesPerPage, let last = properties.last else { return (properties, nil) }
        let next =
            "suppliers=\(query.minimumSuppliers)&after=\(Page.queryEscaped(last.id))"
            + (city.map { "&city=" + Page.queryEscaped($0) } ?? "")
        return (properties, next)
    }

    private func propertiesPage(_ request: Request) async throws -> Response {
        let (properties, next) = try await propertiesQuery(request)
        let city = request.uri.queryParameters.get("city").map { String($0) } ?? ""
        let suppliers = request.uri.queryParameters.get("suppliers").map { String($0) } ?? "1"
        return Page.properties(properties, city: city, suppliers: suppliers, next: next.map { "/properties?" + $0 })
    }

    /// One property: its members side by side, each with its list's current row and its distance from the centre.
    private func propertyPage(id: String) async throws -> Response {
        let property: CatalogueProperty
        do {
            property = try await runtime.catalogue.property(id: id)
        } catch let error as CatalogueError where error.kind == .unknownProperty {
            return Page.notFound(error.message)
        }
        // A retired id shows its successor under the successor's own address.
        if property.id != id { return Response(status: .seeOther, headers: [.location: "/properties/" + Page.queryEscaped(property.id)]) }
        var hotels: [Hotel?] = []
        for member in property.members { hotels.append(try await runtime.storage.hotel(inList: member.list, code: member.code)) }
        return Page.property(property, hotels: hotels, logo: logos.link)
    }

    private func reviewPage(_ request: Request) async throws -> Response {
        let city = request.uri.queryParameters.get("city").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
        let said = request.uri.queryParameters.get("said").map { String($0) }
        return Page.review(try await runtime.catalogue.reviews(city: city), csrf: csrf, said: said)
    }

    /// A review button: `hotels match decide`, then back to the review page saying what happened.
    private func reviewDecision(_ request: Request) async throws -> Response {
        let form = try await Form(request)
        guard AccessGuard.constantTimeEqual(form["csrf"] ?? "", csrf) else {
            return Page.html(
                "Refused", "<p>The form is out of date or from another site: reload the review page and try again.</p>", status: .forbidden)
        }
        guard let verdict = form["verdict"].flatMap(PairDecision.Verdict.init(rawValue:)),
            let first = try? RecordReference(parsing: form["first"] ?? ""), let second = try? RecordReference(parsing: form["second"] ?? "")
        else {
            return Page.html("Refused", "<p>A decision names two records and says same or different.</p>", status: .badRequest)
        }
        let said: String
        do {
            let (a, b) = try await runtime.catalogue.decide(first, second, verdict)
            said =
                "\(first) and \(second): \(verdict.rawValue)"
                + (a?.id == b?.id ? ", both in \(a?.id ?? "")" : ", in \(a?.id ?? "–") and \(b?.id ?? "–")")
        } catch let error as CatalogueError {
            said = error.message
        }
        return Response(status: .seeOther, headers: [.location: "/review?said=" + Page.queryEscaped(said)])
    }
}

extension Page {
    static func properties(_ properties: [CatalogueProperty], city: String, suppliers: String, next: String?) -> Response {
        let rows = properties.map { (property) -> String in
            """
            <tr><td><a href="/properties/\(escaped(queryEscaped(property.id)))">\(escaped(property.id))</a></td>\
            <td>\(escaped(property.name ?? ""))</td><td>\(escaped(property.city ?? ""))</td>\
            <td>\(property.supplierCount)</td><td>\(property.members.count)</td><td>\(property.confidence.rawValue)</td></tr>
            """
        }.joined(separator: "\n")
        return html(
            "Properties",
            """
            <form method="get" action="/properties"><label>City <input type="search" name="city" value="\(escaped(city))"></label>
            <label>Suppliers at least <input type="number" name="suppliers" min="1" value="\(escaped(suppliers))"></label>
            <button type="submit">Filter</button></form>
            <p><a href="/review">Pairs to review</a></p>
            <table><thead><tr><th>Id</th><th>Name</th><th>City</th><th>Suppliers</th><th>Records</th><th>Confidence</th></tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            """ + (properties.isEmpty ? "<p>No properties: <code>hotels match</code> makes them from the lists.</p>" : "")
                + (next.map { "<p><a rel=\"next\" href=\"\(escaped($0))\">Next page</a></p>" } ?? ""))
    }

    /// The members side by side: the supplier, the code, the name, the address, the distance from the centre, the logo.
    /// - Parameter logo: the `/logo` link of a member's logo URL in its list (``DashboardLogos/link(_:list:)``).
    static func property(_ property: CatalogueProperty, hotels: [Hotel?], logo link: (String, Int64) -> String) -> Response {
        let centre = property.latitude.flatMap { latitude in property.longitude.map { GeoPoint(latitude: latitude, longitude: $0) } }
        let rows = zip(property.members, hotels).map { (member, hotel) -> String in
            let logo =
                hotel?.logoURL.map { "<img alt=\"\" width=\"48\" height=\"48\" data-logo=\"\(escaped(link($0, member.list)))\">" } ?? ""
            var distance = ""
            if let centre, let latitude = hotel?.latitude, let longitude = hotel?.longitude {
                let point = GeoPoint(latitude: latitude, longitude: longitude)
                if point.isValid { distance = String(format: "%.0f m", point.distance(to: centre)) }
            }
            let cells = [
                logo, escaped(member.profile), "<a href=\"/lists/\(member.list)\">\(member.list)</a>:" + escaped(member.code),
                escaped(hotel?.name ?? member.name ?? ""), escaped(hotel?.address ?? ""), escaped(hotel?.phone ?? ""), distance,
            ]
            return "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        let place = centre.map { " at \($0)" } ?? ""
        return html(
            property.name ?? property.id,
            """
            <p>\(escaped(property.id)): \(property.members.count) records from \(property.supplierCount) suppliers in \
            \(escaped(property.city ?? property.scope))\(place); confidence \(property.confidence.rawValue).</p>
            <table id="hotels"><thead><tr><th>Logo</th><th>Supplier</th><th>List:code</th><th>Name</th><th>Address</th><th>Phone</th>\
            <th>From the centre</th></tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            """)
    }

    /// The pairs to decide, best first, each with its signals and a form per verdict (a POST carrying `csrf`).
    static func review(_ pairs: [ReviewPair], csrf: String, said: String?) -> Response {
        func button(_ pair: ReviewPair, _ verdict: PairDecision.Verdict) -> String {
            """
            <form method="post" action="/review"><input type="hidden" name="csrf" value="\(escaped(csrf))">\
            <input type="hidden" name="first" value="\(escaped(pair.first.reference))">\
            <input type="hidden" name="second" value="\(escaped(pair.second.reference))">\
            <input type="hidden" name="verdict" value="\(verdict.rawValue)"><button type="submit">\(verdict.rawValue.capitalized)</button></form>
            """
        }
        let items = pairs.map { (pair) -> String in
            let signals = pair.explanation.signals.map { signal in
                "<tr><td>\(signal.signal.rawValue)</td><td>\(escaped(signal.first ?? "–"))</td><td>\(escaped(signal.second ?? "–"))</td>"
                    + "<td>\(signal.level.rawValue)</td><td>\(String(format: "%+.2f", signal.weight))</td></tr>"
            }.joined()
            return """
                <section><h2>\(escaped(pair.first.name ?? pair.first.code)) ~ \(escaped(pair.second.name ?? pair.second.code)) \
                (\(String(format: "%.1f", pair.score)) bits)</h2>
                <p>\(escaped(pair.first.profile)) \(escaped(pair.first.reference)) · \(escaped(pair.second.profile)) \(escaped(pair.second.reference))</p>
                <table><thead><tr><th>Signal</th><th>First</th><th>Second</th><th>Level</th><th>Weight</th></tr></thead><tbody>\(signals)</tbody></table>
                \(button(pair, .same))\(button(pair, .different))</section>
                """
        }.joined(separator: "\n")
        return html(
            "Pairs to review",
            (said.map { "<p role=\"status\">\(escaped($0))</p>" } ?? "")
                + (pairs.isEmpty ? "<p>No pairs to review.</p>" : items))
    }
}
