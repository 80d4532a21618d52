import Foundation
import HTTP
import Hotels
import TestSupport
import Testing

@Suite("Request templates")
struct RequestTemplateTests {
    let values = RequestValues(
        parameters: RequestParameters(city: "Paris & <Co>", pageSize: 20, cursor: "T2", cursorAttributes: ["ProviderCode": "1G"]),
        endpoint: "https://h.test/s", action: "urn:a#Q", now: Date(timeIntervalSince1970: 1_700_000_000.5), uuid: "u-1",
        credentials: ["KEY": "k\"1"], session: ["token": "tok"])

    @Test("every placeholder is filled, XML-escaped; dates are UTC; braces that hold no name are text")
    func render() throws {
        let template = try RequestTemplate(
            "{city}|{pageSize}|{cursor}|{cursor.ProviderCode}|{uuid}|{now}|{now.ms}|{today}|{today+30}|{today-1}|{endpoint}|{action}|{env:KEY}|{session.token}|{ \"a\": 1 }|{}"
        )
        #expect(
            template.render(values)
                == "Paris &amp; &lt;Co&gt;|20|T2|1G|u-1|2023-11-14T22:13:20Z|2023-11-14T22:13:20.500Z|2023-11-14|2023-12-14|2023-11-13|https://h.test/s|urn:a#Q|k&quot;1|tok|{ \"a\": 1 }|{}"
        )
        #expect(template.placeholders.count == 14)
        #expect(template.render(RequestValues()).hasPrefix("||||") && !template.render(RequestValues()).hasPrefix("|||||"))
    }

    @Test("a date takes a pattern: Sabre's MM-dd, compact, European, a full dateTime; UTC, whatever the machine's zone and locale")
    func datePatterns() throws {
        let template = try RequestTemplate(
            "{today+30:MM-dd}|{today:yyyyMMdd}|{today-1:dd/MM/yyyy}|{now:yyyy-MM-dd'T'HH:mm:ss.SSSXXX}|{today+2:EEE dd MMM yy}")
        #expect(template.render(values) == "12-14|20231114|13/11/2023|2023-11-14T22:13:20.500Z|Thu 16 Nov 23")
        #expect(
            template.placeholders.map(\.description) == [
                "{today+30:MM-dd}", "{today:yyyyMMdd}", "{today-1:dd/MM/yyyy}",
                "{now:yyyy-MM-dd'T'HH:mm:ss.SSSXXX}", "{today+2:EEE dd MMM yy}",
            ])
        // The last days of December: the calendar year, where the week's year (YYYY) would be the next.
        let newYearsEve = RequestValues(now: Date(timeIntervalSince1970: 1_767_139_200))  // 2025-12-31
        #expect(try RequestTemplate("{today:yyyy-MM-dd}").render(newYearsEve) == "2025-12-31")
        for (text, reason) in [
            ("{today:YYYY-MM-dd}", "the year of the week"), ("{today:yyyy-MM-DD}", "day of the year"),
            ("{now:hh:mm}", "12-hour clock"), ("{today:yyyy-MM-dd'T}", "does not close"),
            ("{today:}", "empty date pattern"), ("{now.ms:HH}", "a pattern goes with"), ("{city:yyyy}", "unknown placeholder"),
            ("{today:yyyy-MM-ddQ}", "the pattern letters are"),
        ] {
            #expect { try RequestTemplate(text) } throws: { "\($0)".contains(reason) }
        }
    }

    @Test("a section is sent only when its placeholder has a value: an element, an attribute, nested; unbalanced ones are refused")
    func sections() throws {
        let template = try RequestTemplate(
            #"<Q City="{city}"{?keyword} Name="{keyword}"{/keyword}/>{?cursor}<Next P="{cursor.ProviderCode}">{cursor}{?more}<M/>{/more}</Next>{/cursor}"#
        )
        #expect(template.render(values) == #"<Q City="Paris &amp; &lt;Co&gt;"/><Next P="1G">T2</Next>"#)
        var later = values
        later.parameters.keyword = "Spa"
        later.parameters.more = true
        #expect(template.render(later) == #"<Q City="Paris &amp; &lt;Co&gt;" Name="Spa"/><Next P="1G">T2<M/></Next>"#)
        #expect(template.render(RequestValues()) == #"<Q City=""/>"#, "page 1: no cursor, no element")
        #expect(
            template.placeholders.map(\.description) == [
                "{city}", "{keyword}", "{keyword}", "{cursor}", "{cursor.ProviderCode}", "{cursor}", "{more}",
            ])
        #expect(template.contains(.more))
        for (text, reason) in [
            ("{?cursor}<a/>", "{?cursor} is not closed by {/cursor}"), ("<a/>{/cursor}", "{/cursor} closes no {?cursor}"),
            ("{?cursor}{?more}{/cursor}{/more}", "{?more} is open"), ("{?nope}x{/nope}", "unknown placeholder {nope}"),
        ] {
            #expect { try RequestTemplate(text) } throws: { "\($0)".contains(reason) }
        }
        #expect(try RequestTemplate("{?}{/}").render(values) == "{?}{/}", "braces that name nothing stay text")
    }

    @Test("a search by position: {latitude}, {longitude} and {radius} in plain decimals, empty without one, and a section around them")
    func area() throws {
        let template = try RequestTemplate(
            #"<Criterion>{?latitude}<Position Latitude="{latitude}" Longitude="{longitude}"/><Radius Distance="{radius}"/>{/latitude}<City>{city}</City></Criterion>"#
        )
        let seattle = try SearchArea(near: " 47.6062 , -122.3321", radius: 8.5)
        #expect(
            template.render(RequestValues(parameters: RequestParameters(city: "Seattle", area: seattle)))
                == #"<Criterion><Position Latitude="47.6062" Longitude="-122.3321"/><Radius Distance="8.5"/><City>Seattle</City></Criterion>"#
        )
        #expect(template.render(RequestValues(parameters: RequestParameters(city: "X"))) == "<Criterion><City>X</City></Criterion>")
        // Never an exponent, at most six places, and no negative zero.
        let tiny = try SearchArea(latitude: 0.00001, longitude: -0.0000001)
        #expect(RequestValues(parameters: RequestParameters(area: tiny))[.latitude] == "0.00001")
        #expect(RequestValues(parameters: RequestParameters(area: tiny))[.longitude] == "0")
        #expect(RequestValues(parameters: RequestParameters(area: tiny))[.radius] == "5")
        #expect(seattle.description == "47.6062,-122.3321~8.5km" && SearchArea(description: seattle.description) == seattle)
        for bad in ["47.6", "north,south", "91,0", "0,181", "1,2,3", ""] {
            #expect(throws: SearchAreaError.self) { try SearchArea(near: bad) }
        }
        #expect(throws: SearchAreaError.self) { try SearchArea(near: "1,2", radius: 0) }
        #expect(throws: SearchAreaError.self) { try SearchArea(near: "1,2", radius: .infinity) }
    }

    @Test("an HTTP header value is not XML-escaped, and a line break in it is refused, not sent")
    func headerValues() throws {
        var profile = try ServiceProfile.named("sample")
        profile.http.headers = [HTTPOptions.Header(name: "X-Key", value: try RequestTemplate("{env:KEY}"))]
        let request = try profile.request(to: "http://h.test/", RequestParameters(city: "X"), credentials: Credentials(["KEY": "a&b"]))
        #expect(request.headers.contains { $0.name == "X-Key" && $0.value == "a&b" })
        for smuggled in ["a\r\nHost: evil", "a\nHost: evil", "a\r"] {
            #expect(throws: RequestBuildError.self) {
                try profile.request(to: "http://h.test/", RequestParameters(city: "X"), credentials: Credentials(["KEY": smuggled]))
            }
        }
    }

    @Test("an echo token's attributes come back with it: parsed, kept by the pager and its checkpoint, rendered")
    func cursorAttributes() throws {
        let profile = try ServiceProfile.named(Samples.url("Profiles/travelport-style.json").path)
        #expect(profile.cursorAttributes == ["ProviderCode"])
        let response = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><r:HotelSearchAvailabilityRsp xmlns:r="urn:r">\
            <c:NextResultReference xmlns:c="urn:c" ProviderCode="1V">NEXT-2</c:NextResultReference>\
            <r:HotelSearchResult><r:HotelProperty HotelCode="A1" Name="A"/></r:HotelSearchResult></r:HotelSearchAvailabilityRsp></soap:Body></soap:Envelope>
            """
        let page = try HotelResponseParser(profile: profile).parse(bytes: Array(response.utf8))
        #expect(page.nextCursor == "NEXT-2" && page.nextCursorAttributes == ["ProviderCode": "1V"])
        var pager = Pager(paging: profile.paging, pageSize: 1)
        pager.received(page)
        let resumed = Pager(
            paging: profile.paging, pageSize: 1,
            resuming: try JSONDecoder().decode(Pager.Checkpoint.self, from: JSONEncoder().encode(pager.checkpoint)))
        let next = try #require(resumed.nextRequest(city: "LON"))
        #expect(next.cursor == "NEXT-2" && next.cursorAttributes == ["ProviderCode": "1V"])
        let body = String(
            decoding: try profile.request(to: "http://h.test/", next, credentials: Credentials(vendorCredentials)).body ?? [],
            as: UTF8.self)
        #expect(body.contains(#"<com:NextResultReference ProviderCode="1V">NEXT-2</com:NextResultReference>"#))
        // A checkpoint stored before attributes existed still resumes.
        let old = #"{"pagesReceived": 1, "nextPage": 0, "nextCursor": "X", "usedCursors": ["X"]}"#
        #expect(try JSONDecoder().decode(Pager.Checkpoint.self, from: Data(old.utf8)).nextCursorAttributes == nil)
    }
}

/// The credentials the style profiles need, as the emulator tests use them.
private let vendorCredentials = ["TRAVELPORT_USER": "u", "TRAVELPORT_PASSWORD": "p", "TRAVELPORT_BRANCH": "B"]
