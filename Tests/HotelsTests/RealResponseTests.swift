import Foundation
import Hotels
import SOAP
import TestSupport
import Testing

/// Responses published by vendors, standards bodies and client libraries
/// (`Samples/Real`, origins in its SOURCES.md).
@Suite("Real responses")
struct RealResponseTests {
    static let files: [String] = {
        let root = Samples.url("Real")
        let found = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return found.filter { $0.pathExtension == "xml" }.map { String($0.path.dropFirst(root.path.count + 1)) }.sorted()
    }()

    /// Either form, as a client that does not know the service yet would read it.
    func parse(_ file: String, profile: String = "Samples/Profiles/ota-plain-xml.json") throws -> HotelPage {
        try HotelResponseParser(profile: .named(Samples.profileArgument(profile))).parse(
            bytes: Array(Data(contentsOf: Samples.url("Real/\(file)"))))
    }

    func fault(_ file: String) throws -> SOAPFault {
        do {
            _ = try parse(file)
        } catch let fault as SOAPFault {
            return fault
        }
        throw CocoaError(.coderInvalidValue)
    }

    /// A manifest entry: the records a file gives (`expected`, with its
    /// warning count), or the error it is (`error`, a part of its message).
    struct Case: Decodable, Sendable, CustomStringConvertible {
        var file: String
        var profile: String
        var expected: String?
        var warnings: Int?
        var error: String?
        var description: String { file }
    }

    static let cases: [Case] = (try? JSONDecoder().decode([Case].self, from: Data(contentsOf: Samples.url("Real/manifest.json")))) ?? []

    @Test("every file has a manifest entry, and there are 20 or more from 6 or more services")
    func manifest() {
        #expect(Set(Self.cases.map(\.file)) == Set(Self.files))
        #expect(Self.files.count >= 20)
        #expect(Set(Self.files.map { $0.prefix { $0 != "/" } }).count >= 6)
    }

    /// Each expected file and error text was checked by hand against its XML.
    @Test("each response under its profile gives the records, or the error, checked by hand", arguments: cases)
    func profiled(_ item: Case) throws {
        let parser = HotelResponseParser(profile: try .named(Samples.url("Real/profiles/\(item.profile)").path))
        let bytes = Array(try Data(contentsOf: Samples.url("Real/\(item.file)")))
        if let error = item.error {
            #expect(item.expected == nil)
            do {
                let page = try parser.parse(bytes: bytes)
                Issue.record("\(item.file): \(page.hotels.count) records, expected the error “\(error)”")
            } catch {
                #expect("\(error)".contains(item.error ?? ""), "\(item.file): \(error)")
            }
            return
        }
        let page = try parser.parse(bytes: bytes)
        var lines: [UInt8] = []
        page.hotels.forEach { HotelJSONLines.append($0, to: &lines) }
        let expected = try Data(contentsOf: Samples.url("Real/expected/\(item.expected ?? "")"))
        #expect(String(decoding: lines, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(page.warnings.count == item.warnings ?? 0)
    }

    /// The index that gave us these files delivers no CR, so the line-end
    /// variants are made here from real files, and say so.
    @Test(
        "CRLF and CR-only line ends (synthetic variants of real files) give the same records",
        arguments: ["opentravel/OTA2001B_HotelAvailRS-multiple.xml", "alpinebits/OTA_ResRetrieveRS-reservation-guest-address-2020-10.xml"])
    func lineEnds(_ file: String) throws {
        guard let item = Self.cases.first(where: { $0.file == file }) else { throw CocoaError(.fileNoSuchFile) }
        let parser = HotelResponseParser(profile: try .named(Samples.url("Real/profiles/\(item.profile)").path))
        let original = Array(try Data(contentsOf: Samples.url("Real/\(file)")))
        let lf = try parser.parse(bytes: original).hotels
        #expect(!lf.isEmpty)
        for ending in [[UInt8(13), 10], [13]] {
            let variant = original.flatMap { $0 == 10 ? ending : [$0] }
            #expect(try parser.parse(bytes: variant).hotels == lf)
        }
    }

    @Test("every file's origin is recorded in SOURCES.md")
    func sources() throws {
        let sources = try String(contentsOf: Samples.url("Real/SOURCES.md"), encoding: .utf8)
        for file in Self.files { #expect(sources.contains("`\(file)`"), "\(file) has no row in SOURCES.md") }
    }

    @Test("every file is well-formed XML the reader accepts, but the one whose prefix is never declared")
    func wellFormed() throws {
        for file in Self.files where file != "amadeus/fault-bare-undeclared-prefix.xml" {
            do {
                _ = try parse(file)
            } catch is SOAPFault {
            } catch is ServiceReportedError {
            } catch {
                Issue.record("\(file): \(error)")
            }
        }
        #expect(throws: XMLReaderError.self) { try parse("amadeus/fault-bare-undeclared-prefix.xml") }
    }

    @Test("vendor faults: detail lines, one-line reasons, and what each is about")
    func faults() throws {
        let travelport = try fault("travelport/fault-ErrorInfo-prefixed.xml")
        #expect(travelport.detailLines.first == "Code: 10024")
        #expect(travelport.topic == .service)
        let multiline = try fault("travelport/fault-multiline-faultstring.xml")
        #expect(!multiline.reason.contains("\n") && !multiline.reason.contains("  "))
        #expect(try fault("tbo/fault-soap12-ActionNotSupported.xml").topic == .addressing)
        #expect(try fault("sabre/fault-InvalidSecurityToken-ebxml-header.xml").topic == .authentication)
        let amadeus = try fault("amadeus/fault-bare-faultactor.xml")  // no envelope at all
        #expect(amadeus.node == "SI:Backend" && amadeus.reason == "1929|Application|INVALID RECORD LOCATOR")
    }

    @Test("OTA errors in a normal body are the service's errors")
    func otaErrors() throws {
        #expect(throws: ServiceReportedError(message: "No availability", path: "//Errors/Error/@ShortText")) {
            try parse("concur/OTA_HotelSearchRS-error-322.xml")
        }
        #expect(throws: ServiceReportedError(message: "Invalid start/end date combination", path: "//Errors/Error/@ShortText")) {
            try parse("alpinebits/OTA_HotelInvCountNotifRS-error-2020-10.xml")
        }
    }

    /// The plain-XML OTA profile with `error` replaced by `json`.
    func withError(_ json: String) throws -> HotelResponseParser {
        var document =
            try JSONSerialization.jsonObject(with: Data(contentsOf: Samples.url("Profiles/ota-plain-xml.json"))) as? [String: Any] ?? [:]
        document["error"] = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        document["record"] = "RoomStay"
        return HotelResponseParser(profile: try ServiceProfile(json: JSONSerialization.data(withJSONObject: document), source: "test"))
    }

    func reportedError(_ file: String, _ parser: HotelResponseParser) throws -> ServiceReportedError? {
        do {
            _ = try parser.parse(bytes: Array(Data(contentsOf: Samples.url(file))))
            return nil
        } catch let error as ServiceReportedError {
            return error
        }
    }

    @Test("an error's message from several paths: OTA's Code and ShortText (Concur's “322 No availability”)")
    func composedMessage() throws {
        let parser = try withError(#"{"path": "//Errors/Error", "message": ["//Errors/Error/@Code", "//Errors/Error/@ShortText"]}"#)
        #expect(
            try reportedError("Real/concur/OTA_HotelSearchRS-error-322.xml", parser)
                == ServiceReportedError(message: "322 No availability", path: "//Errors/Error"))
        // Only the first error is the error; the others are counted.
        #expect(
            try reportedError("Fixtures/ota-errors.xml", parser)
                == ServiceReportedError(message: "392 Invalid hotel city code", path: "//Errors/Error", others: 1))
        #expect(
            try reportedError("Fixtures/ota-errors.xml", parser)?.description
                == "the service reported an error: 392 Invalid hotel city code (//Errors/Error); 1 more error")
    }

    @Test("an error signalled by a value: TBO's StatusCode is an error unless it is 01; Amadeus's error code with its text")
    func valueTest() throws {
        let tbo = try withError(
            #"{"path": "//Status/StatusCode", "unless": "01", "message": ["//Status/StatusCode", "//Status/Description"]}"#)
        #expect(
            try reportedError("Real/tbo/HotelCancelResponse-status-05.xml", tbo)
                == ServiceReportedError(message: "05 ProcessingErr: No Itinerary exist for this input", path: "//Status/StatusCode"))
        let success = Data(
            try String(contentsOf: Samples.url("Real/tbo/HotelCancelResponse-status-05.xml"), encoding: .utf8)
                .replacingOccurrences(of: "<StatusCode>05</StatusCode>", with: "<StatusCode>01</StatusCode>").utf8)
        #expect(try tbo.parse(bytes: Array(success)).hotels.isEmpty)  // no error thrown
        // "authentication" names the values that mean a refused login: 05 is not one of them, 02 is.
        let login = try withError(#"{"path": "//Status/StatusCode", "unless": "01", "authentication": ["02"]}"#)
        #expect(try reportedError("Real/tbo/HotelCancelResponse-status-05.xml", login)?.isAuthentication == false)
        let refused = Data(
            try String(contentsOf: Samples.url("Real/tbo/HotelCancelResponse-status-05.xml"), encoding: .utf8)
                .replacingOccurrences(of: "<StatusCode>05</StatusCode>", with: "<StatusCode>02</StatusCode>").utf8)
        #expect(throws: ServiceReportedError(message: "02", path: "//Status/StatusCode", isAuthentication: true)) {
            try login.parse(bytes: Array(refused))
        }
        let amadeus = try withError(
            #"{"path": "//errorDetails/errorCode", "message": ["//errorDetails/errorCode", "//errorDescription/freeText"]}"#)
        #expect(
            try reportedError("Real/amadeus/Offer_ConfirmHotelOfferReply-error.xml", amadeus)?.message
                == "03659 CREDIT CARD DEPOSIT REQUIRED")
        #expect(try reportedError("Real/amadeus/Offer_ConfirmHotelOfferReply-ok.xml", amadeus) == nil)
    }

    @Test(
        "ota-search on Concur's documented search response: the voice number, chain, award, postal code, city, country and GIATA id; the street alone is the address"
    )
    func otaSearchFields() throws {
        let page = try parse("concur/OTA_HotelSearchRS-appendix-stub-property.xml", profile: "ota-search")
        let hotel = try #require(page.hotels.first)
        #expect(page.hotels.count == 1 && hotel.code == "22222")
        #expect(hotel.phone == "+14255551234")
        #expect(hotel.chainCode == "HI")
        #expect(hotel.rating == 4)
        #expect(hotel.postalCode == "98009")
        #expect(hotel.city == "Bellevue")
        #expect(hotel.countryCode == "US")
        #expect(hotel.references == ["giata": "1376249"])
        #expect(hotel.address == "99 East 27th Street")
        // The second Property has no code: skipped, the one warning.
        #expect(page.warnings.count == 1 && page.warnings.first?.field == nil)
    }

    @Test("concur-style reads Concur's documented search response and the extensions' Address and Phone Descriptions alike")
    func concurStyle() throws {
        let profile = "Samples/Profiles/concur-style.json"
        let documented = try #require(try parse("concur/OTA_HotelSearchRS-appendix-stub-property.xml", profile: profile).hotels.first)
        #expect(documented.address == "99 East 27th Street" && documented.phone == "+14255551234" && documented.city == "Bellevue")
        #expect(documented.chainCode == "HI" && documented.rating == 4 && documented.references == ["giata": "1376249"])
        let extensions = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><OTA_HotelSearchRS xmlns="http://www.opentravel.org/OTA/2003/05">\
            <Success/><Properties><Property HotelCode="SEA001" HotelName="Hotel SEA001"><Position Latitude="47.6" Longitude="-122.3"/><TPA_Extensions>\
            <Description Name="Phone"><Text>+1 206 555 0100</Text></Description><Description Name="Address"><Text>1 Pike St, Seattle, WA 98100</Text></Description>\
            </TPA_Extensions></Property></Properties></OTA_HotelSearchRS></soap:Body></soap:Envelope>
            """
        let parser = HotelResponseParser(profile: try .named(Samples.profileArgument(profile)))
        let described = try #require(try parser.parse(bytes: Array(extensions.utf8)).hotels.first)
        #expect(described.address == "1 Pike St, Seattle, WA 98100" && described.phone == "+1 206 555 0100")
        #expect(described.city == nil && described.chainCode == nil && described.references == nil)
    }

    @Test("Travelport: the address over three PropertyAddress/Address elements, joined; the cursor that comes before the records")
    func travelport() throws {
        let parser = HotelResponseParser(profile: try .named(Samples.profileArgument("Samples/Real/profiles/travelport-hotel-search.json")))
        var lines: [UInt8] = []
        let bytes = Array(try Data(contentsOf: Samples.url("Real/travelport/HotelSearchAvailabilityRsp-london.xml")))
        let page = try parser.parse(bytes: bytes)
        page.hotels.forEach { HotelJSONLines.append($0, to: &lines) }
        let expected = try Data(contentsOf: Samples.url("Real/expected/travelport-HotelSearchAvailabilityRsp-london.jsonl"))
        #expect(String(decoding: lines, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(page.hotels.first?.address == "49 Queensborough Terrace, London, W2 3SY")
        #expect(page.nextCursor?.hasPrefix("H4sIAAAA") == true && page.nextCursorAttributes == ["ProviderCode": "TRM"])
        // The next request echoes the reference with the provider that issued it.
        var pager = Pager(paging: parser.profile.paging, pageSize: 10)
        pager.received(page)
        let next = try #require(pager.nextRequest(city: "LON"))
        let body = String(decoding: try parser.profile.request(to: "http://h.test/", next).body ?? [], as: UTF8.self)
        #expect(body.contains(#"<com:NextResultReference ProviderCode="TRM">H4sIAAAA"#))
    }
}

@Suite("Joined fields")
struct JoinedFieldTests {
    static let response = """
        <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><R>
        <Property HotelCode="A1"><Address><AddressLine>1 Main St</AddressLine><AddressLine>Floor 2</AddressLine>
        <CityName>Springfield</CityName><PostalCode> </PostalCode><CountryName Code="US">United States</CountryName></Address></Property>
        <Property HotelCode="A2"><Address><CityName>Shelbyville</CityName></Address></Property>
        <Property HotelCode="A3"/>
        </R></soap:Body></soap:Envelope>
        """

    func parse(_ address: String) throws -> [String?] {
        let json =
            #"{"name": "t", "body": "<Q>{cursor}</Q>", "record": "Property", "fields": {"code": "@HotelCode", "address": \#(address)}, "paging": {"style": "cursor", "next": "//Next"}}"#
        let parser = HotelResponseParser(profile: try ServiceProfile(json: Data(json.utf8), source: "test"))
        return try parser.parse(bytes: Array(Self.response.utf8)).hotels.map(\.address)
    }

    @Test("every match of each path, in the paths' order, empty parts left out, attributes and elements mixed")
    func joins() throws {
        #expect(
            try parse(#"{"join": ["Address/AddressLine", "Address/CityName", "Address/PostalCode", "Address/CountryName/@Code"]}"#)
                == ["1 Main St, Floor 2, Springfield, US", "Shelbyville", nil])
        // The paths' order, not the document's.
        #expect(
            try parse(#"{"join": ["Address/CountryName/@Code", "Address/CityName"], "separator": " / "}"#)
                == ["US / Springfield", "Shelbyville", nil])
        // A plain path takes the first match only.
        #expect(try parse(#""Address/AddressLine""#) == ["1 Main St", nil, nil])
    }

    @Test("a join is refused with its key when it is empty, names a bad path, or shares a path with another join")
    func refusals() throws {
        for (fields, key) in [
            (#"{"code": "@HotelCode", "address": {"join": []}}"#, "fields.address.join"),
            (#"{"code": "@HotelCode", "address": {"join": ["Address//City"]}}"#, "fields.address.join[0]"),
            (#"{"code": "@HotelCode", "address": {"join": ["A"], "sep": ","}}"#, "fields.address.sep"),
            (#"{"code": "@HotelCode", "address": {"join": ["A"]}, "name": {"join": ["A"]}}"#, "fields.name"),
            (#"{"code": {"join": ["@HotelCode"]}}"#, "fields.code"),
        ] {
            let json =
                #"{"name": "t", "body": "<Q>{cursor}</Q>", "record": "Property", "fields": \#(fields), "paging": {"style": "cursor", "next": "//Next"}}"#
            #expect(throws: ProfileError.self) { try ServiceProfile(json: Data(json.utf8), source: "test") }
            do { _ = try ServiceProfile(json: Data(json.utf8), source: "test") } catch { #expect(error.key == key, "\(fields)") }
        }
    }
}

@Suite("Empty results")
struct EmptyResultTests {
    func summary(_ path: String, profile: String) throws -> ParseSummary {
        let session = try HotelResponseParser(profile: .named(Samples.profileArgument(profile))).session(onRecord: { _ in })
        try session.feed(Array(Data(contentsOf: Samples.url(path))))
        return try session.finish()
    }

    /// A regression: the wrong profile on a full response gave no records and no word of why.
    @Test("no record but a repeated element: say what the body repeats, and suggest the OTA profile for an OTA payload")
    func hints() throws {
        #expect(
            try summary("Fixtures/ota-search.xml", profile: "sample").noRecordsHint
                == #"no <Hotel> records; the body repeats <Property> ×3 and <Position> ×3: try the built-in profile ota-search (this is an OpenTravel <OTA_HotelSearchRS>), or "record": "Property""#
        )
        #expect(
            try summary("Real/travelport/HotelSearchAvailabilityRsp-london.xml", profile: "Samples/Profiles/ota-plain-xml.json")
                .noRecordsHint?
                .hasPrefix("no <Property> records; the body repeats <HotelSearchResult> ×10") == true)
        // Another OTA payload: the built-in ota-search (OTA_HotelSearchRS only) would not read it either.
        let avail = try #require(try summary("Real/concur/OTA_HotelAvailRS-multi-property.xml", profile: "sample").noRecordsHint)
        #expect(avail.hasPrefix("no <Hotel> records; the body repeats <RoomStay> ×4") && !avail.contains("ota-search"), "\(avail)")
    }

    @Test("an empty list, or one with records, gives no hint")
    func quiet() throws {
        #expect(try summary("Fixtures/sample-empty.xml", profile: "sample").noRecordsHint == nil)
        #expect(try summary("Fixtures/sample-soap11.xml", profile: "sample").noRecordsHint == nil)
    }
}

@Suite("Header values")
struct HeaderValueTests {
    func profile(header: String, paging: String = "") throws -> ServiceProfile {
        let json =
            #"{"name": "h", "envelope": "auto", "body": "<Q>{cursor}</Q>", "record": "Hotel", "fields": {"code": "@Code"}, "header": \#(header)\#(paging)}"#
        return try ServiceProfile(json: Data(json.utf8), source: "test")
    }

    @Test("values are read from the SOAP Header into the page's metadata (TBO's WS-Addressing Action)")
    func tbo() throws {
        let profile = try profile(header: #"{"action": "//Action"}"#)
        let session = try HotelResponseParser(profile: profile).session(onRecord: { _ in })
        try session.feed(Array(Data(contentsOf: Samples.url("Real/tbo/HotelCancelResponse-status-05.xml"))))
        #expect(try session.finish().headerValues == ["action": "http://TekTravel/HotelBookingApi/IHotelService/HotelCancelResponse"])
    }

    @Test("two names may read the same element's text, and an element inside one being read")
    func sameElement() throws {
        let profile = try profile(
            header: #"{"token": "//Session/Token", "alsoToken": "//Token", "session": "//Session", "id": "//Session/@Id"}"#)
        let response = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><x:Session xmlns:x="urn:x" Id="S1">\
            <x:Token>T-42</x:Token></x:Session></soap:Header><soap:Body><R><Hotel Code="A"/></R></soap:Body></soap:Envelope>
            """
        let page = try HotelResponseParser(profile: profile).parse(bytes: Array(response.utf8))
        #expect(page.headerValues == ["token": "T-42", "alsoToken": "T-42", "session": "T-42", "id": "S1"])
    }

    @Test("a cursor can come from the Header; attributes too; the Body's elements of the same name are not the Header's")
    func headerCursor() throws {
        let profile = try profile(
            header: #"{"token": "//Session/Token", "sequence": "//Session/@Seq"}"#,
            paging: #", "paging": {"style": "cursor", "next": "header:token"}"#)
        let response = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><x:Session xmlns:x="urn:x" Seq="7">\
            <x:Token> T-42 </x:Token></x:Session></soap:Header><soap:Body><R><Hotel Code="A"/><Session><Token>decoy</Token></Session></R></soap:Body></soap:Envelope>
            """
        let page = try HotelResponseParser(profile: profile).parse(bytes: Array(response.utf8))
        #expect(page.headerValues == ["token": "T-42", "sequence": "7"])
        #expect(page.nextCursor == "T-42")
        #expect(throws: ProfileError.self) {
            try self.profile(header: #"{"token": "//T"}"#, paging: #", "paging": {"style": "cursor", "next": "header:other"}"#)
        }
    }
}

@Suite("Ancestor paths")
struct AncestorPathTests {
    func parse(_ fields: String) throws -> [Hotel] {
        let json = #"{"name": "d", "envelope": "none", "body": "<Q>{city}</Q>", "record": "HotelDescriptiveContent", "fields": \#(fields)}"#
        let parser = HotelResponseParser(profile: try ServiceProfile(json: Data(json.utf8), source: "test"))
        return try parser.parse(bytes: Samples.fixture("ota-descriptive-parent-code.xml")).hotels
    }

    @Test("../@HotelCode takes the code from the enclosing element; the record's own attribute is not an ancestor's")
    func parentCode() throws {
        let hotels = try parse(#"{"code": "../@HotelCode", "name": "../@HotelName", "latitude": "HotelInfo/Position/@Latitude"}"#)
        #expect(hotels.map(\.code) == ["msynh", "bosmc"])
        #expect(hotels.map(\.name) == ["Marriott Syracuse", "Boston Marriott Copley Place"])
        #expect(hotels.map(\.latitude) == [43.0481, 42.3473])
        #expect(try parse(#"{"code": "../@HotelCode", "name": "@HotelName"}"#).map(\.name) == [nil, "Copley Place (own name)"])
        // Two levels up there is no HotelCode: the records have no code and are skipped.
        #expect(try parse(#"{"code": "../../@HotelCode"}"#).isEmpty)
    }

    @Test("a record after the response's error is not delivered (TBO's Status comes before BookingId)")
    func noRecordAfterError() throws {
        let parser = HotelResponseParser(profile: try .named(Samples.url("Real/profiles/tbo-hotel-cancel.json").path))
        var delivered = 0
        let session = try parser.session(onRecord: { _ in delivered += 1 })
        let bytes = Array(try Data(contentsOf: Samples.url("Real/tbo/HotelCancelResponse-status-05.xml")))
        #expect(throws: ServiceReportedError.self) {
            try session.feed(bytes)
            _ = try session.finish()
        }
        #expect(delivered == 0)
    }

    @Test("an addtime with no zone is UTC: OTA's LastUpdated=\"2002-07-15T01:00:00\"")
    func zonelessTime() throws {
        let json = #"{"name": "z", "envelope": "none", "body": "<Q>{city}</Q>", "record": "H", "fields": {"code": "@C", "addtime": "@T"}}"#
        let parser = HotelResponseParser(profile: try ServiceProfile(json: Data(json.utf8), source: "test"))
        let page = try parser.parse(
            bytes: Array(
                #"<R><H C="a" T="2002-07-15T01:00:00"/><H C="b" T="2002-07-15T01:00:00.5"/><H C="c" T="2002-07-15"/><H C="d" T="15/07/2002"/></R>"#
                    .utf8))
        #expect(page.hotels.map(\.addtime) == [1_026_694_800, 1_026_694_800, 1_026_691_200, nil])
        #expect(page.warnings.map(\.description).last?.contains("neither Unix seconds nor an ISO 8601 date or time") == true)
    }

    @Test("a climbing path names an attribute, and is no part of a join")
    func refusals() throws {
        #expect(throws: PathSyntaxError.self) { try FieldPath(parsing: "../Name") }
        #expect(throws: PathSyntaxError.self) { try FieldPath(parsing: "../@A/B") }
        #expect(try FieldPath(parsing: "../../@HotelCode").description == "../../@HotelCode")
        #expect(throws: ProfileError.self) { try parse(#"{"code": "../@HotelCode", "address": {"join": ["../@City"]}}"#) }
    }
}

@Suite("Document paths at the first element")
struct FirstElementPathTests {
    /// A regression: the first element's parent progress was read from before
    /// the stack's memory, and a chained path could crash or match at random.
    @Test("a chained path that starts at the payload's root matches, and one that does not is not matched")
    func rootStartsAPath() throws {
        let json =
            #"{"name": "e", "envelope": "none", "body": "<Q>{city}</Q>", "record": "Hotel", "fields": {"code": "@Code"}, "error": {"path": "//Errors/Error", "message": ["//Errors/Error/@Code", "//Errors/Error/@ShortText"]}}"#
        let parser = HotelResponseParser(profile: try ServiceProfile(json: Data(json.utf8), source: "test"))
        for _ in 0..<200 {
            #expect(throws: ServiceReportedError(message: "15 Busy", path: "//Errors/Error")) {
                try parser.parse(bytes: Array(#"<Errors><Error Code="15" ShortText="Busy"/></Errors>"#.utf8))
            }
            #expect(try parser.parse(bytes: Array(#"<Error Code="15"><Hotel Code="A"/></Error>"#.utf8)).hotels.count == 1)
        }
    }
}
