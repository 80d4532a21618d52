import Foundation
import HTTP
import Hotels
import SOAP
import Locking
import Testing
import TestSupport

/// The credentials each style's profile names, as a user would export them.
let vendorCredentials: [String: String] = [
    "CONCUR_USER": "concur-agent", "CONCUR_PASSWORD": "c0ncur&<secret>",
    "SABRE_USER": "7971", "SABRE_PASSWORD": "sabre-WS-pass", "SABRE_PCC": "G7HE",
    "AMADEUS_USER": "WSBENHOT", "AMADEUS_PASSWORD": "amadeus-AMA-pass", "AMADEUS_OFFICE": "BRUXX0000",
    "TRAVELPORT_USER": "Universal API/uAPI1234567890-abc", "TRAVELPORT_PASSWORD": "tp-uapi-pass", "TRAVELPORT_BRANCH": "P7000001",
    "TBO_USER": "tbo-member", "TBO_PASSWORD": "tbo-pass-123",
]

/// A client of `Samples/Profiles/STYLE-style.json`, with every request and log line kept.
struct StyleClient {
    let client: HotelClient
    let exchanges: ExchangeRecorder
    let logs: LogRecorder

    init(_ style: VendorEmulator.Style, _ emulator: VendorEmulator, credentials: [String: String] = vendorCredentials,
         edit: (inout [String: Any]) -> Void = { _ in }) throws {
        var document = try JSONSerialization.jsonObject(with: Data(contentsOf: Samples.url("Profiles/\(style.rawValue)-style.json")))
            as? [String: Any] ?? [:]
        edit(&document)
        let profile = try ServiceProfile(json: JSONSerialization.data(withJSONObject: document), source: "\(style.rawValue)-style.json")
        exchanges = ExchangeRecorder()
        logs = LogRecorder()
        client = HotelClient(profile: profile, endpoint: emulator.url, configuration: HotelClientConfiguration(
            retry: RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1)), logger: logs.logger(),
            credentials: Credentials(credentials), exchangeLog: exchanges))
    }

    /// Every page of a city's list, then the logout.
    func fetchAll(city: String, area: SearchArea? = nil, pageSize: Int = 10) async throws -> [String] {
        var codes: [String] = []
        do {
            for try await page in client.pages(city: city, area: area, pageSize: pageSize) { codes += page.hotels.map(\.code) }
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        return codes
    }
}

/// A profile edit: the session pool of `size`.
func withPool(_ size: Int) -> (inout [String: Any]) -> Void {
    { document in
        var session = document["session"] as? [String: Any] ?? [:]
        session["pool"] = size
        document["session"] = session
    }
}

/// Keeps what a client recorded, for the redaction checks.
final class ExchangeRecorder: ExchangeLog {
    private let exchanges = PosixMutex<[RecordedExchange]>([])
    var all: [RecordedExchange] { exchanges.withLock { $0 } }
    func record(_ exchange: RecordedExchange) { exchanges.withLock { $0.append(exchange) } }

    /// Everything a dump would write: calls, URLs, headers, bodies, errors.
    var text: String {
        all.map { exchange in
            ([exchange.call, exchange.url, exchange.error ?? ""] + exchange.requestHeaders.map { "\($0.name): \($0.value)" }
                + exchange.responseHeaders.map { "\($0.key): \($0.value)" }
                + [String(decoding: exchange.requestBody, as: UTF8.self), String(decoding: exchange.responseBody, as: UTF8.self)])
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

@Suite("Real service styles, against strict emulators")
struct VendorStyleTests {
    @Test("Concur: HTTP Basic and the SOAP authentication header, a bare SOAPAction, application/xml, a search by position in one page")
    func concur() async throws {
        let emulator = try VendorEmulator(.concur, credentials: vendorCredentials)
        defer { emulator.stop() }
        let area = try SearchArea(near: "47.6062,-122.3321", radius: 8)
        let style = try StyleClient(.concur, emulator)
        var hotels: [Hotel] = []
        for try await page in style.client.pages(city: "Seattle", area: area, pageSize: 50) { hotels += page.hotels }
        await style.client.close()
        #expect(hotels.count == 23 && Set(hotels.map(\.code)).count == 23)
        #expect(hotels.first?.address == "1 Pike St, Seattle, WA 98100")
        #expect(emulator.log == ["search near 47.6062,-122.3321 within 8.0 km"])
        // Without a position there is nothing to search by: the service says so, and the profile's error mapping reports it.
        await #expect(throws: ServiceReportedError.self) { try await StyleClient(.concur, emulator).fetchAll(city: "Seattle") }
    }

    @Test("Sabre: login with the 2002/12 UsernameToken, the token and ConversationId on every call, more rows in the session, expiry, logout")
    func sabre() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials, expireAfterCalls: 3)
        defer { emulator.stop() }
        let style = try StyleClient(.sabre, emulator)
        let codes = try await style.fetchAll(city: "PAR")
        #expect(codes.count == 23 && Set(codes).count == 23)
        // The more rows live in the session that ran the search: the new session runs it again to where the list stood.
        #expect(emulator.log == ["login s1", "page PAR 1 s1", "page PAR 11 s1", "expired s1", "login s2", "page PAR 1 s2", "page PAR 11 s2",
                                 "page PAR 21 s2", "logout s2"])
        #expect(style.logs.messages.filter { $0.contains("expired") }.count == 2)
        #expect(style.logs.messages.contains { $0.contains("asking its 2 pages again") })
    }

    @Test("a session that expires again while the list's search is run again ends the list with a typed error (exit 76, retryable), logged out")
    func expiresDuringReplay() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials, expireAfterCalls: 3, expiring: ["s1", "s2"])
        defer { emulator.stop() }
        await #expect(throws: SessionExpiredDuringSearch.self) { _ = try await StyleClient(.sabre, emulator).fetchAll(city: "PAR") }
        #expect(emulator.log == ["login s1", "page PAR 1 s1", "page PAR 11 s1", "expired s1", "login s2", "page PAR 1 s2", "page PAR 11 s2",
                                 "expired s2", "login s3", "logout s3"])
    }

    @Test("Amadeus: WS-Addressing, the SHA-1 digest with a fresh nonce, Start then InSeries with sequence numbers, expiry, End")
    func amadeus() async throws {
        let emulator = try VendorEmulator(.amadeus, credentials: vendorCredentials, expireAfterCalls: 2)
        defer { emulator.stop() }
        let codes = try await StyleClient(.amadeus, emulator).fetchAll(city: "MTL")
        #expect(codes.count == 23 && Set(codes).count == 23)
        #expect(emulator.log == ["login s1", "page MTL 1 s1", "page MTL 11 s1", "expired s1", "login s2", "page MTL 1 s2", "page MTL 11 s2",
                                 "page MTL 21 s2", "logout s2"])
    }

    @Test("Travelport: HTTP Basic, its one SOAPAction as text/xml, TargetBranch, a gzip answer, and NextResultReference echoed with its ProviderCode")
    func travelport() async throws {
        let emulator = try VendorEmulator(.travelport, credentials: vendorCredentials)
        defer { emulator.stop() }
        let codes = try await StyleClient(.travelport, emulator).fetchAll(city: "LON")
        #expect(codes.count == 23)
        #expect(emulator.log == ["page LON 1", "page LON 11", "page LON 21"])
        let second = String(decoding: emulator.requests[1].body, as: UTF8.self)
        #expect(second.contains(#"<com:NextResultReference ProviderCode="1G">TLON10-"#))
    }

    @Test("TBO: SOAP 1.2 with the action in the Content-Type, WS-Addressing Action and To, credentials as header attributes")
    func tbo() async throws {
        let emulator = try VendorEmulator(.tbo, credentials: vendorCredentials)
        defer { emulator.stop() }
        let codes = try await StyleClient(.tbo, emulator).fetchAll(city: "Shanghai")
        #expect(codes.count == 23)
        #expect(emulator.log == ["page Shanghai 1"])
    }

    @Test("wrong credentials get each vendor's answer, typed, and no secret in it", arguments: [
        VendorEmulator.Style.concur, .sabre, .amadeus, .travelport, .tbo,
    ])
    func wrongCredentials(_ style: VendorEmulator.Style) async throws {
        let emulator = try VendorEmulator(style, credentials: vendorCredentials)
        defer { emulator.stop() }
        var wrong = vendorCredentials
        for key in wrong.keys where key.hasSuffix("PASSWORD") { wrong[key] = "wrong-\(key.lowercased())" }
        let client = try StyleClient(style, emulator, credentials: wrong)
        do {
            _ = try await client.fetchAll(city: "NYC")
            Issue.record("\(style): no error")
        } catch {
            switch (style, error) {
            case (.concur, TransportError.httpStatus(403, _)), (.travelport, TransportError.httpStatus(401, _)): break
            case (.sabre, let fault as SOAPFault), (.amadeus, let fault as SOAPFault):
                #expect(fault.topic == .authentication, "\(fault)")
            case (.tbo, let reported as ServiceReportedError):
                // The profile names 02 as a refusal of the credentials: exit 77, with the credentials hint.
                #expect(reported.message == "02 LoginErr: Login Failed for Member." && reported.isAuthentication)
            default:
                Issue.record("\(style): \(error)")
            }
            for secret in wrong.values where secret.hasPrefix("wrong-") { #expect(!"\(error)".contains(secret)) }
        }
        #expect(emulator.log.count == 1 && emulator.log[0].hasPrefix("refused"))
    }

    @Test("a missing credential is named before any request is sent")
    func missingCredentials() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials)
        defer { emulator.stop() }
        var credentials = vendorCredentials
        credentials["SABRE_PCC"] = nil
        await #expect(throws: MissingCredentialsError(profile: "sabre-style", names: ["SABRE_PCC"])) {
            _ = try await StyleClient(.sabre, emulator, credentials: credentials).fetchAll(city: "PAR")
        }
        #expect(emulator.requests.isEmpty)
    }

    @Test("no secret reaches a log line, a recorded exchange or an error: passwords, Basic tokens, digests, session tokens and ids",
          arguments: [VendorEmulator.Style.concur, .sabre, .amadeus, .travelport, .tbo])
    func redaction(_ style: VendorEmulator.Style) async throws {
        let emulator = try VendorEmulator(style, credentials: vendorCredentials, expireAfterCalls: 2)
        defer { emulator.stop() }
        let client = try StyleClient(style, emulator)
        _ = try await client.fetchAll(city: "NYC", area: style == .concur ? try SearchArea(near: "40.7128,-74.006") : nil)
        let output = client.exchanges.text + "\n" + client.logs.messages.joined(separator: "\n")
        var secrets = vendorCredentials.filter { $0.key.hasSuffix("_PASSWORD") }.map(\.value)
        secrets += vendorCredentials.filter { $0.key.hasSuffix("_PASSWORD") }.map { XMLEscaping.escape($0.value) }
        for (user, password) in [("CONCUR_USER", "CONCUR_PASSWORD"), ("TRAVELPORT_USER", "TRAVELPORT_PASSWORD")] {
            secrets.append(Data("\(vendorCredentials[user] ?? ""):\(vendorCredentials[password] ?? "")".utf8).base64EncodedString())
        }
        // What the services handed out: Sabre's token and ConversationId, Amadeus's token and SessionId.
        secrets += ["IceSess", ">TOKEN", "01ZWHV"]
        let raw = emulator.requests.map { String(decoding: $0.body, as: UTF8.self) }.joined()
        if let conversation = raw.firstMatch(of: /ConversationId>([^<]+)</)?.1 { secrets.append(String(conversation)) }
        for secret in secrets { #expect(!output.contains(secret), "\(style): \(secret)") }
        #expect(output.contains(SecretRedactor.mask))
        #expect(!client.exchanges.all.isEmpty)
    }

    @Test("a fault that echoes the session token is redacted in the error")
    func echoedTokenRedacted() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials, expireAfterCalls: 2)
        defer { emulator.stop() }
        // No expiry rule: the expired-token fault, which echoes the token, reaches the caller.
        let client = try StyleClient(.sabre, emulator) { document in
            var session = document["session"] as? [String: Any] ?? [:]
            session["expired"] = nil
            document["session"] = session
        }
        do {
            _ = try await client.fetchAll(city: "PAR")
            Issue.record("no error")
        } catch let fault as SOAPFault {
            #expect(fault.reason == "Invalid or Expired binary security token: \(SecretRedactor.mask)")
        }
    }

    @Test("Amadeus without WS-Addressing: wsa:MessageAddressingHeaderRequired, naming the missing header, typed as an addressing fault")
    func amadeusWithoutAddressing() async throws {
        let emulator = try VendorEmulator(.amadeus, credentials: vendorCredentials)
        defer { emulator.stop() }
        let client = try StyleClient(.amadeus, emulator) { $0["addressing"] = nil }
        await #expect {
            _ = try await client.fetchAll(city: "MTL")
        } throws: { error in
            guard let fault = error as? SOAPFault else { return false }
            return fault.code.localName == "MessageAddressingHeaderRequired" && fault.topic == .addressing
                && fault.detailLines.contains("ProblemHeaderQName: wsa:MessageID")
        }
        #expect(emulator.log == ["refused: WS-Addressing MessageID missing"])
    }

    @Test("Sabre's ebXML MessageHeader must be understood and name the CPA: without mustUnderstand or CPAId it is refused")
    func sabreMessageHeaderChecked() async throws {
        for (from, to) in [(#" soap:mustUnderstand="1""#, ""), ("<eb:CPAId>{env:SABRE_PCC}</eb:CPAId>", "")] {
            let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials)
            defer { emulator.stop() }
            let client = try StyleClient(.sabre, emulator) { document in
                document["soapHeader"] = (document["soapHeader"] as? String)?.replacingOccurrences(of: from, with: to)
                var session = document["session"] as? [String: Any] ?? [:]
                var login = session["login"] as? [String: Any] ?? [:]
                login["soapHeader"] = (login["soapHeader"] as? String)?.replacingOccurrences(of: from, with: to)
                session["login"] = login
                document["session"] = session
            }
            await #expect(throws: SOAPFault.self) { _ = try await client.fetchAll(city: "PAR") }
            #expect(emulator.log == ["refused: MessageHeader incomplete"], "\(from)")
        }
    }

    @Test("six requests at once share a pool of two sessions; each session's sequence numbers stay in order")
    func pool() async throws {
        let emulator = try VendorEmulator(.amadeus, credentials: vendorCredentials, pageSize: 1)
        defer { emulator.stop() }
        let style = try StyleClient(.amadeus, emulator, edit: withPool(2))
        let client = style.client
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask { try await client.page(RequestParameters(city: "C\(index)", pageSize: 1)).hotels.count }
            }
            for try await count in group { #expect(count == 1) }
        }
        await client.close()
        #expect(emulator.mistakes.isEmpty, "\(emulator.mistakes)")
        #expect(emulator.log.filter { $0.hasPrefix("login") }.count == 2)
        #expect(emulator.log.filter { $0.hasPrefix("page") }.count == 6)
        #expect(emulator.log.filter { $0.hasPrefix("logout") }.count == 2)
    }

    @Test("a list keeps its session from its first page to its last: another list's search never lands in it, a dropped list frees it")
    func listsHoldTheirSessions() async throws {
        // Sabre keeps a search's "more" rows in the session that ran it: a second
        // search there would replace them.
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials)
        defer { emulator.stop() }
        let style = try StyleClient(.sabre, emulator, edit: withPool(2))
        let client = style.client
        var paris = client.pages(city: "PAR", pageSize: 10).makeAsyncIterator()
        var nice = client.pages(city: "NCE", pageSize: 10).makeAsyncIterator()
        // Paris's page 1 leaves session 1 idle between pages; Nice must not take it.
        _ = try await paris.next()
        _ = try await nice.next()
        while try await paris.next() != nil {}
        // Paris ended: its session is free for the next list.
        var lyon = client.pages(city: "LYS", pageSize: 10).makeAsyncIterator()
        _ = try await lyon.next()
        _ = try await nice.next()
        #expect(Array(emulator.log.prefix(8)) == ["login s1", "page PAR 1 s1", "login s2", "page NCE 1 s2", "page PAR 11 s1",
                                                   "page PAR 21 s1", "page LYS 1 s1", "page NCE 11 s2"])
        // A list dropped mid-way frees its session too: Lyon holds s1 and Nice s2,
        // so Marseille waits until Nice's iterator is gone.
        nice = client.pages(city: "NCE", pageSize: 10).makeAsyncIterator()
        var marseille = client.pages(city: "MRS", pageSize: 10).makeAsyncIterator()
        _ = try await marseille.next()
        #expect(emulator.log.last == "page MRS 1 s2")
        _ = try await lyon.next()
        await client.close()
        #expect(emulator.mistakes.isEmpty, "\(emulator.mistakes)")
        #expect(emulator.log.filter { $0.hasPrefix("login") }.count == 2)
    }
}

@Suite("WS-Security UsernameToken")
struct UsernameTokenTests {
    func nonce(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64) ?? Data()) }

    @Test("the standard digest: zeep's test and the ONVIF programmer's guide")
    func standardDigest() {
        #expect(RequestBuilder.passwordDigest(nonce: Array("mocked-random".utf8), created: "2016-05-08T12:00:00+00:00",
                                              password: "geheim", hashingPassword: false) == "hVicspAQSg70JNhe67OHqD9gexc=")
        #expect(RequestBuilder.passwordDigest(nonce: nonce("LKqI6G/AikKCQrN0zqZFlg=="), created: "2010-09-16T07:50:45Z",
                                              password: "userpassword", hashingPassword: false) == "tuOSpGlFlIXsozq4HFNeeGeFLEI=")
    }

    @Test("Amadeus's digest over SHA-1 of the password: amadeus-ws-client's vectors and WSS4J's encoded password")
    func amadeusDigest() {
        let vectors: [([UInt8], String, String, String)] = [
            (nonce("PZgFvh5439plJpKpIyf5ucmXhNU="), "2013-01-11T09:41:03Z", "WBSPassword", "ic3AOJElVpvkz9ZBKd105Siry28="),
            (Array("secretnonce10111".utf8), "2015-09-30T14:12:15Z", "AMADEUS", "+LzcaRc+ndGAcZIXmq/N7xGes+k="),
            (nonce("NjPfanrqSdmXuFWgPoQlAsHOUbjOBg=="), "2015-09-30T14:15:11Z", "AMADEUS", "k/upHztkhZzrsqAKsOBUa45+j1w="),
            (Array("f5bb7bdbf930caac49f9651328fa7c2537ce326e".utf8), "2016-01-15T10:16:41:553Z", "Vp7f3uOI", "CELeKeKpVxMV3xvxhfVvvl/ayIA="),
            (nonce("0x7bXAPZVn40AdCD0Xbt0g=="), "2010-06-28T15:16:37Z", "password", "C0rena/6gKpRZ9ATj+e6ss5sAbQ="),
        ]
        for (nonce, created, password, digest) in vectors {
            #expect(RequestBuilder.passwordDigest(nonce: nonce, created: created, password: password, hashingPassword: true) == digest)
        }
        // The standard formula on the same inputs differs: the variant is not the standard by accident.
        #expect(RequestBuilder.passwordDigest(nonce: nonce("PZgFvh5439plJpKpIyf5ucmXhNU="), created: "2013-01-11T09:41:03Z",
                                              password: "WBSPassword", hashingPassword: false) == "Dxe4i72msGKQU2e268CqbQAZMMI=")
    }

    @Test("the token as sent: the digest of the nonce and Created it carries, the OASIS types, the old namespace for Sabre")
    func tokenXML() throws {
        let profile = try ServiceProfile.named(Samples.url("Profiles/amadeus-style.json").path)
        var builder = RequestBuilder(profile: profile, endpoint: "https://ama.test/WSAP", credentials: Credentials(vendorCredentials),
                                     secrets: SecretRedactor())
        builder.now = { Date(timeIntervalSince1970: 1_700_000_000.25) }
        builder.nonce = { Array(repeating: 7, count: 16) }
        builder.uuid = { "5d35dbe1-723f-1d94-5144-2fc21eade110" }
        let body = String(decoding: try builder.request(.page(RequestParameters(city: "MTL")), session: SessionState(id: 1)).body ?? [], as: UTF8.self)
        let digest = RequestBuilder.passwordDigest(nonce: Array(repeating: 7, count: 16), created: "2023-11-14T22:13:20.250Z",
                                                   password: "amadeus-AMA-pass", hashingPassword: true)
        #expect(body.contains(#"#PasswordDigest">\#(digest)</wsse:Password>"#))
        #expect(body.contains(#"<wsse:Nonce EncodingType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary">BwcHBwcHBwcHBwcHBwcHBw==</wsse:Nonce><wsu:Created>2023-11-14T22:13:20.250Z</wsu:Created>"#))
        #expect(body.contains("<wsa:MessageID xmlns:wsa=\"http://www.w3.org/2005/08/addressing\">urn:uuid:5d35dbe1-723f-1d94-5144-2fc21eade110</wsa:MessageID>"))
        #expect(body.contains(#"TransactionStatusCode="Start"/>"#) && body.contains(#"PseudoCityCode="BRUXX0000""#))
        let sabre = try ServiceProfile.named(Samples.url("Profiles/sabre-style.json").path)
        let login = String(decoding: try RequestBuilder(profile: sabre, endpoint: "https://sws.test", credentials: Credentials(vendorCredentials),
                                                        secrets: SecretRedactor()).request(.login, session: SessionState(id: 1)).body ?? [], as: UTF8.self)
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
        var builder = RequestBuilder(profile: profile, endpoint: "https://h.test/s",
                                     credentials: Credentials(["API_TOKEN": "eyJ.bearer.token", "WS_USER": "agent", "WS_PASSWORD": "pw<1>"]),
                                     secrets: secrets)
        builder.now = { Date(timeIntervalSince1970: 1_700_000_000) }
        builder.uuid = { "u-1" }
        let request = try builder.request(.page(RequestParameters(city: "Oslo")), session: nil)
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value == "Bearer eyJ.bearer.token" })
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        #expect(body.contains(#"soap:mustUnderstand="1"><wsu:Timestamp><wsu:Created>2023-11-14T22:13:20.000Z</wsu:Created><wsu:Expires>2023-11-14T22:18:20.000Z</wsu:Expires></wsu:Timestamp>"#))
        // A text password carries its OASIS type, escaped, and no Nonce or Created unless asked for.
        #expect(body.contains(#"<wsse:Username>agent</wsse:Username><wsse:Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText">pw&lt;1&gt;</wsse:Password></wsse:UsernameToken>"#))
        let wsa = #"xmlns:wsa="http://schemas.xmlsoap.org/ws/2004/08/addressing""#
        #expect(body.contains(#"<wsa:Action \#(wsa)>urn:s#Search</wsa:Action><wsa:To \#(wsa)>https://h.test/s</wsa:To>"#))
        #expect(body.contains(#"<wsa:ReplyTo \#(wsa)><wsa:Address>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</wsa:Address></wsa:ReplyTo>"#))
        #expect(secrets.redact("Authorization: Bearer eyJ.bearer.token; pw<1>") == "Authorization: Bearer \(SecretRedactor.mask); \(SecretRedactor.mask)")
    }

    @Test("a nonce never repeats across 10,000 requests")
    func nonces() throws {
        let profile = try ServiceProfile.named(Samples.url("Profiles/amadeus-style.json").path)
        let builder = RequestBuilder(profile: profile, endpoint: "https://ama.test/", credentials: Credentials(vendorCredentials),
                                     secrets: SecretRedactor())
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let body = String(decoding: try builder.request(.page(RequestParameters(city: "X")), session: SessionState(id: 1)).body ?? [], as: UTF8.self)
            guard let start = body.range(of: "#Base64Binary\">"), let end = body[start.upperBound...].range(of: "<") else {
                Issue.record("no nonce")
                return
            }
            seen.insert(String(body[start.upperBound..<end.lowerBound]))
        }
        #expect(seen.count == 10_000)
    }
}
