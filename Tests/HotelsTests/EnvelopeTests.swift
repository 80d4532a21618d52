import Foundation
import Hotels
import SOAP
import TestSupport
import Testing

/// Services that speak plain XML: no SOAP envelope in the request or the response.
@Suite("Plain XML (no envelope)")
struct EnvelopeTests {
    func profile(_ envelope: MessageEnvelope) throws -> ServiceProfile {
        var profile = try ServiceProfile.named("ota-search")
        profile.envelope = envelope
        return profile
    }

    @Test("a bare payload parses into the same records as the enveloped one, under none and auto")
    func bare() throws {
        let enveloped = try HotelResponseParser(profile: .named("ota-search")).parse(bytes: Samples.fixture("ota-search.xml"))
        for envelope in [MessageEnvelope.none, .auto] {
            let page = try HotelResponseParser(profile: profile(envelope)).parse(bytes: Samples.fixture("ota-search-bare.xml"))
            #expect(page == enveloped)
        }
        #expect(try HotelResponseParser(profile: profile(.auto)).parse(bytes: Samples.fixture("ota-search.xml")) == enveloped)
    }

    @Test("a bare payload under a SOAP profile is refused, naming its root, so the hint can name the fix")
    func refusedUnderSOAP() throws {
        #expect(
            throws: NotSOAPEnvelopeError(
                looksLike: "an XML document whose root element is <OTA_HotelSearchRS> "
                    + "in namespace “http://www.opentravel.org/OTA/2003/05”", xmlRoot: "OTA_HotelSearchRS")
        ) {
            try HotelResponseParser(profile: .named("ota-search")).parse(bytes: Samples.fixture("ota-search-bare.xml"))
        }
    }

    @Test("a bare SOAP Fault is a fault; an HTML page is still not a payload")
    func bareFaultAndHTML() throws {
        #expect(throws: SOAPFault.self) {
            try HotelResponseParser(profile: profile(.auto)).parse(bytes: Samples.fixture("fault-bare-soap11.xml"))
        }
        #expect(throws: NotSOAPEnvelopeError(looksLike: "an HTML page")) {
            try HotelResponseParser(profile: profile(.none)).parse(bytes: Samples.fixture("html-no-doctype.html"))
        }
    }

    @Test("under none the body is posted as it is, as text/xml, with no SOAPAction")
    func request() throws {
        let request = try profile(.none).request(to: "http://ota.test/", RequestParameters(city: "PAR", pageSize: 3))
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        #expect(body.hasPrefix("<OTA_HotelSearchRQ"))
        #expect(request.headers.map(\.name) == ["Content-Type"])
        #expect(request.headers.first?.value == "text/xml; charset=utf-8")
    }

    @Test("the envelope key is read and checked")
    func profileKey() throws {
        let json =
            #"{"name": "bare", "envelope": "none", "body": "<Q>{city}</Q>", "record": "Property", "fields": {"code": "@HotelCode"}, "paging": {"style": "cursor", "next": "//Properties/@MoreDataEchoToken"}}"#
        #expect(throws: ProfileError.self) { try ServiceProfile(json: Data(json.utf8), source: "test") }  // cursor paging without {cursor}
        let loaded = try ServiceProfile(json: Data(json.replacingOccurrences(of: "{city}", with: "{city}{cursor}").utf8), source: "test")
        #expect(loaded.envelope == .none && loaded.soapAction == "" && loaded.soapVersion == .v1_1)
        do {
            _ = try ServiceProfile(json: Data(json.replacingOccurrences(of: "\"none\"", with: "\"bare\"").utf8), source: "test")
            Issue.record("accepted envelope bare")
        } catch {
            #expect(error.key == "envelope" && error.reason.contains("\"soap\", \"none\""))
        }
    }
}
