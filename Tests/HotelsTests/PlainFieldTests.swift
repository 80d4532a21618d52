import Testing

@testable import Hotels

/// A record's plain fields (a child holding one field's text) are read by the
/// reader itself; one that turns out to hold elements, or carries attributes,
/// is the extractor's again. Either way the record is the same.
@Suite("Plain fields")
struct PlainFieldTests {
    func parse(_ records: String, byteByByte: Bool) throws -> [Hotel] {
        let response =
            #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>"#
            + #"<h:QueryHotelsResponse xmlns:h="urn:hotelkit:sample">"# + records + "</h:QueryHotelsResponse></soap:Body></soap:Envelope>"
        var hotels: [Hotel] = []
        let session = try HotelResponseParser(profile: try .named("sample")).session(onRecord: { hotels.append($0) })
        let bytes = Array(response.utf8)
        for start in stride(from: 0, to: bytes.count, by: byteByByte ? 1 : bytes.count) {
            try session.feed(Array(bytes[start..<min(start + (byteByByte ? 1 : bytes.count), bytes.count)]))
        }
        _ = try session.finish()
        return hotels
    }

    @Test(
        "a field holding elements has their text too, and no field is taken from inside it; the first of a name wins; one with attributes reads the same",
        arguments: [false, true])
    func shapes(byteByByte: Bool) throws {
        let hotels = try parse(
            """
            <h:Hotel><h:code>C1</h:code><h:name>Grand <h:b>Riverside</h:b> Hotel</h:name><h:name>Second</h:name>\
            <h:address><h:code>X</h:code>1 Main St</h:address><h:latitude> 48.5 </h:latitude></h:Hotel>
            <h:Hotel><h:code xml:id="k"> C2 </h:code><h:name xmlns:v="urn:v">Plaza</h:name><h:address/>\
            <h:longitude>2.25</h:longitude><h:addtime>1700000000</h:addtime></h:Hotel>
            """,
            byteByByte: byteByByte)
        #expect(hotels.map(\.code) == ["C1", "C2"])
        #expect(hotels.map(\.name) == ["Grand Riverside Hotel", "Plaza"])
        #expect(hotels.map(\.address) == ["X1 Main St", nil])
        #expect(hotels[0].latitude == 48.5 && hotels[1].longitude == 2.25 && hotels[1].addtime == 1_700_000_000)
    }
}
