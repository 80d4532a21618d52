import SOAP
import TestSupport
import Testing

@Suite("SOAP envelopes and faults")
struct SOAPResponseTests {
    func fault(_ file: String) throws -> SOAPFault {
        do {
            _ = try readSOAP(try Samples.fixture(file))
        } catch let fault as SOAPFault {
            return fault
        }
        throw CancellationError()
    }

    @Test("the version comes from the envelope's namespace")
    func versions() throws {
        #expect(try readSOAP(Samples.fixture("sample-soap11.xml")).version == .v1_1)
        #expect(try readSOAP(Samples.fixture("sample-soap12.xml")).version == .v1_2)
    }

    @Test("a SOAP 1.1 fault keeps code, string, actor and detail")
    func soap11Fault() throws {
        let fault = try fault("fault-soap11-client.xml")
        #expect(fault.version == .v1_1)
        #expect(
            fault.code
                == SOAPFault.Code(
                    value: "soap:Client.Authentication", localName: "Client.Authentication",
                    namespaceURI: SOAPVersion.v1_1.namespaceURI))
        #expect(fault.kind == .sender)
        #expect(fault.reason == "Invalid API key")
        #expect(fault.node == "http://hotels.example.com/gateway")
        #expect(
            fault.detail
                == #"<v:ErrorInfo xmlns:v="urn:vendor:errors" v:severity="high"><v:Code>AUTH-401</v:Code><v:Hint>Renew the key &amp; retry</v:Hint></v:ErrorInfo>"#
        )
    }

    @Test("a SOAP 1.1 server fault is the receiver's; an empty detail is empty")
    func soap11ServerFault() throws {
        #expect(try fault("fault-soap11-server.xml").kind == .receiver)
        let empty = try fault("fault-soap11-empty-detail.xml")
        #expect(empty.detail == "")
        #expect(empty.reason == "Partial failure")
    }

    @Test("a SOAP 1.2 fault keeps the subcode chain, every reason, node, role and detail")
    func soap12Fault() throws {
        let fault = try fault("fault-soap12-sender.xml")
        #expect(fault.version == .v1_2)
        #expect(fault.code.value == "env:Sender")
        #expect(fault.code.namespaceURI == SOAPVersion.v1_2.namespaceURI)
        #expect(fault.kind == .sender)
        #expect(fault.subcodes.map(\.value) == ["h:InvalidCity", "h:UnknownCode"])
        #expect(fault.subcodes.map(\.namespaceURI) == ["urn:hotelkit:sample", "urn:hotelkit:sample"])
        #expect(
            fault.reasons == [
                SOAPFault.Reason(text: "Ville inconnue", language: "fr"),
                SOAPFault.Reason(text: "Unknown city: Atlantis", language: "en"),
            ])
        #expect(fault.reason == "Unknown city: Atlantis")
        #expect(fault.node == "http://hotels.example.com/search")
        #expect(fault.role == "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver")
        #expect(fault.detail == #"<h:Problem xmlns:h="urn:hotelkit:sample" city="Atlantis">No such city</h:Problem><Plain>x</Plain>"#)
    }

    @Test(
        "a fault's topic: codes word by word, reasons by phrase",
        arguments: [
            ("soap:Server.TransactionTimeout", "Transaction timed out", SOAPFault.Topic.service),
            ("soap:Client", "Unexpected token '<' in the request", .request),
            ("soap:Server", "Database session pool exhausted", .service),
            ("soap:Client.ActionNotSupported", "The action is not supported", .addressing),
            ("wsse:InvalidSecurityToken", "Security token failed to validate", .authentication),
            ("soap:Client", "93|Session|Illogical conversation", .authentication),
            ("soap:Server", "NO AGREEMENT EXISTS FOR AGENCY", .authentication),
            ("soap:Client", "Login failed: invalid password", .authentication),
        ])
    func topics(code: String, reason: String, topic: SOAPFault.Topic) throws {
        let message = """
            <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsse="urn:wsse"><soap:Body><soap:Fault>\
            <faultcode>\(code)</faultcode><faultstring>\(XMLEscaping.escape(reason))</faultstring></soap:Fault></soap:Body></soap:Envelope>
            """
        do {
            _ = try readSOAP(Array(message.utf8))
            Issue.record("no fault")
        } catch let fault as SOAPFault {
            #expect(fault.topic == topic, "\(code): \(reason)")
        }
    }

    @Test("a fault's detail reads as lines, its reason on one line, and its topic picks the hint")
    func detailLinesAndTopics() throws {
        let client = try fault("fault-soap11-client.xml")
        #expect(client.detailLines == ["ErrorInfo: @severity=high", "Code: AUTH-401", "Hint: Renew the key & retry"])
        #expect(client.topic == .authentication)
        #expect(try fault("fault-soap12-sender.xml").topic == .request)
        #expect(try fault("fault-soap11-server.xml").topic == .service)
        let multiline = try fault("fault-soap11-multiline.xml")
        #expect(multiline.reason == "Server was unable to process request. ---> Object reference not set to an instance of an object.")
        #expect(
            multiline.detailLines == [
                "Message: Property 'HotelCode' is required. at Acme.Search.Validate()",
                "Type: System.NullReferenceException",
            ])
        // WCF writes &#xD; before each newline of a stack trace: one line still.
        let wcf = try fault("fault-detail-xD.xml")
        #expect(
            wcf.detailLines.contains(
                "StackTrace: at System.Xml.XmlConvert.ToBoolean(String s) at System.Xml.XmlConverter.ToBoolean(String value)"))
        #expect(!wcf.description.contains("\r") && !wcf.description.contains("\n"))
        #expect(
            multiline.description.hasSuffix(
                "; detail: Message: Property 'HotelCode' is required. at Acme.Search.Validate(); Type: System.NullReferenceException"))
    }

    @Test("a detail's attributes are kept: an OTA_ErrorRS says it all in attributes, an Error has text and a code")
    func detailAttributes() throws {
        let fault = try fault("fault-detail-attributes.xml")
        #expect(
            fault.detailLines == [
                "OTA_ErrorRS: @ErrorCode=E-1042, @ErrorMessage=Hotel code is not contracted for this agency, @Status=NotProcessed",
                "Error: Invalid hotel code (@Type=3, @Code=392)",
            ])
        #expect(fault.description.contains("@ErrorCode=E-1042"))
        #expect(!fault.wantsAddressingHeaders)
    }

    @Test("WS-Addressing's missing-header fault is an addressing fault that wants the profile's addressing")
    func addressingRequired() throws {
        let fault = try fault("fault-soap12-addressing-required.xml")
        #expect(fault.topic == .addressing && fault.wantsAddressingHeaders)
        #expect(fault.detailLines == ["ProblemHeaderQName: wsa:Action"])
    }

    @Test("a SOAP 1.2 fault in the default namespace")
    func soap12DefaultNamespace() throws {
        let fault = try fault("fault-soap12-receiver.xml")
        #expect(fault.kind == .receiver)
        #expect(fault.code.namespaceURI == SOAPVersion.v1_2.namespaceURI)
        #expect(fault.reason == "Timeout talking to the property system")
        #expect(fault.description == "SOAP fault Receiver: Timeout talking to the property system")
    }

    @Test(
        "what is not a SOAP envelope says what it looked like",
        arguments: [
            ("html-502.html", "an HTML page titled “502 Bad Gateway”"),
            ("html-no-doctype.html", "an HTML page"),
            ("json-error.json", #"JSON, starting “{"error": {"code": 503, "message": "Service temporarily unavailable"}}”"#),
            ("empty.xml", "an empty body"),
            ("whitespace-only.xml", "an empty body"),
            ("plain-text.txt", "plain text, starting “Internal Server Error”"),
            ("not-soap-root.xml", "an XML document whose root element is <Hotels> in namespace “urn:plain”"),
            ("envelope-without-body.xml", "a SOAP envelope without a Body"),
        ])
    func notSOAP(file: String, looksLike: String) throws {
        #expect { try readSOAP(Samples.fixture(file)) } throws: { ($0 as? NotSOAPEnvelopeError)?.looksLike == looksLike }
    }

    @Test("an envelope in another namespace is refused, naming both SOAP namespaces")
    func wrongNamespace() throws {
        do {
            _ = try readSOAP(Samples.fixture("envelope-wrong-namespace.xml"))
        } catch let error as NotSOAPEnvelopeError {
            #expect(error.looksLike.contains("http://example.com/not-soap"))
            #expect(error.looksLike.contains(SOAPVersion.v1_2.namespaceURI))
        }
    }

    @Test("a built envelope reads back, with header and escaped body", arguments: SOAPVersion.allCases)
    func buildEnvelope(version: SOAPVersion) throws {
        let body = "<q xmlns=\"urn:q\">\(XMLEscaping.escape("Tom & \"Jerry\" <x>'"))</q>"
        let message = SOAPEnvelope.message(version: version, body: body, header: "<t xmlns=\"urn:t\">1</t>")
        let reader = try readSOAP(Array(message.utf8))
        #expect(reader.version == version)
        #expect(reader.body.text == "Tom & \"Jerry\" <x>'")
    }

    @Test("escaping into bytes appends exactly what the string escape returns, multi-byte text included")
    func escapeIntoBytes() {
        for text in ["", "plain", "上海 & <浦东>", "\"'\"", "a&b<c>d\"e'f"] {
            var bytes = Array("prefix:".utf8)
            XMLEscaping.escape(text, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "prefix:" + XMLEscaping.escape(text))
        }
        #expect(XMLEscaping.escape("上海 & <浦东> \"x\" 'y'") == "上海 &amp; &lt;浦东&gt; &quot;x&quot; &apos;y&apos;")
    }
}
