import Foundation
import Testing

@testable import Hotels

/// The record's fields beyond the first seven: each field's rule, what a bad
/// value becomes (the field empty, a warning, the record kept), and the one
/// table the JSON keys follow.
@Suite("The record's fields")
struct RecordFieldsTests {
    /// A profile over `<H>` records whose children are named as the fields.
    static let profile: ServiceProfile = {
        let json = #"""
            {"name": "fields", "body": "<Q/>", "record": "H",
             "fields": {"code": "@id", "name": "Name", "phone": "Phones/Phone[@Type='voice']", "chainCode": "Chain", "rating": "Stars",
                        "postalCode": "Zip", "city": "City", "countryCode": "Country"},
             "references": [{"path": "Ref", "catalog": "@source", "code": "@id"}, {"path": "GiataId", "catalog": "GIATA"}]}
            """#
        do { return try ServiceProfile(json: Data(json.utf8), source: "test") } catch { preconditionFailure("\(error)") }
    }()

    func parse(_ records: String) throws -> HotelPage {
        let response =
            #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><R>"# + records
            + "</R></soap:Body></soap:Envelope>"
        return try HotelResponseParser(profile: Self.profile, warningsPerKind: nil).parse(bytes: Array(response.utf8))
    }

    @Test(
        "each field as a supplier sends it: the voice phone of several, the chain upper-cased, halves of a rating, references from attributes and from text"
    )
    func everyField() throws {
        let page = try parse(
            """
            <H id="P1"><Name>Hôtel Lutetia</Name><Phones><Phone Type="fax">+33 1 49 54 46 00</Phone><Phone Type="voice"> +33 1 49 54 46 46 </Phone></Phones>\
            <Chain>lx</Chain><Stars>4.5</Stars><Zip>75006</Zip><City>Paris</City><Country>fr</Country>\
            <Ref source="GIATA" id="12345"/><Ref source="hotelbeds" id=" HB-9 "/><GiataId>12345</GiataId></H>
            """)
        let hotel = try #require(page.hotels.first)
        #expect(page.warnings.isEmpty)
        #expect(hotel.phone == "+33 1 49 54 46 46")
        #expect(hotel.chainCode == "LX")
        #expect(hotel.rating == 4.5)
        #expect(hotel.postalCode == "75006" && hotel.city == "Paris" && hotel.countryCode == "FR")
        #expect(hotel.references == ["giata": "12345", "hotelbeds": "HB-9"])
    }

    @Test(
        "a country as an alpha-3 code or by its name in several languages becomes its alpha-2 code",
        arguments: [
            ("FRA", "FR"), ("France", "FR"), ("  deutschland ", "DE"), ("España", "ES"), ("United States of America", "US"), ("USA", "US"),
            ("Côte d'Ivoire", "CI"), ("gb", "GB"), ("Russia", "RU"), ("Czechia", "CZ"),
        ])
    func countries(_ sent: String, _ code: String) throws {
        let page = try parse("<H id=\"P\"><Country>\(sent)</Country></H>")
        #expect(page.hotels.first?.countryCode == code)
        #expect(page.warnings.isEmpty)
    }

    @Test(
        "bad values leave their field empty with a warning, and the record is kept: a rating of words or out of range, a country of no known or of two countries, a phone of 200 characters, a reference with no code or no catalogue"
    )
    func badValues() throws {
        let long = String(repeating: "9", count: 200)
        let page = try parse(
            """
            <H id="A"><Stars>4 stars</Stars><Country>Atlantis</Country></H>\
            <H id="B"><Stars>99</Stars><Country>Congo</Country><Phones><Phone Type="voice">\(long)</Phone></Phones></H>\
            <H id="C"><Stars>3.3</Stars><Country>XX</Country><Ref source="giata"/><Ref id="7"/><Ref source="tti" id="8"/></H>
            """)
        #expect(page.hotels.map(\.code) == ["A", "B", "C"])
        #expect(page.hotels.allSatisfy { $0.rating == nil && $0.countryCode == nil })
        #expect(page.hotels[1].phone == nil)
        #expect(page.hotels[2].references == ["tti": "8"])
        #expect(page.warningsByKind == ["rating": 3, "countryCode": 3, "phone": 1, "references": 2])
        let messages = page.warnings.map(\.message)
        #expect(messages.contains("rating “4 stars” is not a rating (0 to 7, in halves); left empty"))
        #expect(messages.contains("a reference in catalogue “giata” has no code; left out"))
        // The warning quotes the start of a long value, not all of it.
        #expect(messages.allSatisfy { $0.utf8.count < 200 })
    }

    @Test("a rating from 0 to 7 in halves is kept; anything else is not", arguments: [("0", 0.0), ("7", 7.0), ("3.5", 3.5), ("4.0", 4.0)])
    func ratings(_ sent: String, _ value: Double) throws {
        #expect(try parse("<H id=\"P\"><Stars>\(sent)</Stars></H>").hotels.first?.rating == value)
    }

    @Test("the JSON keys are the table's, in its order: the first seven as before, the new ones after addtime")
    func jsonKeysFollowTheTable() throws {
        #expect(
            HotelFields.jsonKeys == [
                "code", "name", "address", "latitude", "longitude", "logoURL", "addtime",
                "phone", "chainCode", "rating", "postalCode", "city", "countryCode", "references",
            ])
        #expect(HotelFields.all.map(\.field) == HotelField.allCases)
        let hotel = Hotel(code: "P", name: "N", rating: 4, countryCode: "FR", references: ["tti": "2", "giata": "1"])
        let line = HotelJSONLines.line(hotel)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Set(HotelFields.jsonKeys))
        #expect(line.contains(#""references":{"giata":"1","tti":"2"}}"#))
        // A line decodes back into the same hotel.
        #expect(try JSONDecoder().decode(Hotel.self, from: Data(line.utf8)) == hotel)
    }

    @Test("every field reads back through its table entry: value(assign(x)) is x")
    func tableRoundTrip() {
        let full = Hotel(
            code: "P", name: "N", address: "1 Rue", latitude: 48.8, longitude: 2.3, logoURL: "http://l.test/p.png", addtime: 5,
            phone: "+33", chainCode: "AC", rating: 3.5, postalCode: "75001", city: "Paris", countryCode: "FR", references: ["giata": "1"])
        var copy = Hotel(code: "")
        for spec in HotelFields.all { spec.assign(&copy, spec.value(full)) }
        #expect(copy == full)
    }
}
