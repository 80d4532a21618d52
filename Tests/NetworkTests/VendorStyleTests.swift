import Foundation
import HTTP
import Hotels
import Locking
import SOAP
import TestSupport
import Testing

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

    init(
        _ style: VendorEmulator.Style, _ emulator: VendorEmulator, credentials: [String: String] = vendorCredentials,
        edit: (inout [String: Any]) -> Void = { _ in }
    ) throws {
        var document =
            try JSONSerialization.jsonObject(with: Data(contentsOf: Samples.url("Profiles/\(style.rawValue)-style.json")))
            as? [String: Any] ?? [:]
        edit(&document)
        let profile = try ServiceProfile(json: JSONSerialization.data(withJSONObject: document), source: "\(style.rawValue)-style.json")
        exchanges = ExchangeRecorder()
        logs = LogRecorder()
        client = HotelClient(
            profile: profile, endpoint: emulator.url,
            configuration: HotelClientConfiguration(
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

    @Test(
        "Sabre: login with the 2002/12 UsernameToken, the token and ConversationId on every call, more rows in the session, expiry, logout")
    func sabre() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials, expireAfterCalls: 3)
        defer { emulator.stop() }
        let style = try StyleClient(.sabre, emulator)
        let codes = try await style.fetchAll(city: "PAR")
        #expect(codes.count == 23 && Set(codes).count == 23)
        // The more rows live in the session that ran the search: the new session runs it again to where the list stood.
        #expect(
            emulator.log == [
                "login s1", "page PAR 1 s1", "page PAR 11 s1", "expired s1", "login s2", "page PAR 1 s2", "page PAR 11 s2",
                "page PAR 21 s2", "logout s2",
            ])
        #expect(style.logs.messages.filter { $0.contains("expired") }.count == 2)
        #expect(style.logs.messages.contains { $0.contains("asking its 2 pages again") })
    }

    @Test(
        "a session that expires again while the list's search is run again ends the list with a typed error (exit 76, retryable), logged out"
    )
    func expiresDuringReplay() async throws {
        let emulator = try VendorEmulator(.sabre, credentials: vendorCredentials, expireAfterCalls: 3, expiring: ["s1", "s2"])
        defer { emulator.stop() }
        await #expect(throws: SessionExpiredDuringSearch.self) { _ = try await StyleClient(.sabre, emulator).fetchAll(city: "PAR") }
        #expect(
            emulator.log == [
                "login s1", "page PAR 1 s1", "page PAR 11 s1", "expired s1", "login s2", "page PAR 1 s2", "page PAR 11 s2",
                "expired s2", "login s3", "logout s3",
            ])
    }

    @Test("Amadeus: WS-Addressing, the SHA-1 digest with a fresh nonce, Start then InSeries with sequence numbers, expiry, End")
    func amadeus() async throws {
        let emulator = try VendorEmulator(.amadeus, credentials: vendorCredentials, expireAfterCalls: 2)
        defer { emulator.stop() }
        let codes = try await StyleClient(.amadeus, emulator).fetchAll(city: "MTL")
        #expect(codes.count == 23 && Set(codes).count == 23)
        #expect(
            emulator.log == [
                "login s1", "page MTL 1 s1", "page MTL 11 s1", "expired s1", "login s2", "page MTL 1 s2", "page MTL 11 s2",
                "page MTL 21 s2", "logout s2",
            ])
    }

    @Test(
        "Travelport: HTTP Basic, its one SOAPAction as text/xml, TargetBranch, a gzip answer, and NextResultReference echoed with its ProviderCode"
    )
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

    @Test(
        "wrong credentials get each vendor's answer, typed, and no secret in it",
        arguments: [
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

    @Test(
        "no secret reaches a log line, a recorded exchange or an error: passwords, Basic tokens, digests, session tokens and ids",
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
        #expect(
            Array(emulator.log.prefix(8)) == [
                "login s1", "page PAR 1 s1", "login s2", "page NCE 1 s2", "page PAR 11 s1",
                "page PAR 21 s1", "page LYS 1 s1", "page NCE 11 s2",
            ])
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
