import Foundation
import Hotels
import SOAP
import TestSupport
import Testing

@testable import WSDL

// The fields a draft names: from recorded responses, a schema's element names, catalogue references.
extension ProfileDraftTests {
    @Test("a recorded response names the record and fields when the schema cannot: OTA attributes, a bare payload")
    func fromSample() async throws {
        let description = ServiceDescription(try await Self.servedSampleSet().set)
        let response = try [UInt8](Data(contentsOf: Samples.url("Real/opentravel/OTA2001B_HotelSearchRS-phoenix.xml")))
        let draft = try ProfileDrafter(description: description).draft(operation: "QueryHotels", sample: response)
        #expect(draft.profile.record == "HotelSearchRecord")
        #expect(draft.profile.envelope == .auto)
        #expect(draft.profile.fields[.name] == FieldPath(elements: [], attribute: "HotelName"))
        #expect(draft.profile.fields[.code] == FieldPath(elements: ["HotelReference"], attribute: "HotelCode"))
        let page = try HotelResponseParser(profile: draft.profile).parse(bytes: response)
        #expect(page.hotels.count == 3)
    }

    @Test(
        "OpenTravel 2003B's hotel WSDL (ProviderGen's HotelAvailRQ): the voice number, chain, award, postal code, city and country are fields of their own, the address its street parts"
    )
    func openTravelContactFields() async throws {
        let description = try await real("ota-providergen/index.wsdl")
        let profile = try ProfileDrafter(description: description).draft(operation: "HotelAvailRQ").profile
        #expect(profile.record == "RoomStay")
        func path(_ text: String) throws -> FieldPath { try FieldPath(parsing: text) }
        #expect(
            profile.joins[.address]?.paths == [
                try path("BasicPropertyInfo/Address/AddressLine"), try path("BasicPropertyInfo/Address/StreetNmbr"),
                try path("BasicPropertyInfo/Address/BldgRoom"),
            ])
        // ContactNumber repeats: the one whose PhoneTechType is 1 (Voice), not the fax.
        #expect(profile.fields[.phone] == (try path("BasicPropertyInfo/ContactNumbers/ContactNumber[@PhoneTechType='1']/@PhoneNumber")))
        #expect(profile.fields[.chainCode] == (try path("BasicPropertyInfo/@ChainCode")))
        #expect(profile.fields[.rating] == (try path("BasicPropertyInfo/Award/@Rating")))
        #expect(profile.fields[.postalCode] == (try path("BasicPropertyInfo/Address/PostalCode")))
        #expect(profile.fields[.city] == (try path("BasicPropertyInfo/Address/CityName")))
        // CountryName/@Code, not the country's name in CountryName's text.
        #expect(profile.fields[.countryCode] == (try path("BasicPropertyInfo/Address/CountryName/@Code")))
        // Each guess is in the notes, with its reason.
        for note in [
            "fields.phone = BasicPropertyInfo/ContactNumbers/ContactNumber[@PhoneTechType='1']/@PhoneNumber: named “PhoneNumber”, of the <ContactNumber> whose PhoneTechType is 1",
            "fields.chainCode = BasicPropertyInfo/@ChainCode: named “ChainCode”",
            "fields.rating = BasicPropertyInfo/Award/@Rating: named “Rating” (its element repeats: the first is taken)",
            "fields.postalCode = BasicPropertyInfo/Address/PostalCode: named “PostalCode”",
            "fields.city = BasicPropertyInfo/Address/CityName: named “CityName”",
            "fields.countryCode = BasicPropertyInfo/Address/CountryName/@Code: named “Code” in <CountryName>",
            "fields.address = BasicPropertyInfo/Address/AddressLine, BasicPropertyInfo/Address/StreetNmbr, BasicPropertyInfo/Address/BldgRoom: the street parts of <Address>, joined",
            "fields not found: logoURL, addtime",
        ] {
            #expect(profile.notes.contains { $0.hasPrefix(note) }, "\(note)")
        }
        // Concur's booking response has RoomStays too: its hotel's voice number (the fax is PhoneTechType 3), not the guest's telephone.
        let booked = try [UInt8](Data(contentsOf: Samples.url("Real/concur/OTA_HotelResRS-booked-guest-address.xml")))
        let hotel = try #require(try HotelResponseParser(profile: profile).parse(bytes: booked).hotels.first)
        #expect(hotel.code == "HT030025" && hotel.address == "200 6th Avenue North")
        #expect(hotel.phone == "+12069628678" && hotel.postalCode == "98109" && hotel.city == "Seattle" && hotel.countryCode == "US")
    }

    @Test("a recorded OpenTravel search response: the same fields, and its PropertyReference as the profile's references")
    func contactFieldsFromSample() async throws {
        let description = ServiceDescription(try await Self.servedSampleSet().set)
        let response = try [UInt8](Data(contentsOf: Samples.url("Real/concur/OTA_HotelSearchRS-appendix-stub-property.xml")))
        let profile = try ProfileDrafter(description: description).draft(operation: "QueryHotels", sample: response).profile
        #expect(profile.record == "Property")
        #expect(profile.fields[.phone] == (try FieldPath(parsing: "ContactNumbers/ContactNumber[@PhoneTechType='1']/@PhoneNumber")))
        #expect(profile.fields[.address] == (try FieldPath(parsing: "Address/AddressLine")))
        #expect(
            profile.references == [
                ReferenceRule(
                    element: try FieldPath(parsing: "TPA_Extensions/TPA_PropertyReferenceInfo/PropertyReference"),
                    catalog: .attribute("ReferenceCatalogName"), codeAttribute: "ReferenceCatalogCode")
            ])
        #expect(
            profile.notes.contains {
                $0.hasPrefix("references: TPA_Extensions/TPA_PropertyReferenceInfo/PropertyReference, catalogue @ReferenceCatalogName")
            })
        let hotel = try #require(try HotelResponseParser(profile: profile).parse(bytes: response).hotels.first)
        #expect(
            hotel
                == Hotel(
                    code: "22222", name: "Holiday Inn Express Sunshine", address: "99 East 27th Street", latitude: 47.61038,
                    longitude: -122.20068, logoURL: "https://production.example.com/hotel-image.jpg", phone: "+14255551234",
                    chainCode: "HI", rating: 4, postalCode: "98009", city: "Bellevue", countryCode: "US", references: ["giata": "1376249"]))
    }

    /// The profile drafted for a search whose record is `<Hotel Code="…">` with `content` inside.
    func draftHotel(_ content: String) throws -> ServiceProfile {
        let schema = Documents.schema(
            #"""
            <xs:element name="SearchRQ"><xs:complexType><xs:sequence><xs:element name="City" type="xs:string"/></xs:sequence></xs:complexType></xs:element>
            <xs:element name="SearchRS"><xs:complexType><xs:sequence><xs:element name="Hotel" maxOccurs="unbounded"><xs:complexType><xs:sequence>
              \#(content)
            </xs:sequence><xs:attribute name="Code" type="xs:string"/></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element>
            """#)
        return try ProfileDrafter(description: describe(schema: schema)).draft(operation: "Search").profile
    }

    @Test(
        "each name guesses its field",
        arguments: [
            ("CityName", HotelField.city), ("City", .city), ("Town", .city),
            ("PostalCode", .postalCode), ("PostCode", .postalCode), ("Zip", .postalCode), ("ZipCode", .postalCode),
            ("CountryCode", .countryCode), ("Country", .countryCode), ("CountryName", .countryCode),
            ("ChainCode", .chainCode), ("Chain", .chainCode), ("BrandCode", .chainCode), ("HotelChain", .chainCode),
            ("PhoneNumber", .phone), ("Phone", .phone), ("Telephone", .phone),
            ("Rating", .rating), ("StarRating", .rating), ("Stars", .rating), ("Category", .rating),
        ])
    func fieldNames(name: String, field: HotelField) throws {
        let profile = try draftHotel(#"<xs:element name="\#(name)" type="xs:string" minOccurs="0"/>"#)
        #expect(profile.fields[field] == FieldPath(elements: [name]), "\(profile.fields)")
        #expect(profile.fields.count == 2, "\(profile.fields)")
        #expect(
            profile.notes.contains(
                "fields.\(field.rawValue) = \(name): named “\(name)”"
                    + (field == .countryCode && name != "CountryCode"
                        ? " (a country's name, which HotelKit maps to its code when one country has it)" : "")), "\(profile.notes)")
    }

    @Test(
        "an address of parts: the street parts joined, city, postal code and country their own fields, a state nothing; each best-named value wins"
    )
    func addressParts() throws {
        let profile = try draftHotel(
            #"""
            <xs:element name="Address"><xs:complexType><xs:sequence>
              <xs:element name="Street" type="xs:string"/><xs:element name="Address2" type="xs:string"/><xs:element name="Town" type="xs:string"/>
              <xs:element name="Zip" type="xs:string"/><xs:element name="State" type="xs:string"/>
              <xs:element name="Country"><xs:complexType><xs:simpleContent><xs:extension base="xs:string"><xs:attribute name="Code" type="xs:string"/>
              </xs:extension></xs:simpleContent></xs:complexType></xs:element>
            </xs:sequence></xs:complexType></xs:element>
            <xs:element name="Telephone"><xs:complexType><xs:attribute name="PhoneNumber" type="xs:string"/></xs:complexType></xs:element>
            <xs:element name="Brand"><xs:complexType><xs:attribute name="Code" type="xs:string"/></xs:complexType></xs:element>
            <xs:element name="Awards"><xs:complexType><xs:sequence><xs:element name="Award" maxOccurs="unbounded"><xs:complexType>
              <xs:attribute name="Provider" type="xs:string"/><xs:attribute name="Rating" type="xs:string"/></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element>
            """#)
        #expect(
            profile.joins[.address]?.paths == [FieldPath(elements: ["Address", "Street"]), FieldPath(elements: ["Address", "Address2"])])
        #expect(profile.fields[.city] == FieldPath(elements: ["Address", "Town"]))
        #expect(profile.fields[.postalCode] == FieldPath(elements: ["Address", "Zip"]))
        // The code beats the name beside it.
        #expect(profile.fields[.countryCode] == FieldPath(elements: ["Address", "Country"], attribute: "Code"))
        // Telephone holds no text, only its PhoneNumber attribute, with no PhoneTechType to test.
        #expect(profile.fields[.phone] == FieldPath(elements: ["Telephone"], attribute: "PhoneNumber"))
        #expect(profile.fields[.chainCode] == FieldPath(elements: ["Brand"], attribute: "Code"))
        // The first award of a list.
        #expect(profile.fields[.rating] == FieldPath(elements: ["Awards", "Award"], attribute: "Rating"))
        // The hotel's code is still its own attribute, not a country's or a brand's.
        #expect(profile.fields[.code] == FieldPath(elements: [], attribute: "Code"))
        let response = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><t:SearchRS xmlns:t="urn:test">\\
            <t:Hotel Code="H1"><t:Address><t:Street>1 Rue de Rivoli</t:Street><t:Address2>Bâtiment B</t:Address2><t:Town>Paris</t:Town>\\
            <t:Zip>75001</t:Zip><t:State>IDF</t:State><t:Country Code="FR">France</t:Country></t:Address><t:Telephone PhoneNumber="+33 1 23 45 67 89"/>\\
            <t:Brand Code="rt"/><t:Awards><t:Award Provider="AA" Rating="4.5"/><t:Award Provider="BB" Rating="3"/></t:Awards></t:Hotel>\\
            </t:SearchRS></soap:Body></soap:Envelope>
            """
        let hotel = try #require(try HotelResponseParser(profile: profile).parse(bytes: Array(response.utf8)).hotels.first)
        #expect(
            hotel
                == Hotel(
                    code: "H1", address: "1 Rue de Rivoli, Bâtiment B", phone: "+33 1 23 45 67 89", chainCode: "RT", rating: 4.5,
                    postalCode: "75001", city: "Paris", countryCode: "FR"))
    }

    @Test("catalogue references: an attribute names the catalogue, the code an attribute or the text; a GiataId is GIATA's")
    func referenceGuesses() throws {
        let profile = try draftHotel(
            #"""
            <xs:element name="Ids"><xs:complexType><xs:sequence><xs:element name="Reference" maxOccurs="unbounded"><xs:complexType>
              <xs:attribute name="Catalog" type="xs:string"/><xs:attribute name="Value" type="xs:string"/></xs:complexType></xs:element>
            </xs:sequence></xs:complexType></xs:element>
            <xs:element name="GiataId" type="xs:string" minOccurs="0"/>
            """#)
        #expect(
            profile.references == [
                ReferenceRule(element: FieldPath(elements: ["Ids", "Reference"]), catalog: .attribute("Catalog"), codeAttribute: "Value"),
                ReferenceRule(element: FieldPath(elements: ["GiataId"]), catalog: .fixed("giata"), codeAttribute: nil),
            ])
        #expect(profile.notes.contains("references: GiataId, catalogue giata, code its text: <GiataId>'s text is a giata id"))
        // An element of a reference-like name that names no catalogue is no reference.
        #expect(try draftHotel(#"<xs:element name="Reference" type="xs:string"/>"#).references.isEmpty)
    }

    @Test(
        "a hotel's code beats another thing's however shallow: HotelBeds' HotelInfo/Code, not Currency/@code (a synthetic response in its shape)"
    )
    func hotelCodeOverCurrency() async throws {
        let description = ServiceDescription(try await Self.servedSampleSet().set)
        let service = #"""
            <ServiceHotel availToken="T1"><ContractList><Contract><Name>CG-TODOS</Name><IncomingOffice code="1"/></Contract></ContractList>\
            <Currency code="COP">Colombian Peso</Currency><HotelInfo><Code>636682</Code><Name>Hotel Dann Carlton</Name>\
            <Category type="SIMPLE" code="4EST">4 STARS</Category><Destination type="SIMPLE" code="BOG"><Name>Bogota</Name></Destination>\
            <Position latitude="4.67" longitude="-74.05"/></HotelInfo></ServiceHotel>
            """#
        let response =
            #"<HotelValuedAvailRS xmlns="http://www.hotelbeds.com/schemas/2005/06/messages">"# + service + service + "</HotelValuedAvailRS>"
        let draft = try ProfileDrafter(description: description).draft(operation: "QueryHotels", sample: Array(response.utf8))
        #expect(draft.profile.record == "ServiceHotel")
        #expect(draft.profile.fields[.code] == FieldPath(elements: ["HotelInfo", "Code"]))
        #expect(draft.profile.fields[.name] == FieldPath(elements: ["HotelInfo", "Name"]))
        #expect(
            try HotelResponseParser(profile: draft.profile).parse(bytes: Array(response.utf8)).hotels.map(\.code) == ["636682", "636682"])
    }
}
