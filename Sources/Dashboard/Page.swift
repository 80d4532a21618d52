import Fetching
import Foundation
import Hotels
import Hummingbird
import Matching
import OfflineStore
import PostgresStore
import Workers

/// The dashboard's HTML: server-rendered, readable without a script, and
/// with every value from a supplier or the store escaped.
///
/// Closures that build HTML say `-> String`: GRDB's `SQL` is built by string
/// interpolation too, and without it `[SQL].joined()` was chosen, which
/// printed a description of SQL in place of the lists page's headings.
enum Page {
    static func escaped(_ text: String) -> String { HTMLText.escaped(text) }

    static func queryEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func html(_ title: String, _ body: String, status: HTTPResponse.Status = .ok) -> Response {
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escaped(title)) · HotelKit</title><link rel="icon" href="/static/icon.svg" type="image/svg+xml">
            <link rel="stylesheet" href="/static/dashboard.css"><script src="/static/dashboard.js" defer></script></head>
            <body><nav><a href="/lists">Lists</a> · <a href="/queue">Queue</a> · <a href="/schedules">Schedules</a> · <a href="/properties">Properties</a> · <a href="/review">Review</a></nav>
            <h1>\(escaped(title))</h1>
            \(body)
            </body></html>
            """
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// The queue's and schedules' pages of a dashboard over SQLite: where they are, not a 404.
    static func needsSharedStore(_ title: String, _ what: String) -> Response {
        html(
            title,
            "<p>\(escaped(what)) in a shared PostgreSQL store: start the dashboard with <code>--store postgres://…</code> "
                + "to see them. This one shows a SQLite cache.</p>")
    }

    static func notFound(_ reason: String) -> Response {
        html("Not found", "<p>\(escaped(reason))</p>", status: .notFound)
    }

    static func login(failed: Bool) -> Response {
        html(
            "Log in",
            (failed ? "<p role=\"alert\">That token is not the dashboard's.</p>" : "") + """
                <form method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password"></label>
                <button type="submit">Log in</button></form>
                """, status: failed ? .unauthorized : .ok)
    }

    /// - Parameter logout: the CSRF token of a "Log out" button, shown when the dashboard has a token.
    static func lists(_ lists: [ListSummary], search: String, sort: ListSummary.Column, descending: Bool, logout: String? = nil) -> Response
    {
        let rows = lists.map { (list) -> String in
            """
            <tr><td><a href="/lists/\(list.id)">\(escaped(list.city))</a>\(list.keyword.map { " “" + escaped($0) + "”" } ?? "")\
            \(list.near.map { " near " + escaped($0) } ?? "")</td>\
            <td>\(escaped(list.profile))</td><td>\(escaped(list.endpointHost))</td><td>\(list.rows)</td>\
            <td>\(date(list.fetchedAt))</td><td>\(list.complete ? "complete" : "more to load")</td></tr>
            """
        }.joined(separator: "\n")
        // Each heading sorts by its column; the sorted one's link turns the order round.
        let headings = ListSummary.Column.allCases.map { (column) -> String in
            let order = column == sort && !descending ? "desc" : "asc"
            let mark = column == sort ? (descending ? " ↓" : " ↑") : ""
            let query = "sort=\(column.rawValue)&order=\(order)" + (search.isEmpty ? "" : "&q=" + queryEscaped(search))
            return "<th><a href=\"/lists?\(query)\">\(column.heading)</a>\(mark)</th>"
        }.joined()
        return html(
            "Lists",
            """
            <form method="get" action="/lists"><label>Search <input type="search" name="q" value="\(escaped(search))"></label>\
            <input type="hidden" name="sort" value="\(sort.rawValue)"><input type="hidden" name="order" value="\(descending ? "desc" : "asc")"></form>
            <table><thead><tr>\(headings)</tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            """ + (lists.isEmpty ? "<p>No lists: hotels fetch or hotels enqueue fills the store.</p>" : "")
                + (logout.map {
                    """
                    <form method="post" action="/logout"><input type="hidden" name="csrf" value="\(escaped($0))"><button type="submit">Log out</button></form>
                    """
                } ?? ""))
    }

    /// A list page's columns, in the order ``row(_:position:logo:)`` fills them (the stylesheet's widths follow it).
    static let listHeadings = ["Logo", "Name", "Address", "City", "Phone", "Chain", "Rating", "Position", "Added"]

    /// One hotel's row: the one renderer of a list's rows, for the page and for the rows the script loads
    /// later (``moreRows(_:more:logo:)``). Every value is the supplier's, so every value is escaped.
    /// - Parameter logo: the `/logo` link of a logo URL (``DashboardLogos/link(_:list:)``).
    static func row(_ hotel: Hotel, position: Int64, logo link: (String) -> String) -> String {
        let logo = hotel.logoURL.map { "<img alt=\"\" width=\"32\" height=\"32\" data-logo=\"\(escaped(link($0)))\">" } ?? ""
        let place = (hotel.latitude.map { String($0) } ?? "") + (hotel.longitude.map { ", " + String($0) } ?? "")
        let cells = [
            logo, escaped(hotel.name ?? hotel.code), escaped(hotel.address ?? ""), escaped(hotel.city ?? ""), escaped(hotel.phone ?? ""),
            escaped(hotel.chainCode ?? ""), hotel.rating.map(ratingText) ?? "", place,
            hotel.addtime.map { day(Date(timeIntervalSince1970: Double($0))) } ?? "",
        ]
        return "<tr data-position=\"\(position)\">" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
    }

    /// A rating as few digits as say it: `4`, `4.5`; `%g` never traps, whatever a store holds.
    static func ratingText(_ rating: Double) -> String {
        escaped(String(format: "%g", rating))
    }

    static func rows(_ rows: ListRows, logo: (String) -> String) -> String {
        zip(rows.hotels, rows.positions).map { row($0, position: $1, logo: logo) }.joined(separator: "\n")
    }

    /// A list's page: its first rows, a link to the next page for a browser without the script, and, in the
    /// table's `data-more`, the URL of ``moreRows(_:more:logo:)``, which the script asks for past 90%.
    static func list(_ list: ListSummary, rows: ListRows, search: String, next: Int64?, more: String?, logo: (String) -> String) -> Response
    {
        let query = search.isEmpty ? "" : "&q=" + queryEscaped(search)
        let headings = listHeadings.map { "<th>\($0)</th>" }.joined()
        return html(
            "\(list.city) · \(list.profile)",
            """
            <p>\(list.rows) rows from \(escaped(list.endpointHost)), \(list.complete ? "complete" : "more to load").</p>
            <form method="get" action="/lists/\(list.id)"><label>Name <input type="search" name="q" value="\(escaped(search))"></label></form>
            <table id="hotels" data-list="\(list.id)"\(more.map { " data-more=\"\(escaped($0))\"" } ?? "")><thead><tr>\(headings)</tr></thead>
            <tbody>
            \(Self.rows(rows, logo: logo))
            </tbody></table>
            """ + (next.map { "<p><a rel=\"next\" href=\"/lists/\(list.id)?after=\($0)\(query)\">Next page</a></p>" } ?? ""))
    }

    /// `/lists/ID/rows`: the rows after a position, as ``row(_:position:logo:)`` renders them, in a `<tbody>` whose
    /// `data-more` is the URL of the rows after these (absent at the end). The script parses it in a
    /// `<template>` and moves its rows into the page: no row is built in the script.
    static func moreRows(_ rows: ListRows, more: String?, logo: (String) -> String) -> Response {
        let fragment = "<tbody\(more.map { " data-more=\"\(escaped($0))\"" } ?? "")>\n\(Self.rows(rows, logo: logo))\n</tbody>\n"
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: fragment)))
    }

    /// The queue, refreshed every 2 s by the script (which asks for `part=main`, the `<main>` alone), with a
    /// form per button: each a POST carrying `csrf`.
    static func queue(_ report: JobsReport, csrf: String, said: String?, partOnly: Bool) -> Response {
        func button(_ label: String, _ action: String, _ fields: [String: String] = [:]) -> String {
            let hidden = fields.sorted { $0.key < $1.key }.map {
                "<input type=\"hidden\" name=\"\($0.key)\" value=\"\(escaped($0.value))\">"
            }.joined()
            return """
                <form method="post" action="/queue" class="inline"><input type="hidden" name="csrf" value="\(csrf)">\
                <input type="hidden" name="action" value="\(action)">\(hidden)<button type="submit">\(label)</button></form>
                """
        }
        let states = JobState.allCases.map(\.rawValue)
        let kinds = report.byKind.keys.sorted().map { (kind) -> String in
            let paused = report.paused.contains(kind)
            return "<tr data-kind=\"\(escaped(kind))\"><th>\(escaped(kind))\(paused ? " (paused)" : "")</th>"
                + states.map { "<td data-state=\"\($0)\">\(report.byKind[kind]?[$0] ?? 0)</td>" }.joined()
                + "<td>\(paused ? button("Resume", "resume", ["kind": kind]) : button("Pause", "pause", ["kind": kind]))</td></tr>"
        }.joined(separator: "\n")
        let workers = report.workers.map { (worker) -> String in
            "<tr\(worker.gone ? " class=\"gone\"" : "")><td>\(escaped(worker.host))</td><td>\(escaped(String(worker.id.prefix(8))))</td>"
                + "<td>\(date(worker.startedAt))</td><td>\(date(worker.lastHeartbeat))</td><td>\(worker.running)</td>"
                + "<td>\(worker.gone ? "gone" : "alive")</td></tr>"
        }.joined(separator: "\n")
        let stale = report.staleLists.map { (list) -> String in
            "<tr><td>\(escaped(list.list))</td><td>\(date(list.since))</td><td>\(escaped(list.lastError ?? ""))</td></tr>"
        }.joined(separator: "\n")
        let dead = report.dead.map { (job) -> String in
            "<tr data-job=\"\(job.id)\"><td>\(job.id)</td><td>\(escaped(job.kind))</td><td>\(escaped(job.list ?? ""))</td><td>\(job.attempts)</td><td>\(escaped(job.lastError))</td>"
                + "<td>\(button("Retry", "retry", ["id": String(job.id)])) \(button("Cancel", "cancel", ["id": String(job.id)]))</td></tr>"
        }.joined(separator: "\n")
        let main = """
            <main id="queue" data-refresh="/queue?part=main">
            \(said.map { "<p role=\"status\">\(escaped($0))</p>" } ?? "")
            <p>\(report.completedLastMinute) completed in the last minute; the oldest waiting job has waited \
            \(report.oldestAvailableSeconds.map { "\(Int($0)) s" } ?? "nothing").</p>
            <table id="counts"><thead><tr><th>Kind</th>\(states.map { "<th>\($0)</th>" }.joined())<th></th></tr></thead><tbody>
            \(kinds)
            </tbody></table>
            <h2>Workers</h2>
            <table><thead><tr><th>Host</th><th>Id</th><th>Started</th><th>Last heartbeat</th><th>Running</th><th>State</th></tr></thead><tbody>
            \(workers)
            </tbody></table>
            <h2>Stale lists: \(report.stale)</h2>
            <table><thead><tr><th>List</th><th>Stale since</th><th>Last error</th></tr></thead><tbody>
            \(stale)
            </tbody></table>
            <h2>Dead jobs</h2>
            \(report.dead.isEmpty ? "" : button("Retry every dead job", "retry-dead"))
            <table><thead><tr><th>Job</th><th>Kind</th><th>List</th><th>Attempts</th><th>Last error</th><th></th></tr></thead><tbody>
            \(dead)
            </tbody></table>
            </main>
            """
        guard !partOnly else {
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: main)))
        }
        return html("Queue", main)
    }

    /// Every schedule, stale ones first.
    static func schedules(_ schedules: [ScheduleReport]) -> Response {
        let rows = schedules.map { (schedule) -> String in
            "<tr\(schedule.stale ? " class=\"stale\"" : "")><td>\(schedule.id)</td>"
                + "<td>\(escaped([schedule.city, schedule.keyword.map { "“\($0)”" }, schedule.near.map { "near \($0)" }].compactMap { $0 }.joined(separator: " ")))</td>"
                + "<td>\(escaped(schedule.profile ?? schedule.kind))</td><td>\(escaped(DurationText.of(seconds: schedule.every)))</td>"
                + "<td>\(date(schedule.next))</td><td>\(schedule.lastSuccess.map(date) ?? "never")</td>"
                + "<td>\(escaped(schedule.lastError ?? ""))</td><td>\(schedule.stale ? "stale" : "fresh")</td></tr>"
        }.joined(separator: "\n")
        return html(
            "Schedules",
            """
            <table><thead><tr><th>Id</th><th>List</th><th>Profile</th><th>Every</th><th>Next run</th><th>Last success</th>\
            <th>Last error</th><th>State</th></tr></thead><tbody>
            \(rows)
            </tbody></table>
            """ + (schedules.isEmpty ? "<p>No schedules: hotels enqueue --every 6h makes one.</p>" : ""))
    }

    static func date(_ date: Date) -> String {
        let text = date.formatted(.iso8601)
        return "<time datetime=\"\(text)\">\(text)</time>"
    }

    /// The day alone (`2026-11-20`), as `hotels browse` shows a hotel's; the time is in `datetime`.
    static func day(_ date: Date) -> String {
        "<time datetime=\"\(date.formatted(.iso8601))\">\(date.formatted(.iso8601.year().month().day()))</time>"
    }
}

/// JSON bodies of `/api/`: the keys of `hotels jobs --json` and `hotels list`.
enum JSONBody {
    static func response(_ value: some Encodable) throws -> Response {
        json(try JSONLine.data(value))
    }

    /// A page of a list's rows: `{"hotels": [...], "next": URL or null}`, each hotel as a line of `hotels list`.
    static func hotels(_ hotels: [Hotel], next: String?) -> Response {
        lines("hotels", hotels.map(HotelJSONLines.line), next: next)
    }

    /// A page of properties: `{"properties": [...], "next": URL or null}`, each as a line of `hotels properties --json`.
    static func properties(_ properties: [CatalogueProperty], next: String?) -> Response {
        lines("properties", properties.map(\.jsonLine), next: next)
    }

    /// JSON lines as an array under `key`, with the URL of the next page.
    private static func lines(_ key: String, _ lines: [String], next: String?) -> Response {
        var body = Array("{\"\(key)\":[".utf8)
        for (index, line) in lines.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += line.utf8
        }
        body += #"],"next":"#.utf8
        var nextValue: [UInt8] = []
        HotelJSONLines.appendString(next, to: &nextValue)
        body += nextValue
        body += "}".utf8
        return json(Data(body))
    }

    private static func json(_ data: Data) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Text fit for HTML: what every page of HotelKit's writes around supplier data.
public enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes.
    public static func escaped(_ text: String) -> String {
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
}
