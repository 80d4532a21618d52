import Foundation
import Hotels
import Hummingbird
import OfflineStore
import Workers

/// The dashboard's HTML: server-rendered, readable without a script, and
/// with every value from a supplier or the store escaped.
enum Page {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func queryEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func html(_ title: String, _ body: String, status: HTTPResponse.Status = .ok) -> Response {
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escaped(title)) · HotelKit</title></head>
            <body><nav><a href="/lists">Lists</a> · <a href="/queue">Queue</a></nav>
            <h1>\(escaped(title))</h1>
            \(body)
            </body></html>
            """
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    static func notFound(_ reason: String) -> Response {
        html("Not found", "<p>\(escaped(reason))</p>", status: .notFound)
    }

    static func login(failed: Bool) -> Response {
        html("Log in", (failed ? "<p role=\"alert\">That token is not the dashboard's.</p>" : "") + """
            <form method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password"></label>
            <button type="submit">Log in</button></form>
            """, status: failed ? .unauthorized : .ok)
    }

    static func lists(_ lists: [ListSummary], search: String, hasQueue: Bool) -> Response {
        let rows = lists.map { list in
            """
            <tr><td><a href="/lists/\(list.id)">\(escaped(list.city))</a>\(list.keyword.map { " · " + escaped($0) } ?? "")</td>\
            <td>\(escaped(list.profile))</td><td>\(escaped(list.endpointHost))</td><td>\(list.rows)</td>\
            <td><time datetime="\(ISO8601DateFormatter().string(from: list.fetchedAt))">\(ISO8601DateFormatter().string(from: list.fetchedAt))</time></td>\
            <td>\(list.complete ? "complete" : "more to load")</td></tr>
            """
        }.joined(separator: "\n")
        return html("Lists", """
            <form method="get" action="/lists"><label>Search <input type="search" name="q" value="\(escaped(search))"></label></form>
            <table><thead><tr><th>City</th><th>Profile</th><th>Endpoint</th><th>Rows</th><th>Last fetched</th><th>State</th></tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            """ + (lists.isEmpty ? "<p>No lists: hotels fetch or hotels enqueue fills the store.</p>" : ""))
    }

    static func list(_ list: ListSummary, rows: ListRows, search: String, next: Int64?) -> Response {
        let body = zip(rows.hotels, rows.positions).map { hotel, position in
            """
            <tr data-position="\(position)"><td>\(hotel.logoURL == nil ? "" : "<img alt=\"\" width=\"32\" height=\"32\" data-logo=\"\(escaped(hotel.code))\">")</td>\
            <td>\(escaped(hotel.name ?? hotel.code))</td><td>\(escaped(hotel.address ?? ""))</td>\
            <td>\(hotel.latitude.map { String($0) } ?? "")\(hotel.longitude.map { ", " + String($0) } ?? "")</td>\
            <td>\(hotel.addtime.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double($0))) } ?? "")</td></tr>
            """
        }.joined(separator: "\n")
        let query = search.isEmpty ? "" : "&q=" + queryEscaped(search)
        return html("\(list.city) · \(list.profile)", """
            <p>\(list.rows) rows from \(escaped(list.endpointHost)), \(list.complete ? "complete" : "more to load").</p>
            <form method="get" action="/lists/\(list.id)"><label>Name <input type="search" name="q" value="\(escaped(search))"></label></form>
            <table><thead><tr><th>Logo</th><th>Name</th><th>Address</th><th>Position</th><th>Added</th></tr></thead>
            <tbody>
            \(body)
            </tbody></table>
            """ + (next.map { "<p><a rel=\"next\" href=\"/lists/\(list.id)?after=\($0)\(query)\">Next page</a></p>" } ?? ""))
    }

    static func queue(_ report: JobsReport) -> Response {
        html("Queue", "<pre>\(escaped(report.text))</pre>")
    }
}

/// JSON bodies of `/api/`: the keys of `hotels jobs --json` and `hotels list`.
enum JSONBody {
    static func response(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return json(try encoder.encode(value))
    }

    /// A page of a list's rows: `{"hotels": [...], "next": URL or null}`, each hotel as a line of `hotels list`.
    static func hotels(_ hotels: [Hotel], next: String?) -> Response {
        var body = Array(#"{"hotels":["#.utf8)
        for (index, hotel) in hotels.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += HotelJSONLines.line(hotel).utf8
        }
        body += #"],"next":"#.utf8
        body += next.map { #"""# + $0 + #"""# }.map { Array($0.utf8) } ?? Array("null".utf8)
        body += "}".utf8
        return json(Data(body))
    }

    private static func json(_ data: Data) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
