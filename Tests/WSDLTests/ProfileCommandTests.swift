import Foundation
import TestSupport
import Testing

@Suite("hotels profile and hotels call", .serialized)
struct ProfileCommandTests {
    @Test("a set shipped without one of its schemas: inspect lists the operations, names what is missing and exits 0; init notes it")
    func missingSchema() async throws {
        let folder = try DocumentFolder()
        let source = Samples.url("Real/wsdl/ota-providergen")
        let copy = folder.path("providergen")
        try FileManager.default.copyItem(atPath: source.path, toPath: copy)
        try FileManager.default.removeItem(atPath: copy + "/OTA2003B/OTA_CommonTypes.xsd")
        let inspect = try await HotelsProcess.run(["profile", "inspect", copy + "/index.wsdl", "--offline"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("operation HotelAvailRQ"))
        #expect(inspect.stdout.contains("missing: ") && inspect.stdout.contains("OTA_CommonTypes.xsd ← "))
        let json = try await HotelsProcess.run(["profile", "inspect", copy + "/index.wsdl", "--offline", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(
            (object["missing"] as? [[String: Any]])?.contains { ($0["location"] as? String)?.hasSuffix("OTA_CommonTypes.xsd") == true }
                == true)
        let unknown = try await HotelsProcess.run([
            "profile", "init", "--wsdl", copy + "/index.wsdl", "--operation", "NoSuchRQ",
            "--out", folder.path("x.json"),
        ])
        #expect(unknown.status == 64 && unknown.stderr.contains("NoSuchRQ"))
    }

    @Test(
        "a port type with no binding (HTNG's SeamlessShopAndBookPort.wsdl layout): inspect lists its operations' input and output elements and says why there is no SOAP version or action"
    )
    func portTypeWithoutBinding() async throws {
        let wsdl = Samples.url("WSDL/htng-port-type-only/SeamlessShopAndBookPort.wsdl").path
        let text = try await HotelsProcess.run(["profile", "inspect", wsdl, "--offline"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.contains("port type SeamlessShopAndBookPortType: no binding, so no SOAP version and no SOAPAction; 2 operations"),
            "\(text.stdout)")
        #expect(
            text.stdout.contains(
                "  operation CheckAvailability\n    input: {http://www.opentravel.org/OTA/2003/05}OTA_HotelAvailRQ\n"
                    + "    output: {http://www.opentravel.org/OTA/2003/05}OTA_HotelAvailRS"))
        let json = try await HotelsProcess.run(["profile", "inspect", wsdl, "--offline", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let portTypes = try #require(object["unboundPortTypes"] as? [[String: Any]])
        let operations = try #require(portTypes.first?["operations"] as? [[String: Any]])
        #expect(operations.compactMap { $0["name"] as? String } == ["CheckAvailability", "ProcessReservationRequest"])
        #expect(operations.last?["input"] as? [String] == ["{http://www.opentravel.org/OTA/2003/05}OTA_HotelResRQ"])
        #expect((object["bindings"] as? [Any])?.isEmpty == true)
    }

    @Test(
        "init for an operation whose input schema is missing (Amadeus' Security_Authenticate without Security_Authenticate_06_1_1A.xsd): the root element alone, in its namespace, a note naming the file, exit 0"
    )
    func initWithMissingInputSchema() async throws {
        let folder = try DocumentFolder()
        let wsdl = Samples.url("WSDL/amadeus-missing-schema/AmadeusWebServices.wsdl").path
        let out = folder.path("authenticate.json")
        let run = try await HotelsProcess.run(["profile", "init", "--wsdl", wsdl, "--operation", "Security_Authenticate", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        let profile = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        #expect(
            profile["body"] as? String
                == #"<n1:Security_Authenticate xmlns:n1="http://xml.amadeus.com/VLSSLQ_06_1_1A"></n1:Security_Authenticate>"#)
        #expect(profile["soapAction"] as? String == "http://webservices.amadeus.com/1ASIWTEST/VLSSLQ_06_1_1A")
        let notes = try #require(profile["notes"] as? [String])
        let note = try #require(notes.first { $0.hasPrefix("request: the body is <Security_Authenticate> alone") }, "\(notes)")
        // The input's file, not the reply's.
        #expect(note.contains("Security_Authenticate_06_1_1A.xsd") && !note.contains("Security_AuthenticateReply_06_1_1A.xsd"), "\(note)")
        // The operation whose schemas are there is drafted in full as before.
        let list = try await HotelsProcess.run([
            "profile", "init", "--wsdl", wsdl, "--operation", "Hotel_List", "--out", folder.path("list.json"),
        ])
        #expect(list.status == 0, "\(list.stderr)")
        let listProfile = try String(contentsOfFile: folder.path("list.json"), encoding: .utf8)
        #expect(listProfile.contains("HotelRef") && listProfile.contains("HotelCityCode"))
    }

    @Test("inspect shows an operation's output SOAP header: Kunlun's KwsSoapHeader on AppLogin's reply")
    func outputHeaders() async throws {
        let wsdl = Samples.url("Real/wsdl/asmx/SecurityService.wsdl").path
        let json = try await HotelsProcess.run(["profile", "inspect", wsdl, "--offline", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let operations = (object["bindings"] as? [[String: Any]])?.flatMap { ($0["operations"] as? [[String: Any]]) ?? [] } ?? []
        let login = try #require(operations.first { $0["name"] as? String == "AppLogin" })
        #expect((login["outputHeaders"] as? [String])?.contains { $0.hasSuffix("KwsSoapHeader") } == true, "\(login)")
    }

    @Test("round trip: init on hotels serve's own WSDL gives a profile that fetches the whole list, as the built-in profile does")
    func roundTrip() async throws {
        let serve = try await ServeProcess(["--hotels", "600"])
        let folder = try DocumentFolder()
        let profile = folder.path("sample-from-wsdl.json")
        let initRun = try await HotelsProcess.run([
            "profile", "init", "--wsdl", serve.endpoint + "?wsdl", "--operation", "QueryHotels",
            "--out", profile, "--cache", folder.path("cache"),
        ])
        #expect(initRun.status == 0, "\(initRun.stderr)")
        #expect(initRun.stderr.contains("paging cursor"))
        var lists: [String] = []
        for (name, profile) in [("drafted", profile), ("built-in", "sample")] {
            let out = folder.path(name)
            let fetch = try await HotelsProcess.run([
                "fetch", "--endpoint", serve.endpoint, "--city", "Paris", "--profile", profile,
                "--page-size", "40", "--out", out, "--cache", folder.path("store-\(name)"),
            ])
            #expect(fetch.status == 0, "\(fetch.stderr)")
            #expect(fetch.stdout.contains("end: endMarker"))
            lists.append(try String(contentsOfFile: out + "/hotels.jsonl", encoding: .utf8))
        }
        #expect(lists[0] == lists[1])
        #expect(lists[0].split(separator: "\n").count > 40)
    }

    /// The page and page size a request to the Kunlun availability service asks
    /// for, or nil when the ASMX service would refuse it: the SOAPAction, the
    /// element names, the city and a check-in date with a time, after today.
    static func kunlunPage(_ request: ScriptedHTTPServer.Request) -> (page: Int, size: Int)? {
        let body = String(decoding: request.body, as: UTF8.self)
        func value(_ name: String) -> String? {
            guard let open = body.range(of: "<n1:\(name)>"), let close = body[open.upperBound...].range(of: "</n1:\(name)>") else {
                return nil
            }
            return String(body[open.upperBound..<close.lowerBound])
        }
        let today = ISO8601DateFormatter.string(
            from: Date(), timeZone: TimeZone(identifier: "UTC") ?? .current, formatOptions: [.withFullDate])
        guard
            request.headers["soapaction"]?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) == kunlun
                + "GetAvailabilityListPerPage",
            body.contains(#"<n1:GetAvailabilityListPerPage xmlns:n1="\#(kunlun)">"#), body.contains("KwsSoapHeader"),
            let arrival = value("arrival"), arrival.hasSuffix("T00:00:00"), arrival > today, value("cityCode") == "SHA",
            let size = value("pageSize").flatMap(Int.init), let page = value("currentPage").flatMap(Int.init), page >= 1, size >= 1
        else {
            return nil
        }
        return (page, size)
    }

    static let kunlun = "http://www.shijinet.com.cn/kunlun/kws/1.1/"

    @Test(
        "round trip on a real vendor WSDL: init on the Kunlun PMS availability service pages through a loopback service speaking its schema"
    )
    func realRoundTrip() async throws {
        let hotels = 23
        // The records as the schema's ExtraAvailability writes them, HotelInfoSummary's elements in its order.
        let service = try ScriptedHTTPServer { request, connection in
            guard let (page, size) = Self.kunlunPage(request) else {
                connection.respond(status: 500, reason: "Internal Server Error", contentType: "text/xml", body: "")
                return
            }
            let records = ((page - 1) * size..<min(page * size, hotels)).map { index in
                "<Availability><HotelInfo><PicPath>http://pms.test/pic/\(index).jpg</PicPath><Level>4</Level><MinPrice>0</MinPrice><MaxPrice>0</MaxPrice>"
                    + "<CommentResult>0</CommentResult><Code>KW\(1000 + index)</Code><Name>酒店 \(index)</Name><Stars>\(3 + index % 2)</Stars>"
                    + "<Address>\(index) Nanjing Road</Address><Country><code>CN</code><name>中国</name></Country>"
                    + "<Phone>+86 21 5555 \(1000 + index)</Phone><Fax>+86 21 5555 0000</Fax><PostCode>200001</PostCode><CityName>上海</CityName>"
                    + "<CityCode>SHA</CityCode></HotelInfo><RateInfos/></Availability>"
            }.joined()
            connection.respond(
                contentType: "text/xml; charset=utf-8",
                body:
                    #"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>"#
                    + #"<GetAvailabilityListPerPageResponse xmlns="\#(Self.kunlun)"><GetAvailabilityListPerPageResult><CountNums>\#(hotels)</CountNums><OAvailabilityArr>\#(records)</OAvailabilityArr></GetAvailabilityListPerPageResult></GetAvailabilityListPerPageResponse></soap:Body></soap:Envelope>"#
            )
        }
        let folder = try DocumentFolder()
        let profile = folder.path("kunlun.json")
        let initRun = try await HotelsProcess.run([
            "profile", "init", "--wsdl", Samples.url("Real/wsdl/asmx/AvailabilityService.wsdl").path,
            "--operation", "GetAvailabilityListPerPage", "--out", profile,
        ])
        #expect(initRun.status == 0, "\(initRun.stderr)")
        let fetch = try await HotelsProcess.run([
            "fetch", "--endpoint", service.url + "/KWS_TRAIN/AvailabilityService.asmx", "--city", "SHA",
            "--profile", profile, "--page-size", "10", "--out", folder.path("out"), "--cache", folder.path("store"),
        ])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        // Every page once, in order; the short third page ends the list.
        #expect(service.requests.map { Self.kunlunPage($0)?.page } == [1, 2, 3])
        let lines = try String(contentsOfFile: folder.path("out") + "/hotels.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == hotels)
        #expect(lines.first?.contains(#""code":"KW1000""#) == true && lines.first?.contains("pms.test") == true, "\(lines.first ?? "")")
        // The phone (not the fax), stars, postcode, city and country, each from the element the schema names.
        #expect(lines.first?.contains(#""address":"0 Nanjing Road""#) == true, "\(lines.first ?? "")")
        #expect(
            lines.first?.contains(
                #""phone":"+86 21 5555 1000","chainCode":null,"rating":3.0,"postalCode":"200001","city":"上海","countryCode":"CN""#) == true,
            "\(lines.first ?? "")")
    }

    @Test(
        "round trip on a real OpenTravel WSDL: init on its OTA_HotelAvailRQ operation fetches a recorded OTA_HotelAvailRS from a loopback service"
    )
    func openTravelRoundTrip() async throws {
        let ota = "http://www.opentravel.org/OTA/2003/05"
        let recorded = Array(try Data(contentsOf: Samples.url("Real/concur/OTA_HotelAvailRS-multi-property.xml")))
        // Checks what the binding asks for (the SOAPAction, the OTA request, the WS-Security header), then answers Concur's recorded response.
        let service = try ScriptedHTTPServer { request, connection in
            let body = String(decoding: request.body, as: UTF8.self)
            guard request.headers["soapaction"]?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) == "HotelAvailRQ",
                body.contains(#"<n1:OTA_HotelAvailRQ xmlns:n1="\#(ota)""#), body.contains(#"HotelCityCode="PRG""#),
                body.contains("<wsse:Username>agent-7</wsse:Username>"), !body.contains("Profiles")
            else {
                connection.respond(status: 500, reason: "Internal Server Error", contentType: "text/xml", body: "")
                return
            }
            connection.respond(headers: ["Content-Type": "text/xml; charset=utf-8"], body: recorded)
        }
        let folder = try DocumentFolder()
        let wsdl = Samples.url("Real/wsdl/ota-providergen/index.wsdl").path
        let inspect = try await HotelsProcess.run(["profile", "inspect", wsdl, "--offline"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.hasPrefix("Samples/Real/wsdl/ota-providergen/index.wsdl: 25 documents"), "\(inspect.stdout.prefix(300))")
        #expect(inspect.stdout.contains("not read: ./xmldsig-core-schema.xsd"))
        #expect(inspect.stdout.contains("input: {\(ota)}OTA_HotelAvailRQ"))
        #expect(inspect.stdout.contains("problem: binding BasicHttpBinding_IProviderGen names port type i0:IProviderGen"))
        let json = try await HotelsProcess.run(["profile", "inspect", wsdl, "--offline", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["problems"] as? [String])?.count == 1)
        #expect(
            (object["notRead"] as? [[String: Any]])?.compactMap { $0["standard"] as? String } == ["the xml: attributes", "XML Signature"])
        #expect((object["missing"] as? [Any])?.isEmpty == true)
        let profile = folder.path("providergen.json")
        let initRun = try await HotelsProcess.run(["profile", "init", "--wsdl", wsdl, "--operation", "HotelAvailRQ", "--out", profile])
        #expect(initRun.status == 0, "\(initRun.stderr)")
        #expect(initRun.stderr.contains("paging cursor"), "\(initRun.stderr)")
        // BasicPropertyInfo's contact and classification values are fields of their own; the address is the street parts.
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any])
        let fields = try #require(written["fields"] as? [String: Any])
        #expect(fields["phone"] as? String == "BasicPropertyInfo/ContactNumbers/ContactNumber[@PhoneTechType='1']/@PhoneNumber")
        #expect(
            fields["chainCode"] as? String == "BasicPropertyInfo/@ChainCode"
                && fields["rating"] as? String == "BasicPropertyInfo/Award/@Rating")
        #expect(
            fields["postalCode"] as? String == "BasicPropertyInfo/Address/PostalCode"
                && fields["city"] as? String == "BasicPropertyInfo/Address/CityName")
        #expect(fields["countryCode"] as? String == "BasicPropertyInfo/Address/CountryName/@Code")
        #expect(
            (fields["address"] as? [String: Any])?["join"] as? [String]
                == ["BasicPropertyInfo/Address/AddressLine", "BasicPropertyInfo/Address/StreetNmbr", "BasicPropertyInfo/Address/BldgRoom"])
        #expect((written["notes"] as? [String])?.contains("fields.city = BasicPropertyInfo/Address/CityName: named “CityName”") == true)
        let fetch = try await HotelsProcess.run(
            [
                "fetch", "--endpoint", service.url + "/Service/Hotel/Provider/ProviderGen.svc", "--city", "PRG",
                "--profile", profile, "--out", folder.path("out"), "--cache", folder.path("store"),
            ],
            environment: ["PROVIDERGEN_USERNAME": "agent-7", "PROVIDERGEN_PASSWORD": "s3cret-pw"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(!fetch.stdout.contains("s3cret-pw") && !fetch.stderr.contains("s3cret-pw"))
        // One request: the recorded response has no MoreIndicator, so the list ends there.
        #expect(service.requests.count == 1)
        let codes = try String(contentsOfFile: folder.path("out") + "/hotels.jsonl", encoding: .utf8).split(separator: "\n")
            .compactMap { $0.firstMatch(of: /"code":"([^"]+)"/).map { String($0.1) } }
        #expect(codes == ["HP070213", "HH910312", "HT030025", "HH871486"])
        #expect(
            try String(contentsOfFile: folder.path("out") + "/hotels.jsonl", encoding: .utf8).split(separator: "\n")
                .allSatisfy { $0.contains(#""chainCode":"PF""#) })
    }

    @Test("inspect prints the operations, and --json the same for machines; a second run reads the cache")
    func inspect() async throws {
        let serve = try await ServeProcess()
        let folder = try DocumentFolder()
        let first = try await HotelsProcess.run(["profile", "inspect", serve.endpoint + "?wsdl", "--cache", folder.path("cache")])
        #expect(first.status == 0)
        #expect(first.stdout.contains("1 fetched"))
        #expect(first.stdout.contains("binding SampleHotelsSoap12: SOAP 1.2"))
        #expect(first.stdout.contains("SOAPAction: urn:hotelkit:sample#QueryHotels"))
        let second = try await HotelsProcess.run([
            "profile", "inspect", serve.endpoint + "?wsdl", "--cache", folder.path("cache"), "--offline", "--json",
        ])
        #expect(second.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        let bindings = try #require(json["bindings"] as? [[String: Any]])
        #expect(bindings.compactMap { $0["soapVersion"] as? String } == ["1.1", "1.2"])
        let documents = try #require(json["documents"] as? [[String: Any]])
        #expect(documents.compactMap { $0["origin"] as? String } == ["cache"])
    }

    /// A real WSDL of `Samples/Real/wsdl`, each binding's operations as the document lists them, and one to draft a profile for.
    struct RealWSDL: Sendable, CustomTestStringConvertible {
        var path: String
        var bindings: [String: [String]]
        var operation: String
        var testDescription: String { path }
    }

    static let realWSDLs = [
        RealWSDL(
            path: "cxf/CustomerService.wsdl", bindings: ["CustomerServiceServiceSoapBinding": ["updateCustomer", "getCustomersByName"]],
            operation: "getCustomersByName"),
        RealWSDL(
            path: "asmx/SecurityService.wsdl", bindings: ["SecurityServiceSoap": ["AppLogin", "AppLoginOut", "AppModifyPw"]],
            operation: "AppLogin"),
        RealWSDL(
            path: "asmx/CurrencyConverterWS.wsdl", bindings: ["TestService": ["ConvertCurrency"], "TestService1": ["ConvertCurrency"]],
            operation: "ConvertCurrency"),
        RealWSDL(
            path: "asmx/AvailabilityService.wsdl", bindings: ["AvailabilityQuerySoap": availabilityOperations],
            operation: "GetAvailabilityListPerPage"),
        RealWSDL(
            path: "axis/AxisDataServer.wsdl",
            bindings: [
                "AxisDataServerSoapBinding": [
                    "getStatus", "getMetadata", "getMetadata", "getVoRegistryMetadata", "doQuery", "makeQuery", "startQuery",
                    "getResultsAndClose",
                    "abortQuery", "registerWebListener",
                ]
            ], operation: "doQuery"),
        RealWSDL(
            path: "ota-providergen/index.wsdl",
            bindings: [
                "BasicHttpBinding_IProviderGen": [
                    "HotelResNotifRQ", "HotelAvailRQ", "HotelAvailNotifRQ", "HotelRateAmountNotifRQ",
                ]
            ], operation: "HotelAvailRQ"),
    ]

    /// The Kunlun PMS availability service's operations, in the binding's order.
    static let availabilityOperations = [
        "NewGetAvailabilityListByCustom", "GetAvailabilityListByCustom", "GetAvailabilityList", "GetAvailabilityListPerPage",
        "GetAvailabilityHotels", "HotelAvail", "GetBestAvailability", "GetAvailability", "GetAvailabilitybyRateCode", "GetRoomDetail",
        "GetRateDetailSummary", "GetRateDetailDaily", "GetBestRateDetailDaily", "GetDailyInventory", "GetRatePlan", "GetRateSwitch",
        "GetSeparateSoldPackage", "CalculateSeparateSoldPackage", "GetSeparateSoldItems", "GetItemDailyInventory",
        "GetAvailabilityPackage", "CheckItemIsEnough", "CheckRateAndRoomTypeEnabled", "GetAvailabilityInventory", "GetEcryption",
        "GetBestAvailabilityARI", "GetRateRestrictions",
    ]

    @Test(
        "on each real WSDL, inspect --json lists every binding's operations, and init writes a profile that check loads",
        arguments: realWSDLs)
    func realWSDL(_ wsdl: RealWSDL) async throws {
        let file = Samples.url("Real/wsdl/\(wsdl.path)").path
        let inspect = try await HotelsProcess.run(["profile", "inspect", file, "--offline", "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        let bindings = try #require(json["bindings"] as? [[String: Any]])
        var listed: [String: [String]] = [:]
        for binding in bindings {
            let name = try #require(binding["name"] as? String)
            listed[name] = (binding["operations"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        }
        #expect(listed == wsdl.bindings)

        let folder = try DocumentFolder()
        let profile = folder.path("drafted.json")
        let initRun = try await HotelsProcess.run([
            "profile", "init", "--wsdl", file, "--operation", wsdl.operation, "--out", profile, "--offline",
        ])
        #expect(initRun.status == 0, "\(initRun.stderr)")
        let check = try await HotelsProcess.run(["profile", "check", profile])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test("refusals carry their exit status and hint: a foreign host 65, a missing file 66, an unknown operation 64")
    func refusals() async throws {
        let folder = try DocumentFolder()
        let foreign = try folder.write("a.wsdl", Documents.wsdl(schemaImports: ["http://evil.invalid/x.xsd"]))
        let refused = try await HotelsProcess.run(["profile", "inspect", foreign, "--cache", folder.path("cache")])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("hint: if you trust it, add --allow-host evil.invalid"))
        let missing = try await HotelsProcess.run(["profile", "inspect", folder.path("absent.wsdl")])
        #expect(missing.status == 66)
        let unknown = try await HotelsProcess.run([
            "profile", "init", "--wsdl", Samples.url("Real/wsdl/cxf/CustomerService.wsdl").path, "--operation", "Book",
        ])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("updateCustomer, getCustomersByName"))
    }

    @Test("check prints the request with the options filled in and every secret masked")
    func check() async throws {
        let run = try await HotelsProcess.run(
            ["profile", "check", Samples.url("Profiles/sample-wsse.json").path, "--city", "Zürich & Co"],
            environment: ["SAMPLE_USER": "alice", "SAMPLE_PASSWORD": "s3cret-pw"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Zürich &amp; Co"))
        #expect(run.stdout.contains("SOAPAction: urn:hotelkit:sample#QueryHotels"))
        #expect(!run.stdout.contains("s3cret-pw"))
        #expect(run.stdout.contains("‹redacted›"))
        let broken = try await HotelsProcess.run(["profile", "check", Samples.url("Profiles/none.json").path])
        #expect(broken.status == 66)
        // A session without a login: its first page starts the session, token and office included.
        let amadeus = try await HotelsProcess.run(
            ["profile", "check", Samples.url("Profiles/amadeus-style.json").path],
            environment: ["AMADEUS_USER": "WSBENHOT", "AMADEUS_PASSWORD": "pw", "AMADEUS_OFFICE": "BRUXX0000"])
        #expect(amadeus.status == 0, "\(amadeus.stderr)")
        #expect(
            amadeus.stdout.contains(#"TransactionStatusCode="Start""#) && amadeus.stdout.contains("UsernameToken")
                && amadeus.stdout.contains(#"PseudoCityCode="BRUXX0000""#), "\(amadeus.stdout)")
    }

    @Test("call sends one request and prints the records, the paging state and nothing secret; --dump keeps the exchange")
    func call() async throws {
        let serve = try await ServeProcess()
        let folder = try DocumentFolder()
        let run = try await HotelsProcess.run([
            "call", "--profile", "sample", "--endpoint", serve.endpoint, "--city", "Tokyo", "--page-size", "3",
            "--dump", folder.path("dump"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 3)
        #expect(run.stderr.contains("3 records, 0 warnings"))
        #expect(run.stderr.contains("paging: cursor field:addtime"))
        #expect(run.stderr.contains("the next page asks for it"))
        let dumped = try FileManager.default.contentsOfDirectory(atPath: folder.path("dump")).sorted()
        #expect(dumped == ["001-call.request.http", "001-call.response.http"])
    }
}
