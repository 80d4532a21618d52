import Foundation
import HTTP
import Hotels
import Locking
import SOAP
import TestSupport
import Testing

@Suite("WS-Security UsernameToken")
struct UsernameTokenTests {
    func nonce(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64) ?? Data()) }

    /// A request builder for a sample vendor profile, with the vendors' test credentials.
    func vendorBuilder(_ profileFile: String, endpoint: String) throws -> RequestBuilder {
        RequestBuilder(
            profile: try ServiceProfile.named(Samples.url("Profiles/\(profileFile)").path), endpoint: endpoint,
            credentials: Credentials(vendorCredentials), secrets: SecretRedactor())
    }

    @Test("the standard digest: zeep's test and the ONVIF programmer's guide")
    func standardDigest() {
        #expect(
            RequestBuilder.passwordDigest(
                nonce: Array("mocked-random".utf8), created: "2016-05-08T12:00:00+00:00",
                password: "geheim", hashingPassword: false) == "hVicspAQSg70JNhe67OHqD9gexc=")
        #expect(
            RequestBuilder.passwordDigest(
                nonce: nonce("LKqI6G/AikKCQrN0zqZFlg=="), created: "2010-09-16T07:50:45Z",
                password: "userpassword", hashingPassword: false) == "tuOSpGlFlIXsozq4HFNeeGeFLEI=")
    }

    @Test("Amadeus's digest over SHA-1 of the password: amadeus-ws-client's vectors and WSS4J's encoded password")
    func amadeusDigest() {
        let vectors: [([UInt8], String, String, String)] = [
            (nonce("PZgFvh5439plJpKpIyf5ucmXhNU="), "2013-01-11T09:41:03Z", "WBSPassword", "ic3AOJElVpvkz9ZBKd105Siry28="),
            (Array("secretnonce10111".utf8), "2015-09-30T14:12:15Z", "AMADEUS", "+LzcaRc+ndGAcZIXmq/N7xGes+k="),
            (nonce("NjPfanrqSdmXuFWgPoQlAsHOUbjOBg=="), "2015-09-30T14:15:11Z", "AMADEUS", "k/upHztkhZzrsqAKsOBUa45+j1w="),
            (
                Array("f5bb7bdbf930caac49f9651328fa7c2537ce326e".utf8), "2016-01-15T10:16:41:553Z", "Vp7f3uOI",
                "CELeKeKpVxMV3xvxhfVvvl/ayIA="
            ),
            (nonce("0x7bXAPZVn40AdCD0Xbt0g=="), "2010-06-28T15:16:37Z", "password", "C0rena/6gKpRZ9ATj+e6ss5sAbQ="),
        ]
        for (nonce, created, password, digest) in vectors {
            #expect(RequestBuilder.passwordDigest(nonce: nonce, created: created, password: password, hashingPassword: true) == digest)
        }
        // The standard formula on the same inputs differs: the variant is not the standard by accident.
        #expect(
            RequestBuilder.passwordDigest(
                nonce: nonce("PZgFvh5439plJpKpIyf5ucmXhNU="), created: "2013-01-11T09:41:03Z",
                password: "WBSPassword", hashingPassword: false) == "Dxe4i72msGKQU2e268CqbQAZMMI=")
    }

    @Test("the token as sent: the digest of the nonce and Created it carries, the OASIS types, the old namespace for Sabre")
    func tokenXML() throws {
        var builder = try vendorBuilder("amadeus-style.json", endpoint: "https://ama.test/WSAP")
        builder.now = { Date(timeIntervalSince1970: 1_700_000_000.25) }
        builder.nonce = { Array(repeating: 7, count: 16) }
        builder.uuid = { "5d35dbe1-723f-1d94-5144-2fc21eade110" }
        let body = String(
            decoding: try builder.request(.page(RequestParameters(city: "MTL")), session: SessionState(id: 1)).body ?? [], as: UTF8.self)
        let digest = RequestBuilder.passwordDigest(
            nonce: Array(repeating: 7, count: 16), created: "2023-11-14T22:13:20.250Z",
            password: "amadeus-AMA-pass", hashingPassword: true)
        #expect(body.contains(#"#PasswordDigest">\#(digest)</wsse:Password>"#))
        #expect(
            body.contains(
                #"<wsse:Nonce EncodingType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary">BwcHBwcHBwcHBwcHBwcHBw==</wsse:Nonce><wsu:Created>2023-11-14T22:13:20.250Z</wsu:Created>"#
            ))
        #expect(
            body.contains(
                "<wsa:MessageID xmlns:wsa=\"http://www.w3.org/2005/08/addressing\">urn:uuid:5d35dbe1-723f-1d94-5144-2fc21eade110</wsa:MessageID>"
            ))
        #expect(body.contains(#"TransactionStatusCode="Start"/>"#) && body.contains(#"PseudoCityCode="BRUXX0000""#))
        let login = String(
            decoding: try vendorBuilder("sabre-style.json", endpoint: "https://sws.test").request(.login, session: SessionState(id: 1))
                .body ?? [], as: UTF8.self)
        #expect(login.contains(#"<wsse:Security xmlns:wsse="http://schemas.xmlsoap.org/ws/2002/12/secext""#))
        #expect(login.contains("<wsse:Password>sabre-WS-pass</wsse:Password><Organization>G7HE</Organization><Domain>DEFAULT</Domain>"))
    }

    @Test("Bearer authentication, a wsu:Timestamp expiring after its lifetime, and the 2004/08 anonymous ReplyTo, as sent")
    func bearerTimestampReplyTo() throws {
        let json = #"""
            {"name": "bearer", "soapAction": "urn:s#Search", "body": "<s:Search xmlns:s=\"urn:s\"><s:City>{city}</s:City></s:Search>",
             "record": "Hotel", "fields": {"code": "@id", "name": "Name"}, "paging": {"style": "none"},
             "http": {"auth": {"bearer": "{env:API_TOKEN}"}},
             "security": {"username": "{env:WS_USER}", "password": "{env:WS_PASSWORD}", "timestamp": 300, "mustUnderstand": true},
             "addressing": {"version": "2004/08"}}
            """#
        let profile = try ServiceProfile(json: Data(json.utf8), source: "test")
        let secrets = SecretRedactor()
        var builder = RequestBuilder(
            profile: profile, endpoint: "https://h.test/s",
            credentials: Credentials(["API_TOKEN": "eyJ.bearer.token", "WS_USER": "agent", "WS_PASSWORD": "pw<1>"]),
            secrets: secrets)
        builder.now = { Date(timeIntervalSince1970: 1_700_000_000) }
        builder.uuid = { "u-1" }
        let request = try builder.request(.page(RequestParameters(city: "Oslo")), session: nil)
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value == "Bearer eyJ.bearer.token" })
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        #expect(
            body.contains(
                #"soap:mustUnderstand="1"><wsu:Timestamp><wsu:Created>2023-11-14T22:13:20.000Z</wsu:Created><wsu:Expires>2023-11-14T22:18:20.000Z</wsu:Expires></wsu:Timestamp>"#
            ))
        // A text password carries its OASIS type, escaped, and no Nonce or Created unless asked for.
        #expect(
            body.contains(
                #"<wsse:Username>agent</wsse:Username><wsse:Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText">pw&lt;1&gt;</wsse:Password></wsse:UsernameToken>"#
            ))
        let wsa = #"xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing""#
        #expect(body.contains(#"<wsa:Action \#(wsa)>urn:s#Search</wsa:Action><wsa:To \#(wsa)>https://h.test/s</wsa:To>"#))
        #expect(
            body.contains(
                #"<wsa:ReplyTo \#(wsa)><wsa:Address>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</wsa:Address></wsa:ReplyTo>"#
            ))
        #expect(
            secrets.redact("Authorization: Bearer eyJ.bearer.token; pw<1>")
                == "Authorization: Bearer \(SecretRedactor.mask); \(SecretRedactor.mask)")
    }

    @Test("a nonce never repeats across 10,000 requests")
    func nonces() throws {
        let builder = try vendorBuilder("amadeus-style.json", endpoint: "https://ama.test/")
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let body = String(
                decoding: try builder.request(.page(RequestParameters(city: "X")), session: SessionState(id: 1)).body ?? [], as: UTF8.self)
            guard let start = body.range(of: "#Base64Binary\">"), let end = body[start.upperBound...].range(of: "<") else {
                Issue.record("no nonce")
                return
            }
            seen.insert(String(body[start.upperBound..<end.lowerBound]))
        }
        #expect(seen.count == 10_000)
    }
}
