import Foundation
import SOAP

/// The sample service's one operation, as a request names it.
struct QueryHotelsRequest: Equatable {
    var city: String
    var pageSize: Int
    var before: Int64?
}

/// Why a request cannot be answered: becomes a SOAP fault.
struct SampleFault: Error {
    var sender: Bool
    var reason: String
    /// A temporary failure: `Server.Busy` in SOAP 1.1, `Receiver` with the
    /// subcode `h:Busy` in SOAP 1.2, which the `sample` profile calls transient.
    var busy = false
    /// A WS-Security fault's local name (`FailedAuthentication`): the SOAP 1.1
    /// faultcode, or the SOAP 1.2 subcode of Sender.
    var security: String?

    static func security(_ code: String, _ reason: String) -> SampleFault {
        SampleFault(sender: true, reason: reason, security: code)
    }
}

/// Reads `QueryHotels(city, pageSize, before?)` from a request body, and
/// the Header's UsernameToken.
final class QueryHotelsReader: SOAPBodyHandler {
    let security = SecurityHeaderReader()
    var headerHandler: (any XMLEventHandler)? { security }
    private let wanted: Set<String> = ["city", "pageSize", "before"]
    private var depth = 0
    private(set) var operation: String?
    private(set) var values: [String: String] = [:]
    private var capturing: String?
    private var text = ""

    func startElement(_ element: XMLStartElement) throws {
        depth += 1
        let name = element.localName.string
        if depth == 1 {
            operation = name
        } else if depth == 2, wanted.contains(name) {
            capturing = name
            text = ""
        }
    }

    func endElement(_ localName: XMLName) throws {
        if depth == 2, let capturing {
            values[capturing] = text.trimmingCharacters(in: .whitespacesAndNewlines)
            self.capturing = nil
        }
        depth -= 1
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if capturing != nil { text += String(decoding: bytes, as: UTF8.self) }
    }

    func bodyDidEnd() throws {}

    static func parse(_ body: [UInt8], authenticator: SampleAuthenticator? = nil) throws(SampleFault) -> QueryHotelsRequest {
        let values: [String: String]
        do {
            let reader = try SOAPResponseReader(limits: XMLReaderLimits(maxDepth: 32, maxTextLength: 4096, maxInputBytes: 1 << 20)) { _ in
                QueryHotelsReader()
            }
            try reader.feed(body)
            try reader.finish()
            guard reader.body.operation == "QueryHotels" else {
                throw SampleFault(
                    sender: true, reason: "unknown operation \(reader.body.operation ?? "(none)"); this service has QueryHotels")
            }
            values = reader.body.values
            try authenticator?.check(reader.body.security.token, sawSecurity: reader.body.security.sawSecurity)
        } catch let fault as SampleFault {
            throw fault
        } catch {
            throw SampleFault(sender: true, reason: "bad request: \(error)")
        }
        guard let city = values["city"], !city.isEmpty else { throw SampleFault(sender: true, reason: "city is required") }
        guard let size = Int(values["pageSize"] ?? ""), (1...1000).contains(size) else {
            throw SampleFault(sender: true, reason: "pageSize must be a whole number from 1 to 1000")
        }
        var before: Int64?
        if let text = values["before"], !text.isEmpty {
            guard let value = Int64(text) else { throw SampleFault(sender: true, reason: "before must be an addtime (Unix seconds)") }
            before = value
        }
        return QueryHotelsRequest(city: city, pageSize: size, before: before)
    }
}

/// The sample service's messages and WSDL.
enum SampleMessages {
    static let namespace = "urn:hotelkit:sample"
    static let wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"

    /// `<h:NAME>value</h:NAME>`, or nothing when there is no value.
    private static func element(_ name: String, _ value: String?, into xml: inout [UInt8]) {
        guard let value else { return }
        xml += "<h:\(name)>".utf8
        XMLEscaping.escape(value, into: &xml)
        xml += "</h:\(name)>".utf8
    }

    /// A page of hotels, written as bytes: the service's busiest path, and
    /// string interpolation made it use more CPU than the client it served.
    static func response(_ hotels: ArraySlice<SampleHotel>, lastAddTime: Int64?, baseURL: String, version: SOAPVersion) -> [UInt8] {
        var xml = Array(SOAPEnvelope.opening(version: version).utf8)
        xml.reserveCapacity(hotels.count * 420 + 256)
        xml += #"<h:QueryHotelsResponse xmlns:h="\#(namespace)">"#.utf8
        let logoFolder = Array("\(baseURL)/logos/".utf8)
        for hotel in hotels {
            xml += "<h:Hotel><h:code>".utf8
            XMLEscaping.escape(hotel.code, into: &xml)
            xml += "</h:code><h:name>".utf8
            XMLEscaping.escape(hotel.name, into: &xml)
            xml += "</h:name>".utf8
            // A supplier's record may lack any of these; the seeded catalogue's hotels have them all.
            element("address", hotel.address, into: &xml)
            if let latitude = hotel.latitude, let longitude = hotel.longitude {
                xml += "<h:latitude>".utf8
                xml += latitude.description.utf8
                xml += "</h:latitude><h:longitude>".utf8
                xml += longitude.description.utf8
                xml += "</h:longitude>".utf8
            }
            if let logo = hotel.logo {
                xml += "<h:logoURL>".utf8
                xml += logoFolder
                XMLEscaping.escape(hotel.code, into: &xml)
                xml += (logo.isPNG ? ".png" : ".jpg").utf8
                xml += "</h:logoURL>".utf8
            }
            xml += "<h:addtime>".utf8
            xml += String(hotel.addtime).utf8
            xml += "</h:addtime>".utf8
            element("phone", hotel.phone, into: &xml)
            element("chainCode", hotel.chainCode, into: &xml)
            element("rating", hotel.rating.map { $0.description }, into: &xml)
            element("postalCode", hotel.postalCode, into: &xml)
            element("city", hotel.city, into: &xml)
            element("countryCode", hotel.countryCode, into: &xml)
            for reference in hotel.references {
                xml += #"<h:reference catalog=""#.utf8
                XMLEscaping.escape(reference.catalog, into: &xml)
                xml += #"">"#.utf8
                XMLEscaping.escape(reference.code, into: &xml)
                xml += "</h:reference>".utf8
            }
            xml += "</h:Hotel>".utf8
        }
        if let lastAddTime { xml += "<h:lastAddTime>\(lastAddTime)</h:lastAddTime>".utf8 }
        xml += "</h:QueryHotelsResponse>".utf8
        xml += SOAPEnvelope.closing.utf8
        return xml
    }

    static func fault(_ fault: SampleFault, version: SOAPVersion) -> String {
        let reason = XMLEscaping.escape(fault.reason)
        switch version {
        case .v1_1:
            let code = fault.security.map { "wsse:\($0)" } ?? "soap:" + (fault.sender ? "Client" : fault.busy ? "Server.Busy" : "Server")
            return SOAPEnvelope.message(
                version: version,
                body:
                    "<soap:Fault><faultcode\(fault.security == nil ? "" : " xmlns:wsse=\"\(wsse)\"")>\(code)</faultcode>"
                    + "<faultstring>\(reason)</faultstring></soap:Fault>")
        case .v1_2:
            let subcode =
                fault.security.map { "<soap:Subcode><soap:Value xmlns:wsse=\"\(wsse)\">wsse:\($0)</soap:Value></soap:Subcode>" }
                ?? (fault.busy ? "<soap:Subcode><soap:Value xmlns:h=\"urn:hotelkit:sample\">h:Busy</soap:Value></soap:Subcode>" : "")
            return SOAPEnvelope.message(
                version: version,
                body:
                    "<soap:Fault><soap:Code><soap:Value>soap:\(fault.sender ? "Sender" : "Receiver")</soap:Value>\(subcode)</soap:Code>"
                    + "<soap:Reason><soap:Text xml:lang=\"en\">\(reason)</soap:Text></soap:Reason></soap:Fault>")
        }
    }

    /// A WSDL 1.1 description, document/literal, with SOAP 1.1 and 1.2 bindings. A supplier's view
    /// (`hotels serve --supplier N`) may leave out a hotel's address, position and logo: `optionalFields` says so.
    static func wsdl(endpoint: String, optionalFields: Bool = false) -> String {
        guard optionalFields else { return catalogueWSDL(endpoint: endpoint) }
        var text = catalogueWSDL(endpoint: endpoint)
        for (name, type) in [("address", "string"), ("latitude", "double"), ("longitude", "double"), ("logoURL", "string")] {
            text = text.replacingOccurrences(
                of: #"<xs:element name="\#(name)" type="xs:\#(type)"/>"#,
                with: #"<xs:element name="\#(name)" type="xs:\#(type)" minOccurs="0"/>"#)
        }
        return text
    }

    private static func catalogueWSDL(endpoint: String) -> String {
        #"""
        <?xml version="1.0" encoding="utf-8"?>
        <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
            xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" xmlns:xs="http://www.w3.org/2001/XMLSchema"
            xmlns:tns="urn:hotelkit:sample" targetNamespace="urn:hotelkit:sample" name="SampleHotels">
          <wsdl:types>
            <xs:schema targetNamespace="urn:hotelkit:sample" elementFormDefault="qualified">
              <xs:element name="QueryHotels">
                <xs:complexType>
                  <xs:sequence>
                    <xs:element name="city" type="xs:string"/>
                    <xs:element name="pageSize" type="xs:int"/>
                    <xs:element name="before" type="xs:string" minOccurs="0">
                      <xs:annotation><xs:documentation>An addtime (Unix seconds): rows older than it. Empty or absent for the first page.</xs:documentation></xs:annotation>
                    </xs:element>
                  </xs:sequence>
                </xs:complexType>
              </xs:element>
              <xs:complexType name="Hotel">
                <xs:sequence>
                  <xs:element name="code" type="xs:string"/>
                  <xs:element name="name" type="xs:string"/>
                  <xs:element name="address" type="xs:string"/>
                  <xs:element name="latitude" type="xs:double"/>
                  <xs:element name="longitude" type="xs:double"/>
                  <xs:element name="logoURL" type="xs:string"/>
                  <xs:element name="addtime" type="xs:long"/>
                  <xs:element name="phone" type="xs:string" minOccurs="0"/>
                  <xs:element name="chainCode" type="xs:string" minOccurs="0"/>
                  <xs:element name="rating" type="xs:decimal" minOccurs="0"/>
                  <xs:element name="postalCode" type="xs:string" minOccurs="0"/>
                  <xs:element name="city" type="xs:string"/>
                  <xs:element name="countryCode" type="xs:string"/>
                  <xs:element name="reference" minOccurs="0" maxOccurs="unbounded">
                    <xs:complexType>
                      <xs:simpleContent>
                        <xs:extension base="xs:string"><xs:attribute name="catalog" type="xs:string" use="required"/></xs:extension>
                      </xs:simpleContent>
                    </xs:complexType>
                  </xs:element>
                </xs:sequence>
              </xs:complexType>
              <xs:element name="QueryHotelsResponse">
                <xs:complexType>
                  <xs:sequence>
                    <xs:element name="Hotel" type="tns:Hotel" minOccurs="0" maxOccurs="unbounded"/>
                    <xs:element name="lastAddTime" type="xs:long" minOccurs="0"/>
                  </xs:sequence>
                </xs:complexType>
              </xs:element>
            </xs:schema>
          </wsdl:types>
          <wsdl:message name="QueryHotelsInput"><wsdl:part name="parameters" element="tns:QueryHotels"/></wsdl:message>
          <wsdl:message name="QueryHotelsOutput"><wsdl:part name="parameters" element="tns:QueryHotelsResponse"/></wsdl:message>
          <wsdl:portType name="SampleHotelsPortType">
            <wsdl:operation name="QueryHotels">
              <wsdl:input message="tns:QueryHotelsInput"/>
              <wsdl:output message="tns:QueryHotelsOutput"/>
            </wsdl:operation>
          </wsdl:portType>
          <wsdl:binding name="SampleHotelsSoap11" type="tns:SampleHotelsPortType">
            <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
            <wsdl:operation name="QueryHotels">
              <soap:operation soapAction="urn:hotelkit:sample#QueryHotels"/>
              <wsdl:input><soap:body use="literal"/></wsdl:input>
              <wsdl:output><soap:body use="literal"/></wsdl:output>
            </wsdl:operation>
          </wsdl:binding>
          <wsdl:binding name="SampleHotelsSoap12" type="tns:SampleHotelsPortType">
            <soap12:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
            <wsdl:operation name="QueryHotels">
              <soap12:operation soapAction="urn:hotelkit:sample#QueryHotels"/>
              <wsdl:input><soap12:body use="literal"/></wsdl:input>
              <wsdl:output><soap12:body use="literal"/></wsdl:output>
            </wsdl:operation>
          </wsdl:binding>
          <wsdl:service name="SampleHotels">
            <wsdl:port name="SampleHotelsSoap11" binding="tns:SampleHotelsSoap11"><soap:address location="\#(endpoint)"/></wsdl:port>
            <wsdl:port name="SampleHotelsSoap12" binding="tns:SampleHotelsSoap12"><soap12:address location="\#(endpoint)"/></wsdl:port>
          </wsdl:service>
        </wsdl:definitions>
        """#
    }
}
