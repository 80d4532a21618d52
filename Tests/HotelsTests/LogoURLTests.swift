import Hotels
import Testing

/// A logo URL is kept only when it is an absolute http(s) URL with a host,
/// made of the characters RFC 3986 allows; anything else is dropped with a
/// warning. The check is one pass over the bytes, by a table of what each
/// byte is, so each rule it keeps gets a case here.
@Suite("Logo URLs checked in one pass")
struct LogoURLTests {
    static func logoURL(_ url: String) throws -> String? {
        let response = """
            <?xml version="1.0" encoding="UTF-8"?>
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
            <h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">
            <h:Hotel><h:code>H1</h:code><h:name>One</h:name><h:logoURL>\(url)</h:logoURL></h:Hotel>
            </h:QueryHotelsResponse></soap:Body></soap:Envelope>
            """
        let page = try HotelResponseParser(profile: .named("sample")).parse(bytes: Array(response.utf8))
        return try #require(page.hotels.first).logoURL
    }

    @Test(
        "kept",
        arguments: [
            "http://127.0.0.1:8080/logos/H1.png",
            "HTTPS://cdn.example.com/a/b.jpg?size=64&amp;v=2#top",
            "https://user:pass@cdn.example.com/x.png",
            "https://cdn.example.com",
            "https://[::1]:8443/x.png",
            "https://cdn.example.com/a%20b/(1)/~x;y=z,w!$'*+@:",
        ])
    func kept(_ url: String) throws {
        #expect(try Self.logoURL(url) == url.replacingOccurrences(of: "&amp;", with: "&"))
    }

    @Test(
        "dropped",
        arguments: [
            "ftp://cdn.example.com/x.png",
            "https:/cdn.example.com/x.png",
            "https://",
            "https:///x.png",
            "https://user@/x.png",
            "https://:8080/x.png",
            "https://cdn.example.com/a b.png",
            "https://cdn.example.com/a\\\\b.png",
            "https://cdn.exa{mple}.com/x.png",
            "https://cdn.example.com/x.png?q=&lt;1&gt;",
            "https://cdn.example.com/x^.png",
            "https://cdn.example.com/海.png",
            "logos/x.png",
        ])
    func dropped(_ url: String) throws {
        #expect(try Self.logoURL(url) == nil)
    }
}
