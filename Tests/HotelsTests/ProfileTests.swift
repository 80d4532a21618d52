import Foundation
import Hotels
import SOAP
import TestSupport
import Testing

@Suite("Service profiles")
struct ProfileTests {
    static let acme = #"""
        {
          "name": "acme",
          "soapVersion": "1.2",
          "soapAction": "urn:acme:SearchHotels",
          "body": "<a:SearchHotels xmlns:a=\"urn:acme:hotels\"><a:City>{city}</a:City><a:Max>{pageSize}</a:Max><a:After>{cursor}</a:After></a:SearchHotels>",
          "record": "Item",
          "fields": {"code": "@id", "name": "Title", "address": "Location/Street", "latitude": "Location/@lat", "longitude": "Location/@lon", "logoURL": "Media/Logo", "addtime": "Added"},
          "error": "//Errors/Error/@ShortText",
          "coordinateScale": 1,
          "paging": {"style": "cursor", "next": "field:addtime"}
        }
        """#

    func profile(_ json: String) throws(ProfileError) -> ServiceProfile {
        try ServiceProfile(json: Data(json.utf8), source: "test")
    }

    /// The acme profile with one key set to a JSON value (or removed, with nil).
    func acme(_ key: String, _ json: String?) -> String {
        var object = (try? JSONSerialization.jsonObject(with: Data(ProfileTests.acme.utf8))) as? [String: Any] ?? [:]
        object[key] = json.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) }
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("a paging placeholder may sit in the SOAP Header or an HTTP header instead of the body")
    func pagingPlaceholderInAHeader() throws {
        func edited(_ edit: (inout [String: Any]) -> Void) throws -> ServiceProfile {
            var object = (try JSONSerialization.jsonObject(with: Data(ProfileTests.acme.utf8))) as? [String: Any] ?? [:]
            object["body"] = "<a:SearchHotels xmlns:a=\"urn:acme:hotels\"><a:City>{city}</a:City></a:SearchHotels>"
            edit(&object)
            return try profile(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        }
        #expect(try edited { $0["soapHeader"] = "<p:Paging xmlns:p=\"urn:p\">{cursor}</p:Paging>" }.paging == .cursor(.field(.addtime)))
        #expect(
            try edited {
                $0["paging"] = ["style": "page"]
                $0["http"] = ["headers": ["X-Page": "{page}"]]
            }.paging == .page(first: 1))
        #expect(throws: ProfileError.self) { try edited { $0["soapHeader"] = "<p:Paging xmlns:p=\"urn:p\"/>" } }
    }

    @Test("the issue's example profile loads as written")
    func acmeLoads() throws {
        let profile = try profile(ProfileTests.acme)
        #expect(profile.soapVersion == .v1_2)
        #expect(profile.record == "Item")
        #expect(profile.fields[.latitude] == FieldPath(elements: ["Location"], attribute: "lat"))
        #expect(profile.fields[.code] == FieldPath(elements: [], attribute: "id"))
        #expect(profile.error?.description == "//Errors/Error/@ShortText")
        #expect(profile.paging == .cursor(.field(.addtime)))
        let file = try ServiceProfile.named(Samples.profileArgument("Samples/Profiles/acme.json"))
        #expect(file == profile)
    }

    @Test("built-in profiles load by name", arguments: ["sample", "ota-search"])
    func builtIn(name: String) throws {
        #expect(try ServiceProfile.named(name).name == name)
    }

    @Test("placeholders are replaced with escaped values, inside the right envelope")
    func requestMessage() throws {
        let profile = try profile(ProfileTests.acme)
        let message = String(
            decoding: try profile.request(to: "http://h.test/", RequestParameters(city: "Paris & <Co>", pageSize: 50)).body ?? [],
            as: UTF8.self)
        #expect(message.contains(#"<a:City>Paris &amp; &lt;Co&gt;</a:City><a:Max>50</a:Max><a:After></a:After>"#))
        #expect(message.contains(SOAPVersion.v1_2.namespaceURI))
        let reader = try SOAPResponseReader { _ in NoBody() }
        try reader.feed(Array(message.utf8))
        try reader.finish()
        #expect(reader.version == .v1_2)
    }

    @Test("an operation without hotels (a login, a cancellation) needs no record and no fields; it cannot page")
    func noRecord() throws {
        let profile = try ServiceProfile(json: Data(#"{"name": "login", "soapAction": "Login", "body": "<Login/>"}"#.utf8), source: "test")
        #expect(profile.record == nil && profile.fields.isEmpty)
        let reply = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><LoginRS><Item id="1"/><Item id="2"/>\
            </LoginRS></soap:Body></soap:Envelope>
            """
        let page = try HotelResponseParser(profile: profile).parse(bytes: Array(reply.utf8))
        #expect(page.hotels.isEmpty && page.noRecordsHint == nil)
        #expect {
            try ServiceProfile(
                json: Data(#"{"name": "l", "body": "<L>{cursor}</L>", "paging": {"style": "cursor", "next": "//N"}}"#.utf8), source: "test")
        } throws: { ($0 as? ProfileError)?.key == "paging" }
        #expect { try ServiceProfile(json: Data(#"{"name": "l", "body": "<L/>", "record": "Item"}"#.utf8), source: "test") } throws: {
            ($0 as? ProfileError)?.key == "fields"
        }
    }

    @Test("a plain-XML profile's soapVersion, and a soapAction nothing sends, are warnings, not silence")
    func plainXMLWarnings() throws {
        func warnings(_ extra: String, body: String = "<Q>{city}</Q>") throws -> [String] {
            let json = #"{"name": "pox", "envelope": "none", "body": "\#(body)", "record": "H", "fields": {"code": "@id"}\#(extra)}"#
            return try ServiceProfile(json: Data(json.utf8), source: "test").warnings
        }
        let both = try warnings(#", "soapVersion": "1.2", "soapAction": "urn:q""#)
        #expect(both.count == 2 && both[0].hasPrefix("soapVersion has no effect") && both[1].hasPrefix("soapAction is not sent"))
        #expect(try warnings(#", "soapAction": "urn:q""#, body: "<Q a=\\\"{action}\\\">{city}</Q>").isEmpty)
        #expect(try warnings("").isEmpty)
        #expect(try ServiceProfile.named("sample").warnings.isEmpty)
    }

    @Test("a step may test an attribute: Concur's address is the Description whose Name is Address; the untested path takes the rest")
    func attributeTests() throws {
        let json = #"""
            {"name": "concur-like", "body": "<Q/>", "record": "Property",
             "fields": {"code": "@HotelCode", "address": "TPA_Extensions/Description[@Name='Address']/Text",
                        "name": "TPA_Extensions/Description/Text", "logoURL": "TPA_Extensions/Description[@Name=\"a/b 'x'\"]/Text"}}
            """#
        let profile = try ServiceProfile(json: Data(json.utf8), source: "test")
        #expect(
            profile.fields[.address]
                == FieldPath(
                    elements: ["TPA_Extensions", "Description", "Text"],
                    tests: [nil, .init(name: "Name", value: "Address"), nil]))
        #expect(profile.fields[.address]?.description == "TPA_Extensions/Description[@Name='Address']/Text")
        #expect(profile.fields[.logoURL]?.description == #"TPA_Extensions/Description[@Name="a/b 'x'"]/Text"#)
        let response = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><R>\
            <Property HotelCode="A"><TPA_Extensions><Description Name="Phone"><Text>+1 206 555 0100</Text></Description>\
            <Description Name="Address"><Text>1 Pike St, Seattle</Text></Description><Description Name="a/b 'x'"><Text>http://l.test/a.png</Text></Description></TPA_Extensions></Property>\
            <Property HotelCode="B"><TPA_Extensions><Description Name="Address"><Text>2 Pine St</Text></Description></TPA_Extensions></Property>\
            </R></soap:Body></soap:Envelope>
            """
        let hotels = try HotelResponseParser(profile: profile).parse(bytes: Array(response.utf8)).hotels
        #expect(hotels.map(\.address) == ["1 Pike St, Seattle", "2 Pine St"])
        #expect(hotels.map(\.name) == ["+1 206 555 0100", nil])
        #expect(hotels.first?.logoURL == "http://l.test/a.png")
        for bad in ["Description[Name='A']/Text", "Description[@Name=A]/Text", "Description[@Name='A/Text", "Description[@Na me='A']/Text"]
        {
            #expect(throws: PathSyntaxError.self) { try FieldPath(parsing: bad) }
        }
        #expect(throws: PathSyntaxError.self) { try DocumentPath(parsing: "//Errors/Error[@Type='3']") }
    }

    @Test("the DocC article Service Profiles, the format's one reference, names every key a profile file may have, and every paging style")
    func docsCoverEveryKey() throws {
        let package = Samples.root.deletingLastPathComponent()
        let article = try String(
            contentsOf: package.appendingPathComponent("Sources/Hotels/Hotels.docc/ServiceProfiles.md"), encoding: .utf8)
        #expect(ServiceProfile.fileKeys.count >= 18)
        for key in ServiceProfile.fileKeys {
            #expect(article.contains("`\(key)`"), "ServiceProfiles.md lacks \(key)")
        }
        for style in ["page", "cursor", "flag", "none"] {
            #expect(article.contains(#""style": "\#(style)""#), "\(style)")
        }
    }

    @Test(
        "mistakes are refused with the key and the reason",
        arguments: [
            ("recrod", "\"Item\"", "recrod", "unknown key"),
            ("record", nil, "fields", "needs \"record\""),
            ("fields", #"{"name": "Title"}"#, "fields.code", "is required"),
            ("fields", #"{"code": "@id", "title": "Title"}"#, "fields.title", "unknown field"),
            ("fields", #"{"code": "a:Title"}"#, "fields.code", "without a prefix"),
            ("fields", #"{"code": "Location//Street"}"#, "fields.code", "empty step"),
            ("fields", #"{"code": "@id/Title"}"#, "fields.code", "can only come last"),
            ("fields", #"{"code": "/Envelope/Title"}"#, "fields.code", "relative to the record"),
            ("fields", #"{"code": "1abc"}"#, "fields.code", "not an XML name"),
            ("soapVersion", #""1.3""#, "soapVersion", "\"1.1\" or \"1.2\""),
            ("error", #""Errors/Error""#, "error", "starts with “//”"),
            ("error", #"{"path": "Errors/Error", "unless": "01"}"#, "error.path", "starts with “//”"),
            ("error", #"{"path": "//Errors/Error", "message": ["@Code"]}"#, "error.message[0]", "starts with “//”"),
            ("error", #"{"path": "//Errors/Error", "when": "01"}"#, "error.when", "unknown key"),
            ("coordinateScale", "0", "coordinateScale", "positive"),
            ("paging", #"{"style": "scroll"}"#, "paging.style", "\"page\", \"cursor\", \"flag\" or \"none\""),
            ("paging", #"{"style": "flag"}"#, "paging.more", "is required for flag paging"),
            ("paging", #"{"style": "flag", "more": "//More/@Ind"}"#, "body", "flag paging needs {more}"),
            ("paging", #"{"style": "page", "next": "//x"}"#, "paging.next", "does not belong to page paging"),
            ("paging", #"{"style": "none", "first": 1}"#, "paging.first", "does not belong to none paging"),
            ("paging", #"{"style": "cursor"}"#, "paging.next", "is required"),
            ("paging", #"{"style": "cursor", "next": "field:stars"}"#, "paging.next", "not one of this profile's fields"),
            ("paging", #"{"style": "page", "first": 2}"#, "paging.first", "0 or 1"),
            ("paging", #"{"style": "page", "size": 2}"#, "paging.size", "unknown key"),
            ("body", #""<a>{town}</a>""#, "body", "unknown placeholder {town}"),
            ("record", "5", "record", "expected a string"),
            ("paging", #"{"style": "page"}"#, "body", "page paging needs {page}"),
            ("body", #""<a:S xmlns:a=\"urn:a\">{city}</a:S>""#, "body", "cursor paging needs {cursor}"),
            ("transientFaults", #"["soap:Server"]"#, "transientFaults", "without a prefix"),
            ("transientFaults", #""Server""#, "transientFaults", "expected an array of strings"),
            // The request side (#14).
            ("body", #""<a>{env:}</a>""#, "body", "unknown placeholder {env:}"),
            ("body", #""<a>{today+x}</a>""#, "body", "unknown placeholder {today+x}"),
            ("body", #""<a>{cursor}{session.token}</a>""#, "body", "{session.token} needs a \"session\""),
            ("body", #""<a>{cursor}{cursor.Provider}</a>""#, "body", "needs \"with\": [\"@Provider\"]"),
            ("http", #"{"auth": {"digest": {}}}"#, "http.auth.digest", "unknown key"),
            ("http", #"{"auth": {}}"#, "http.auth", "give one of \"basic\""),
            ("http", #"{"auth": {"basic": {"user": "u"}}}"#, "http.auth.basic.password", "is required"),
            ("http", #"{"headers": {"Bad Name": "x"}}"#, "http.headers.Bad Name", "not a valid HTTP header name"),
            ("http", #"{"headers": {"Content-Type": "x"}}"#, "http.headers.Content-Type", "is set by HotelKit"),
            ("http", #"{"headers": {"X-Key": "{env:KEY"}}"#, "", ""),
            ("soapHeader", #""<h>{sessionid}</h>""#, "soapHeader", "unknown placeholder {sessionid}"),
            ("security", #"{"username": "u"}"#, "security.password", "is required"),
            (
                "security", #"{"username": "u", "password": "p", "passwordType": "md5"}"#, "security.passwordType",
                "\"text\", \"digest\", \"digest-sha1\""
            ),
            (
                "security", #"{"username": "u", "password": "p", "namespace": "2003"}"#, "security.namespace",
                "\"oasis-2004\", \"secext-2002-12\""
            ),
            ("security", #"{"username": "u", "password": "p", "when": "sessionStart"}"#, "security.when", "needs a \"session\""),
            ("security", #"{"username": "u", "password": "p", "timestamp": 0}"#, "security.timestamp", "from 1 to 86400"),
            ("addressing", #"{"version": "2003"}"#, "addressing.version", "\"1.0\", \"2004/08\""),
            ("addressing", #"{"action": "{verb}"}"#, "addressing.action", "unknown placeholder {verb}"),
            ("session", #"{"pool": 0}"#, "session.pool", "from 1 to 64"),
            ("session", #"{"status": ["Start"]}"#, "session.status", "give three values"),
            ("session", #"{"capture": {"token": "Header/Token"}}"#, "session.capture.token", "starts with “//”"),
            ("session", #"{"public": ["seq"]}"#, "session.public", "not a captured value"),
            ("session", #"{"counters": {"status": 1}}"#, "session.counters.status", "transaction status"),
            ("session", #"{"start": {"id": "{session.id}"}}"#, "session.start", "cannot use {session.…}"),
            ("session", #"{"login": {"body": "<L/>"}, "startHeader": "<S/>"}"#, "session.startHeader", "is for a session without a login"),
            ("session", #"{"login": {"soapAction": "L"}}"#, "session.login.body", "is required"),
            ("session", #"{"expired": [""]}"#, "session.expired", "name a fault code"),
            ("session", #"{"logout": {"body": "<L/>", "header": "x"}}"#, "session.logout.header", "unknown key"),
            ("envelope", #""none""#, "", ""),
            (
                "paging", #"{"style": "cursor", "next": "field:addtime", "with": ["@P"]}"#, "paging.with",
                "needs cursor paging whose \"next\" is an element's"
            ),
            ("notes", "5", "notes", "expected an array of strings"),
            ("fields", #"{"code": "@id", "address": {"join": []}}"#, "fields.address.join", "needs at least one path"),
            (
                "fields", #"{"code": "@id", "address": {"join": ["../@City"]}}"#, "fields.address.join[0]",
                "the parts of a join are inside the record"
            ),
            ("fields", #"{"code": {"join": ["@id"]}}"#, "fields.code", "is the record's identity: give one path, not a join"),
            ("fields", #"{"code": "../Name"}"#, "fields.code", "a path that climbs (“../Name”) names an attribute of an enclosing element"),
            ("header", #"{"token": "Header/Token"}"#, "header.token", "a document path starts with “//”"),
            ("header", #"{"token": "//@Token"}"#, "header.token", "needs at least one element before the attribute"),
            ("paging", #"{"style": "cursor", "next": "header:nope"}"#, "paging.next", "“nope” is not one of this profile's header values"),
            (
                "paging", #"{"style": "cursor", "next": "//Next", "with": ["Provider"]}"#, "paging.with",
                "name an attribute of the cursor's element, as “@Name”"
            ),
            // Catalogue references (the profile's `references` key).
            (
                "references", #"{"path": "TPA_Extensions/PropertyReference/@ReferenceCatalogCode", "catalog": "@ReferenceCatalogName"}"#,
                "references.path", "names the repeated element inside the record"
            ),
            (
                "references", #"{"path": "../PropertyReference", "catalog": "@ReferenceCatalogName"}"#, "references.path",
                "a path that climbs"
            ),
            ("references", #"{"path": "PropertyReference", "catalog": ""}"#, "references.catalog", "must not be empty"),
            ("references", #"{"path": "PropertyReference", "catalog": "@"}"#, "references.catalog", "an empty step"),
            (
                "references", #"{"path": "PropertyReference", "catalog": "@ReferenceCatalogName", "code": "ReferenceCatalogCode"}"#,
                "references.code", "name an attribute of the element, as “@Name”"
            ),
            (
                "references", #"[{"path": "PropertyReference", "catalog": "@ReferenceCatalogName"}, {"path": "GiataId", "catalog": ""}]"#,
                "references[1].catalog", "must not be empty"
            ),
            (
                "references", #"[{"path": "PropertyReference", "catalog": "@ReferenceCatalogName", "system": "GDS"}]"#,
                "references[0].system", "unknown key"
            ),
            (
                "fields", #"{"code": "@id", "references": "PropertyReference"}"#, "fields.references",
                "map them with the profile's “references” key"
            ),
        ] as [(String, String?, String, String)])
    func refused(key: String, value: String?, expectedKey: String, reason: String) throws {
        var json = key == "recrod" ? ProfileTests.acme.replacingOccurrences(of: "\"record\"", with: "\"recrod\"") : acme(key, value)
        if expectedKey.isEmpty {
            // Accepted: braces that hold no placeholder are text; a plain-XML profile is fine on its own.
            #expect(throws: Never.self) { try profile(json) }
            json = acme("soapHeader", #""<h/>""#).replacingOccurrences(of: "\"envelope\":\"none\"", with: "")
            if key == "envelope" {
                var object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
                object["envelope"] = "none"
                json = String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
                #expect { try profile(json) } throws: { error in
                    (error as? ProfileError).map { $0.key == "envelope" && $0.reason.contains("a plain-XML service has no SOAP Header") }
                        == true
                }
            }
            return
        }
        do {
            _ = try profile(json)
            Issue.record("accepted \(key) = \(String(describing: value))")
        } catch {
            #expect(error.key == expectedKey)
            #expect(error.reason.contains(reason), "\(error.reason)")
            #expect(error.kind == .invalid)
        }
    }

    @Test(
        "references: one rule or several; the catalogue an attribute or a fixed name (lower case); the code an attribute or the element's text"
    )
    func references() throws {
        let ota = try profile(
            acme(
                "references",
                #"""
                {"path": "TPA_Extensions/TPA_PropertyReferenceInfo/PropertyReference", "catalog": "@ReferenceCatalogName", "code": "@ReferenceCatalogCode"}
                """#))
        #expect(
            ota.references == [
                ReferenceRule(
                    element: FieldPath(elements: ["TPA_Extensions", "TPA_PropertyReferenceInfo", "PropertyReference"]),
                    catalog: .attribute("ReferenceCatalogName"), codeAttribute: "ReferenceCatalogCode")
            ])
        #expect(try profile(ProfileTests.acme).references.isEmpty)
        let two = try profile(
            acme(
                "references",
                #"""
                [{"path": "Ids/Id[@Type='GDS']", "catalog": "@Name", "code": "@Value"}, {"path": "GiataId", "catalog": "GIATA"}]
                """#))
        #expect(
            two.references == [
                ReferenceRule(
                    element: FieldPath(elements: ["Ids", "Id"], tests: [nil, .init(name: "Type", value: "GDS")]),
                    catalog: .attribute("Name"), codeAttribute: "Value"),
                ReferenceRule(element: FieldPath(elements: ["GiataId"]), catalog: .fixed("giata"), codeAttribute: nil),
            ])
        // Every match is a pair: the catalogue's name in lower case, the code; one without a catalogue is left out with a warning.
        let response = """
            <s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><a:R xmlns:a="urn:acme:hotels">\
            <a:Item id="A-1"><a:Ids><a:Id Type="GDS" Name="Worldspan" Value="W1234567"/><a:Id Type="Internal" Name="acme" Value="7"/>\
            <a:Id Type="GDS" Value="nameless"/></a:Ids><a:GiataId> 900301 </a:GiataId></a:Item>\
            <a:Item id="A-2"/></a:R></s:Body></s:Envelope>
            """
        let page = try HotelResponseParser(profile: two).parse(bytes: Array(response.utf8))
        #expect(page.hotels.map(\.references) == [["worldspan": "W1234567", "giata": "900301"], nil])
        #expect(page.warnings.map(\.field) == [.references])
        #expect(page.warnings.first?.description.contains("names no catalogue") == true, "\(page.warnings)")
        // References are read from the record: a profile without one has none.
        #expect { try profile(#"{"name": "l", "body": "<L/>", "references": {"path": "R", "catalog": "@C"}}"#) } throws: {
            ($0 as? ProfileError)?.key == "references"
        }
    }

    @Test("a references object with an unknown key or without its catalogue is refused with that key, in either form")
    func referencesKeys() throws {
        // Each case: the value of "references", and the key the refusal should name.
        let cases = [
            (#"{"path": "PropertyReference", "catalog": "@ReferenceCatalogName", "system": "GDS"}"#, "references.system"),
            (#"{"path": "PropertyReference", "code": "@ReferenceCatalogCode"}"#, "references.catalog"),
            (#"[{"path": "PropertyReference", "code": "@ReferenceCatalogCode"}]"#, "references[0].catalog"),
        ]
        for (value, key) in cases {
            let json = acme("references", value)
            #expect { try profile(json) } throws: { error in
                (error as? ProfileError).map { $0.key == key } == true
            }
        }
    }

    /// A regression: `"code": "name", "name": "name"` lost the code, and every record was skipped.
    @Test("two fields on one path both get its value")
    func twoFieldsOnOnePath() throws {
        var profile = try ServiceProfile.named("sample")
        profile.fields[.code] = try FieldPath(parsing: "name")
        let page = try HotelResponseParser(profile: profile).parse(bytes: Samples.fixture("sample-soap11.xml"))
        #expect(page.hotels.count == 5)
        #expect(page.hotels.allSatisfy { $0.code == $0.name })
        #expect(page.warnings.isEmpty)
    }

    @Test("a file that is not JSON, an unknown name and a missing file are told apart")
    func sources() throws {
        #expect(throws: ProfileError.self) { try profile("{not json") }
        do {
            _ = try ServiceProfile.named("acme")
        } catch {
            #expect(error.kind == .unknownName)
            #expect(error.reason.contains("ota-search"))
        }
        do {
            _ = try ServiceProfile.named("/nonexistent/profile.json")
        } catch {
            #expect(error.kind == .unreadable)
        }
    }
}

final class NoBody: SOAPBodyHandler {
    func startElement(_ element: XMLStartElement) throws {}
    func endElement(_ localName: XMLName) throws {}
    func characters(_ text: UnsafeBufferPointer<UInt8>) throws {}
    func bodyDidEnd() throws {}
}
