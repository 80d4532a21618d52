import Foundation
import Hotels
import SOAP
import TestSupport
import Testing

/// Every character and entity reference comes out decoded, in attributes as
/// in text: `&amp;` in an attribute once came out as `&#38;` (libxml2's SAX2
/// keeps it so when entities are not substituted), corrupting codes, names
/// and URLs, and with the codes the store's identity.
@Suite("References decoded everywhere")
struct EntityDecodingTests {
    /// Each reference form, and what it must read as.
    static let encoded = "B&amp;B &lt;1&gt; &quot;q&quot; &apos;a&apos; &#38; &#x26; &#233;&#xE9;"
    static let decoded = "B&B <1> \"q\" 'a' & & éé"

    static func response(_ version: SOAPVersion) -> [UInt8] {
        let envelope = version == .v1_1 ? "http://schemas.xmlsoap.org/soap/envelope/" : "http://www.w3.org/2003/05/soap-envelope"
        return Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <S:Envelope xmlns:S="\(envelope)"><S:Body>
            <OTA_HotelSearchRS xmlns="http://www.opentravel.org/OTA/2003/05"><Success/>
            <Properties>
            <Property HotelCode="A&amp;1" HotelName="\(encoded)" HotelCityCode="PAR">
              <Address><AddressLine>\(encoded)</AddressLine></Address>
              <TPA_Extensions><TPA_HotelPreviewImageURI><URL>https://images.example.com/x.png?k=1&amp;o=2</URL></TPA_HotelPreviewImageURI></TPA_Extensions>
            </Property>
            </Properties></OTA_HotelSearchRS></S:Body></S:Envelope>
            """.utf8)
    }

    @Test(
        "attributes and text, in SOAP 1.1 and 1.2: &amp; &lt; &gt; &quot; &apos; &#NN; &#xNN; all decoded",
        arguments: [SOAPVersion.v1_1, .v1_2])
    func records(_ version: SOAPVersion) throws {
        let page = try HotelResponseParser(profile: .named("ota-search")).parse(bytes: Self.response(version))
        let hotel = try #require(page.hotels.first)
        #expect(hotel.code == "A&1")
        #expect(hotel.name == Self.decoded)
        #expect(hotel.address?.hasPrefix(Self.decoded) == true)
        #expect(hotel.logoURL == "https://images.example.com/x.png?k=1&o=2")
    }

    @Test("the reader's own attribute views are decoded too (the WSDL and fault readers use them)")
    func reader() throws {
        final class Attributes: XMLEventHandler {
            let name: XMLName
            var values: [String] = []
            init(_ names: XMLNameTable) { name = names.name("v") }
            func startElement(_ element: XMLStartElement) throws {
                if let value = element.attribute(name) { values.append(value) }
                values += element.attributes.map(\.value)
            }
            func endElement(_ localName: XMLName) throws {}
            func characters(_ text: UnsafeBufferPointer<UInt8>) throws {}
        }
        let reader = try XMLPushReader { Attributes($0) }
        try reader.feed(Array("<r v=\"\(Self.encoded)\"/>".utf8))
        try reader.finish()
        #expect(reader.handler.values == [Self.decoded, Self.decoded])
    }
}
