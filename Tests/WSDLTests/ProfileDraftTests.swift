import Foundation
import Hotels
import SOAP
import TestSupport
import Testing

@testable import WSDL

@Suite("Profiles from WSDLs")
struct ProfileDraftTests {
    /// A real WSDL of `Samples/Real/wsdl`, described.
    func real(_ path: String) async throws -> ServiceDescription {
        var options = WSDLLoader.Options(cacheFolder: nil)
        options.offline = true
        options.localRoot = Samples.root.path
        return ServiceDescription(try await WSDLLoader(options: options).load(Samples.url("Real/wsdl/\(path)").path))
    }

    @Test(
        "Apache CXF's wsdl_first sample: both operations listed; a profile for getCustomersByName loads, its record guessed from the schema"
    )
    func cxf() async throws {
        let description = try await real("cxf/CustomerService.wsdl")
        #expect(description.operations.map(\.name) == ["updateCustomer", "getCustomersByName"])
        #expect(description.endpoint(of: "CustomerServiceServiceSoapBinding") == "http://localhost:9090/CustomerServicePort")
        let draft = try ProfileDrafter(description: description).draft(operation: "getCustomersByName")
        #expect(draft.profile.record == "return")
        #expect(draft.profile.fields[.code] == FieldPath(elements: ["customerId"]))
        #expect(draft.profile.fields[.name] == FieldPath(elements: ["name"]))
        // The request: the wrapper in its namespace, its optional child unqualified (elementFormDefault="unqualified") and left out.
        #expect(
            draft.profile.body.text == #"<n1:getCustomersByName xmlns:n1="http://customerservice.example.com/"></n1:getCustomersByName>"#)
        #expect(draft.profile.notes.contains { $0.contains("getCustomersByName: optional, left out: name") })
        #expect(draft.profile.soapAction == "")
    }

    @Test("a .NET ASMX service (the Kunlun PMS security service): operations, SOAPActions and the declared header slot")
    func asmx() async throws {
        let description = try await real("asmx/SecurityService.wsdl")
        #expect(description.operations.map(\.name) == ["AppLogin", "AppLoginOut", "AppModifyPw"])
        let logout = try description.operation(named: "AppLoginOut")
        #expect(logout.soapAction == "http://www.shijinet.com.cn/kunlun/kws/1.1/AppLoginOut")
        #expect(logout.inputHeaders == [QualifiedName(namespace: "http://www.shijinet.com.cn/kunlun/kws/1.1/", name: "KwsSoapHeader")])
        let draft = try ProfileDrafter(description: description).draft(operation: "AppLoginOut")
        #expect(draft.profile.soapHeader?.text.contains("KwsSoapHeader") == true)
        // A boolean reply holds no hotels: the profile has no record to invent, loads, and says so.
        #expect(draft.profile.record == nil && draft.profile.fields.isEmpty)
        #expect(draft.profile.notes.contains { $0.contains("returns no hotels") && $0.contains("--sample") })
        let login = try ProfileDrafter(description: description).draft(operation: "AppLogin")
        #expect(login.profile.credentialNames == ["SECURITYSERVICE_USERNAME", "SECURITYSERVICE_PASSWORD"])
    }

    @Test(
        "a hotel PMS's availability service (.NET ASMX, 27 operations): the paged search gets page paging, dates with a time, the header slot and the hotel fields"
    )
    func asmxAvailability() async throws {
        let description = try await real("asmx/AvailabilityService.wsdl")
        #expect(description.operations.count == 27)
        #expect(try description.operation(named: "GetEcryption").inputHeaders.isEmpty)
        let draft = try ProfileDrafter(description: description).draft(operation: "GetAvailabilityListPerPage")
        let profile = draft.profile
        #expect(profile.soapAction == "http://www.shijinet.com.cn/kunlun/kws/1.1/GetAvailabilityListPerPage")
        // `currentPage` is the page number, and the dates are xs:dateTime.
        #expect(profile.body.text.contains("<n1:currentPage>{page}</n1:currentPage>"))
        #expect(profile.body.text.contains("<n1:pageSize>{pageSize}</n1:pageSize>"))
        #expect(profile.body.text.contains("<n1:arrival>{today+30}T00:00:00</n1:arrival>"))
        #expect(profile.body.text.contains("<n1:departure>{today+31}T00:00:00</n1:departure>"))
        #expect(profile.soapHeader?.text.contains("KwsSoapHeader") == true)
        #expect(profile.record == "Availability")
        #expect(profile.fields[.code] == FieldPath(elements: ["HotelInfo", "Code"]))
        #expect(profile.fields[.name] == FieldPath(elements: ["HotelInfo", "Name"]))
        // Kunlun calls the hotel's picture `PicPath`.
        #expect(profile.fields[.logoURL] == FieldPath(elements: ["HotelInfo", "PicPath"]))
        #expect(profile.paging == .page(first: 1))
        // Its HotelInfoSummary has the phone, the stars, the postcode and the city as elements, and the country as a code and name.
        #expect(profile.fields[.address] == FieldPath(elements: ["HotelInfo", "Address"]))
        #expect(profile.fields[.phone] == FieldPath(elements: ["HotelInfo", "Phone"]))
        #expect(profile.fields[.rating] == FieldPath(elements: ["HotelInfo", "Stars"]))
        #expect(profile.fields[.postalCode] == FieldPath(elements: ["HotelInfo", "PostCode"]))
        #expect(profile.fields[.city] == FieldPath(elements: ["HotelInfo", "CityName"]))
        #expect(profile.fields[.countryCode] == FieldPath(elements: ["HotelInfo", "Country", "code"]))
        #expect(profile.fields[.chainCode] == nil && profile.references.isEmpty)
        #expect(profile.notes.contains("fields.countryCode = HotelInfo/Country/code: named “code” in <Country>"))
        #expect(profile.notes.contains("fields not found: latitude, longitude, addtime, chainCode"))
    }

    @Test("a .NET ASMX service with SOAP 1.1 and 1.2 bindings (a car-rental currency converter): the header on each, a profile per version")
    func asmxBothBindings() async throws {
        let description = try await real("asmx/CurrencyConverterWS.wsdl")
        #expect(description.bindings.map(\.soapVersion) == [.v1_1, .v1_2])
        for version in [SOAPVersion.v1_1, .v1_2] {
            let operation = try description.operation(named: "ConvertCurrency", version: version)
            #expect(operation.binding == (version == .v1_1 ? "TestService" : "TestService1"))
            #expect(operation.soapAction == "http://tempuri.org/ConvertCurrency")
            #expect(operation.inputHeaders == [QualifiedName(namespace: "http://tempuri.org/", name: "UserCredentials")])
            let draft = try ProfileDrafter(description: description).draft(operation: "ConvertCurrency", version: version)
            #expect(draft.profile.soapVersion == version)
            #expect(draft.endpoint == "https://currencyconvertercarrental.azurewebsites.net/CurrencyConverterWS.asmx")
            #expect(draft.profile.soapHeader?.text.contains("UserCredentials") == true)
            // The one required child, a decimal, filled; the optional currency codes left out and listed.
            #expect(
                draft.profile.body.text
                    == #"<n1:ConvertCurrency xmlns:n1="http://tempuri.org/"><n1:amount>1</n1:amount></n1:ConvertCurrency>"#)
            #expect(draft.profile.notes.contains { $0.contains("optional, left out: from, to") })
        }
    }

    /// Copies each file a Visual Studio service reference's Reference.svcmap lists (and
    /// the folder holds) to the WSDL cache file of its SourceUrl; how many it copied.
    func vendor(_ set: URL, into cache: URL) throws -> Int {
        let map = try String(contentsOf: set.appendingPathComponent("Reference.svcmap"), encoding: .utf8)
        var vendored = 0
        for match in map.matches(of: #/FileName="([^"]+)"[^>]*SourceUrl="([^"]+)"/#) {
            let file = set.appendingPathComponent(String(match.1))
            guard FileManager.default.fileExists(atPath: file.path), let url = URL(string: String(match.2)) else { continue }
            let cached = cache.appendingPathComponent(WSDLLoader.cachePath(for: url))
            try FileManager.default.createDirectory(at: cached.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: cached)
            vendored += 1
        }
        return vendored
    }

    /// A Visual Studio service reference's set, vendored into a cache and loaded offline. The
    /// set lacks `missing` (Microsoft's standard Serialization schema, which no WCF set in the
    /// index holds): the first load names it, and the second has an empty stand-in written here
    /// (no part of these services uses its types).
    func loadServiceReference(_ folder: String, vendored: Int, wsdl: String, missing: String) async throws -> WSDLDocumentSet {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("wcf-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        #expect(try vendor(Samples.url("Real/wsdl/wcf/\(folder)"), into: cache) == vendored)
        var options = WSDLLoader.Options(cacheFolder: cache.path)
        options.offline = true
        await #expect(throws: WSDLError.notCached(document: missing)) {
            _ = try await WSDLLoader(options: options).load(wsdl)
        }
        let standIn = cache.appendingPathComponent(WSDLLoader.cachePath(for: try #require(URL(string: missing))))
        try Data(
            #"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://schemas.microsoft.com/2003/10/Serialization/"/>"#
                .utf8
        )
        .write(to: standIn)
        return try await WSDLLoader(options: options).load(wsdl)
    }

    @Test(
        "a real WCF set (senjayaip/wcf: ?wsdl and ?xsd=xsd0…3, schemas importing each other in a loop), vendored into the cache as its Reference.svcmap maps it"
    )
    func wcfSet() async throws {
        let loaded = try await loadServiceReference(
            "senjayaip-service1", vendored: 4, wsdl: "http://localhost:53068/Service1.svc?wsdl",
            missing: "http://localhost:53068/Service1.svc?xsd=xsd1")
        #expect(loaded.documents.count == 5 && loaded.fetched == 0)
        let description = ServiceDescription(loaded)
        #expect(description.operations.map(\.name) == ["GetData"])
        let operation = try description.operation(named: "GetData")
        #expect(operation.soapVersion == .v1_1 && operation.soapAction == "http://tempuri.org/IService1/GetData")
        #expect(description.endpoint(of: "BasicHttpBinding_IService1") == "http://localhost:53068/Service1.svc")
        let draft = try ProfileDrafter(description: description).draft(operation: "GetData")
        #expect(draft.profile.soapAction == "http://tempuri.org/IService1/GetData")
        #expect(draft.profile.body.text.contains("GetData") && draft.profile.body.text.contains("http://tempuri.org/"))
        _ = try ServiceProfile(json: Data(draft.json.utf8), source: "wcf-draft.json")
    }

    @Test(
        "a real WCF set with a second WSDL (gpeshans/RecordsCollector: ?wsdl imports ?wsdl=wsdl0, which imports ?xsd=xsd0…2), SOAP 1.2 with binary encoding"
    )
    func wcfSetWithSecondWSDL() async throws {
        let wsdl = "http://recorder.apphb.com/DataBaseAccessService.svc?wsdl"
        let loaded = try await loadServiceReference(
            "recordscollector", vendored: 5, wsdl: wsdl,
            missing: "http://recorder.apphb.com/DataBaseAccessService.svc?xsd=xsd1")
        // Depth first: xsd0 imports xsd2.
        #expect(
            loaded.documents.map(\.name) == [wsdl, wsdl + "=wsdl0"]
                + [0, 2, 1].map { "http://recorder.apphb.com/DataBaseAccessService.svc?xsd=xsd\($0)" })
        let description = ServiceDescription(loaded)
        #expect(
            description.operations.map(\.name) == [
                "LoadNameData", "UpdateNames", "LoadNumberData", "UpdateNumbers", "CountNamesRecords", "CountNumbersRecords",
            ])
        let operation = try description.operation(named: "LoadNameData")
        #expect(operation.soapVersion == .v1_2 && operation.soapAction == "NamesService/DataBaseAccessService/LoadNameData")
        #expect(operation.input.first?.element == QualifiedName(namespace: "NamesService", name: "LoadNameData"))
        #expect(description.problems.isEmpty)
        #expect(description.policies.addressing && description.policies.binaryEncoding)
        let draft = try ProfileDrafter(description: description).draft(operation: "LoadNameData")
        #expect(draft.profile.soapVersion == .v1_2 && draft.profile.addressing != nil)
        // Its custom binding encodes messages as .NET Binary XML: the profile says so, since no text request will be understood.
        #expect(draft.profile.notes.contains { $0.hasPrefix("encoding: the policy asks for WCF's binary message encoding") })
        _ = try ServiceProfile(json: Data(draft.json.utf8), source: "wcf-draft.json")
    }

    @Test(
        "a real Axis 1 rpc/encoded WSDL (AstroGrid's AxisDataServer): anyType and Axis Element parts are open, overloads are told apart, init asks for a recorded response"
    )
    func axisAnyType() async throws {
        let description = try await real("axis/AxisDataServer.wsdl")
        #expect(
            description.operations.map(\.name) == [
                "getStatus", "getMetadata", "getMetadata", "getVoRegistryMetadata", "doQuery", "makeQuery",
                "startQuery", "getResultsAndClose", "abortQuery", "registerWebListener",
            ])
        // The overloaded getMetadata: the second binds getMetadataRequest1/getMetadataResponse1, not the first's messages.
        let overloads = description.operations.filter { $0.name == "getMetadata" }
        #expect(overloads.map { $0.input.map(\.name) } == [[], ["xpathExpression"]])
        #expect(overloads.map { $0.output.first?.type?.name } == ["Element", "anyType"])
        let status = try description.operation(named: "getStatus")
        #expect(status.style == "rpc" && status.use == "encoded" && status.soapAction.isEmpty)
        #expect(try #require(description.bodyShape(of: status, output: false)).children.first?.isOpen == true)
        let draft = try ProfileDrafter(description: description).draft(operation: "doQuery")
        #expect(
            draft.profile.body.text
                == #"<n1:doQuery xmlns:n1="http://localhost:8080/axis/services/AxisDataServer"><soapBody></soapBody></n1:doQuery>"#)
        #expect(draft.profile.notes.contains { $0.hasPrefix("request: doQuery/soapBody: the schema says nothing of its content") })
        #expect(draft.profile.notes.contains { $0.contains("it says anyType") && $0.contains("--sample") })
    }

    @Test("an OpenTravel WSDL whose schemas live on opentravel.org: the import is refused by host, then named as not cached")
    func openTravelRemoteSchemas() async throws {
        var options = WSDLLoader.Options(cacheFolder: nil)
        options.localRoot = Samples.root.path
        options.offline = true
        let wsdl = Samples.url("Real/wsdl/ota-jibx/hotel.wsdl").path
        await #expect(
            throws: WSDLError.hostNotAllowed(
                document: "http://www.opentravel.org/2014B/OTA_HotelResRQ.xsd",
                referrer: WSDLLoader.displayName(of: URL(fileURLWithPath: wsdl).absoluteString),
                host: "www.opentravel.org")
        ) {
            _ = try await WSDLLoader(options: options).load(wsdl)
        }
        options.allowedHosts = ["www.opentravel.org"]
        await #expect(throws: WSDLError.notCached(document: "http://www.opentravel.org/2014B/OTA_HotelResRQ.xsd")) {
            _ = try await WSDLLoader(options: options).load(wsdl)
        }
    }

    @Test("the sample service's WSDL gives the built-in sample profile's request, record, fields and paging")
    func sampleService() async throws {
        let (set, endpoint) = try await Self.servedSampleSet()
        let draft = try ProfileDrafter(description: ServiceDescription(set)).draft(operation: "QueryHotels")
        let builtIn = try ServiceProfile.named("sample")
        #expect(draft.profile.fields == builtIn.fields)
        #expect(draft.profile.joins == builtIn.joins)
        // Its repeated <reference catalog="…">code</reference>: the catalogue an attribute, the code the text.
        #expect(draft.profile.references == builtIn.references)
        #expect(draft.profile.record == builtIn.record)
        #expect(draft.profile.paging == builtIn.paging)
        #expect(draft.profile.endMarker == builtIn.endMarker)
        #expect(draft.profile.soapAction == builtIn.soapAction)
        #expect(draft.endpoint == endpoint)
        let soap12 = try ProfileDrafter(description: ServiceDescription(set)).draft(operation: "QueryHotels", version: .v1_2)
        #expect(soap12.profile.soapVersion == .v1_2)
    }

    @Test("OpenTravel search in a schema: attributes as placeholders, the echo token as cursor, Errors as the error path")
    func openTravelSearchSchema() throws {
        let schema = Documents.schema(
            #"""
            <xs:element name="SearchRQ"><xs:complexType><xs:sequence>
              <xs:element name="Criteria"><xs:complexType><xs:sequence><xs:element name="Criterion" maxOccurs="unbounded"><xs:complexType><xs:sequence>
                <xs:element name="HotelRef" minOccurs="0"><xs:complexType><xs:attribute name="HotelCityCode"/><xs:attribute name="ChainCode"/></xs:complexType></xs:element>
              </xs:sequence></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element>
            </xs:sequence><xs:attribute name="Version" type="xs:decimal" use="required"/><xs:attribute name="MaxResponses" type="xs:positiveInteger"/>
              <xs:attribute name="MoreDataEchoToken" type="xs:string"/></xs:complexType></xs:element>
            <xs:element name="SearchRS"><xs:complexType><xs:choice>
              <xs:sequence><xs:element name="Success"/><xs:element name="Properties"><xs:complexType><xs:sequence>
                <xs:element name="Property" maxOccurs="unbounded"><xs:complexType><xs:sequence>
                  <xs:element name="Position" minOccurs="0"><xs:complexType><xs:attribute name="Latitude"/><xs:attribute name="Longitude"/></xs:complexType></xs:element>
                  <xs:element name="Address" minOccurs="0"><xs:complexType><xs:sequence><xs:element name="AddressLine" maxOccurs="5" type="xs:string"/>
                    <xs:element name="CityName" type="xs:string"/></xs:sequence></xs:complexType></xs:element>
                </xs:sequence><xs:attribute name="HotelCode"/><xs:attribute name="HotelName"/></xs:complexType></xs:element>
              </xs:sequence><xs:attribute name="MoreDataEchoToken"/></xs:complexType></xs:element></xs:sequence>
              <xs:element name="Errors"><xs:complexType><xs:sequence><xs:element name="Error" maxOccurs="unbounded"><xs:complexType>
                <xs:attribute name="ShortText"/></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element>
            </xs:choice></xs:complexType></xs:element>
            """#)
        let root = try XMLTreeElement.parse(Array(Documents.wsdl(body: Documents.searchOperation).utf8), limits: XMLReaderLimits())
        let types = try XMLTreeElement.parse(Array(schema.utf8), limits: XMLReaderLimits())
        let set = WSDLDocumentSet(documents: [
            LoadedDocument(url: "file:///test.wsdl", name: "test.wsdl", root: root, origin: .file, bytes: 0),
            LoadedDocument(url: "file:///test.xsd", name: "test.xsd", root: types, origin: .file, bytes: 0),
        ])
        let profile = try ProfileDrafter(description: ServiceDescription(set)).draft(operation: "Search").profile
        #expect(profile.body.text.contains(#"MaxResponses="{pageSize}""#))
        #expect(profile.body.text.contains(#"MoreDataEchoToken="{cursor}""#))
        #expect(profile.body.text.contains(#"Version="1""#))
        #expect(profile.body.text.contains(#"<n1:HotelRef HotelCityCode="{city}"></n1:HotelRef>"#))
        #expect(profile.record == "Property")
        #expect(profile.fields[.code] == FieldPath(elements: [], attribute: "HotelCode"))
        #expect(profile.fields[.latitude] == FieldPath(elements: ["Position"], attribute: "Latitude"))
        // The street lines (AddressLine repeats: a join takes them all); the city is a field of its own.
        #expect(profile.joins[.address]?.paths == [FieldPath(elements: ["Address", "AddressLine"])])
        #expect(profile.fields[.city] == FieldPath(elements: ["Address", "CityName"]))
        #expect(profile.paging == .cursor(.document(try DocumentPath(parsing: "//Properties/@MoreDataEchoToken"))))
        #expect(profile.error?.path == (try DocumentPath(parsing: "//Errors/Error/@ShortText")))
        #expect(profile.notes.contains { $0.contains("optional, left out: @ChainCode") })
    }

    /// A described set of one WSDL with the search operation and one schema.
    func describe(schema: String, operation: String = Documents.searchOperation) throws -> ServiceDescription {
        let root = try XMLTreeElement.parse(Array(Documents.wsdl(body: operation).utf8), limits: XMLReaderLimits())
        let types = try XMLTreeElement.parse(Array(schema.utf8), limits: XMLReaderLimits())
        return ServiceDescription(
            WSDLDocumentSet(documents: [
                LoadedDocument(url: "file:///test.wsdl", name: "test.wsdl", root: root, origin: .file, bytes: 0),
                LoadedDocument(url: "file:///test.xsd", name: "test.xsd", root: types, origin: .file, bytes: 0),
            ]))
    }

    @Test("each placeholder goes to one place, the best-named and shallowest; a phone's area code and a GDS office are not the city")
    func onePlacePerPlaceholder() throws {
        // The shape of OTA_HotelAvailRQ: city-like and size-like names in a customer profile, a phone, a car preference.
        let schema = Documents.schema(
            #"""
            <xs:complexType name="Address"><xs:sequence><xs:element name="CityName" type="xs:string" minOccurs="0"/></xs:sequence></xs:complexType>
            <xs:complexType name="Phone"><xs:attribute name="AreaCityCode"/><xs:attribute name="PhoneNumber" use="required"/></xs:complexType>
            <xs:element name="SearchRQ"><xs:complexType><xs:sequence>
              <xs:element name="POS" minOccurs="0"><xs:complexType><xs:sequence><xs:element name="Source"><xs:complexType>
                <xs:attribute name="PseudoCityCode"/></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element>
              <xs:element name="Segment"><xs:complexType><xs:sequence>
                <xs:element name="StayDateRange" minOccurs="0"><xs:complexType><xs:choice>
                  <xs:element name="DateWindowRange" type="xs:string"/><xs:sequence><xs:element name="StartDateWindow" type="xs:string" minOccurs="0"/></xs:sequence>
                </xs:choice><xs:attribute name="Start" type="xs:date"/><xs:attribute name="End" type="xs:date"/></xs:complexType></xs:element>
                <xs:element name="Profiles" minOccurs="0"><xs:complexType><xs:sequence>
                  <xs:element name="Telephone" type="tns:Phone"/><xs:element name="Address" type="tns:Address"/>
                  <xs:element name="VehClass"><xs:complexType><xs:attribute name="Size"/></xs:complexType></xs:element>
                </xs:sequence></xs:complexType></xs:element>
                <xs:element name="Criterion" minOccurs="0"><xs:complexType><xs:sequence>
                  <xs:element name="Address" type="tns:Address" minOccurs="0"/>
                  <xs:element name="HotelRef" minOccurs="0"><xs:complexType><xs:attribute name="HotelCityCode"/></xs:complexType></xs:element>
                </xs:sequence></xs:complexType></xs:element>
              </xs:sequence><xs:attribute name="MoreDataEchoToken"/></xs:complexType></xs:element>
            </xs:sequence><xs:attribute name="MaxResponses" type="xs:positiveInteger"/></xs:complexType></xs:element>
            <xs:element name="SearchRS"><xs:complexType><xs:sequence><xs:element name="RoomStays"><xs:complexType><xs:sequence>
              <xs:element name="RoomStay" maxOccurs="unbounded"><xs:complexType><xs:sequence>
                <xs:element name="Discount" minOccurs="0"><xs:complexType><xs:sequence><xs:element name="Image" type="xs:string"/></xs:sequence></xs:complexType></xs:element>
                <xs:element name="BasicPropertyInfo"><xs:complexType><xs:sequence><xs:element name="ImageURL" type="xs:string" minOccurs="0"/></xs:sequence>
                  <xs:attribute name="HotelCode"/><xs:attribute name="HotelName"/></xs:complexType></xs:element>
              </xs:sequence><xs:attribute name="MarketCode"/></xs:complexType></xs:element>
            </xs:sequence><xs:attribute name="MoreIndicator"/></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element>
            """#)
        let profile = try ProfileDrafter(description: describe(schema: schema)).draft(operation: "Search").profile
        let body = profile.body.text
        #expect(body.contains(#"<n1:HotelRef HotelCityCode="{city}">"#), "\(body)")
        #expect(body.components(separatedBy: "{city}").count == 2, "\(body)")
        #expect(!body.contains("Profiles") && !body.contains("POS") && !body.contains("Size="), "\(body)")
        #expect(body.contains(#"MaxResponses="{pageSize}""#) && body.contains(#"MoreDataEchoToken="{cursor}""#))
        // A choice with an all-optional branch (OTA's DateTimeSpanType) needs nothing written.
        #expect(body.contains(#"<n1:StayDateRange Start="{today+30}" End="{today+31}"></n1:StayDateRange>"#), "\(body)")
        // A known name under a child beats an identifier-like one on the record itself.
        #expect(profile.fields[.code] == FieldPath(elements: ["BasicPropertyInfo"], attribute: "HotelCode"))
        // A discount's image is not the hotel's: the picture under the hotel's element is.
        #expect(profile.fields[.logoURL] == FieldPath(elements: ["BasicPropertyInfo", "ImageURL"]))
        // OpenTravel's MoreIndicator says where the next block begins: it goes back as MoreDataEchoToken.
        #expect(profile.paging == .cursor(.document(try DocumentPath(parsing: "//RoomStays/@MoreIndicator"))))
    }

    @Test("a binding whose port type is not in the set: the one port type with all its operations stands in, and the problem is named")
    func standInPortType() throws {
        let schema = Documents.schema(#"<xs:element name="SearchRQ" type="xs:string"/><xs:element name="SearchRS" type="xs:string"/>"#)
        // A published OTA provider WSDL (Samples/Real/wsdl/ota-providergen) binds `i0:IProviderGen` without declaring i0; its port type is ProviderGenService.
        let undeclared = try describe(
            schema: schema, operation: Documents.searchOperation.replacingOccurrences(of: #"type="tns:Port""#, with: #"type="i0:IPort""#))
        #expect(
            undeclared.problems == [
                "binding Binding names port type i0:IPort, whose prefix i0 is not declared; port type Port, the only one with all its operations, stands in"
            ])
        #expect(try undeclared.operation(named: "Search").input.first?.element?.name == "SearchRQ")
        #expect(
            try ProfileDrafter(description: undeclared).draft(operation: "Search").profile.notes.contains {
                $0.hasPrefix("wsdl: binding Binding names port type i0:IPort")
            })
        #expect(undeclared.inspection.lines.last?.hasPrefix("problem: binding Binding names port type i0:IPort") == true)
        // Two port types that could stand in: neither is chosen.
        let twoCandidates =
            Documents.searchOperation.replacingOccurrences(of: #"type="tns:Port""#, with: #"type="tns:Gone""#)
            + #"<wsdl:portType name="Port2"><wsdl:operation name="Search"><wsdl:input message="tns:In"/></wsdl:operation></wsdl:portType>"#
        let ambiguous = try describe(schema: schema, operation: twoCandidates)
        #expect(
            ambiguous.problems == [
                "binding Binding names port type tns:Gone, which no document of the set defines; its operations' messages are unknown"
            ])
        #expect(try ambiguous.operation(named: "Search").input.isEmpty)
        let untyped = try describe(
            schema: schema, operation: Documents.searchOperation.replacingOccurrences(of: #" type="tns:Port""#, with: ""))
        #expect(untyped.problems == ["binding Binding names no port type; port type Port, the only one with all its operations, stands in"])
        #expect(try describe(schema: schema).problems.isEmpty)
    }

    @Test("an Axis-style RPC service whose parts are anyType: the profile loads and asks for a recorded response")
    func anyTypeParts() throws {
        let wsdl = #"""
            <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
                xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:axis" targetNamespace="urn:axis">
              <wsdl:message name="In"><wsdl:part name="in0" type="xsd:anyType"/></wsdl:message>
              <wsdl:message name="Out"><wsdl:part name="return" type="xsd:anyType"/></wsdl:message>
              <wsdl:portType name="P"><wsdl:operation name="getHotels"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
              <wsdl:binding name="B" type="tns:P"><soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
                <wsdl:operation name="getHotels"><soap:operation soapAction=""/>
                  <wsdl:input><soap:body use="encoded" namespace="urn:axis" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"/></wsdl:input>
                  <wsdl:output><soap:body use="encoded" namespace="urn:axis"/></wsdl:output></wsdl:operation></wsdl:binding>
            </wsdl:definitions>
            """#
        let root = try XMLTreeElement.parse(Array(wsdl.utf8), limits: XMLReaderLimits())
        let set = WSDLDocumentSet(documents: [
            LoadedDocument(url: "file:///axis.wsdl", name: "axis.wsdl", root: root, origin: .file, bytes: 0)
        ])
        let draft = try ProfileDrafter(description: ServiceDescription(set)).draft(operation: "getHotels")
        #expect(draft.profile.body.text == #"<n1:getHotels xmlns:n1="urn:axis"><in0></in0></n1:getHotels>"#)
        #expect(draft.profile.record == "REPLACE_ME")
        #expect(draft.profile.notes.contains { $0.contains("anyType") })
        #expect(draft.profile.notes.contains { $0.contains("RPC/encoded") })
    }

    @Test("an unknown operation is refused with the operations there are")
    func unknownOperation() async throws {
        let description = ServiceDescription(try await Self.servedSampleSet().set)
        #expect(throws: WSDLError.unknownOperation("Book", known: ["QueryHotels"])) {
            _ = try ProfileDrafter(description: description).draft(operation: "Book")
        }
    }

    /// The sample service's WSDL as a running `hotels serve` publishes it, and that server's endpoint.
    static func servedSampleSet() async throws -> (set: WSDLDocumentSet, endpoint: String) {
        let serve = try await ServeProcess()
        let set = try await WSDLLoader(options: WSDLLoader.Options(cacheFolder: nil)).load(serve.endpoint + "?wsdl")
        return (set, serve.endpoint)
    }
}
