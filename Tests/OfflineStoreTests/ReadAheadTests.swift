import Foundation
import HTTP
import Hotels
import OfflineStore
import TestSupport
import Testing

/// The `before` cursors a scripted sample service was asked for, in order.
private final class CursorLog: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var cursors: [String] = []

    /// Records a request; returns how many times this cursor has been asked for.
    func record(_ cursor: String) -> Int {
        lock.withLock {
            cursors.append(cursor)
            return cursors.filter { $0 == cursor }.count
        }
    }

    var all: [String] { lock.withLock { cursors } }
}

/// A sample-service page: five hotels whose addtimes count down from just below `before` (1000 for page 1).
private func samplePage(before: String) -> String {
    let top = Int64(before).map { $0 - 1 } ?? 1000
    let rows = (0..<5).map { top - $0 }.map {
        "<h:Hotel><h:code>H\($0)</h:code><h:name>Hotel \($0)</h:name><h:addtime>\($0)</h:addtime></h:Hotel>"
    }
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>\
        <h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">\(rows.joined())<h:lastAddTime>1</h:lastAddTime></h:QueryHotelsResponse>\
        </soap:Body></soap:Envelope>
        """
}

@Suite("ListSync read-ahead")
struct ReadAheadTests {
    @Test("Read-ahead asks for the next page while one is stored: never past maxPages, and a page that failed is asked for again")
    func readAhead() async throws {
        let log = CursorLog()
        let fault = try String(contentsOf: Samples.url("Fixtures/fault-soap11-client.xml"), encoding: .utf8)
        let server = try ScriptedHTTPServer { request, connection in
            let body = String(decoding: request.body, as: UTF8.self)
            guard let open = body.range(of: "<h:before>"), let close = body.range(of: "</h:before>") else {
                connection.respond(status: 400, reason: "Bad Request", contentType: "text/plain", body: "no cursor")
                return
            }
            let before = String(body[open.upperBound..<close.lowerBound])
            // Page 3 fails the first time it is asked for, with a fault that is not retried.
            if log.record(before) == 1, before == "991" {
                connection.respond(status: 500, reason: "Internal Server Error", contentType: "text/xml", body: fault)
            } else {
                connection.respond(contentType: "text/xml", body: samplePage(before: before))
            }
        }
        let client = HotelClient(profile: try .named("sample"), endpoint: server.url + "/soap")
        let store = try SQLiteHotelStore.inMemory()
        let sync = ListSync(client: client, storage: store, city: "Shanghai", options: .init(pageSize: 5, maxPages: 4, readAhead: true))
        var events = sync.makeAsyncIterator()

        guard case .merged(let first, _) = try await events.next() else {
            Issue.record("page 1 was not merged")
            return
        }
        guard case .appended(let second, added: 5) = try await events.next() else {
            Issue.record("page 2 was not appended")
            return
        }
        #expect(first.number == 1 && second.number == 2)
        // Page 3 was asked for while page 2 was stored; its error comes from this call.
        var failed = false
        do {
            _ = try await events.next()
        } catch {
            failed = true
        }
        #expect(failed, "page 3's fault was not thrown")
        #expect(log.all == ["", "996", "991"])
        guard case .appended(let third, added: 5) = try await events.next() else {
            Issue.record("page 3 was not appended")
            return
        }
        guard case .appended(let fourth, added: 5) = try await events.next() else {
            Issue.record("page 4 was not appended")
            return
        }
        #expect(third.number == 3 && fourth.number == 4)
        guard case .finished(let end) = try await events.next() else {
            Issue.record("the sync did not finish")
            return
        }
        #expect(end.reason == "maxPages" && end.pages == 4 && end.list?.count == 20)
        #expect(try await events.next() == nil)
        // Page 3 twice (it failed once), page 4 once, and nothing past maxPages.
        #expect(log.all == ["", "996", "991", "991", "986"])
        let list = try #require(try await store.cachedList(sync.key))
        #expect(try await store.hotels(in: list).map(\.addtime) == (0..<20).map { 1000 - Int64($0) })
        #expect(list.checkpoint == fourth.checkpoint)
    }
}
