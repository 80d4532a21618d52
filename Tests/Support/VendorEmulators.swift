import Crypto
import Foundation
import FoundationXML
import Locking

/// Strict loopback emulators of the request styles real hotel services
/// demand (Concur, Sabre, Amadeus SOAP Header 4, Travelport uAPI, TBO's
/// WCF). Each checks every header, credential, digest, nonce, sequence
/// number and session of each request, answers the vendor's own fault or
/// status for each mistake, and logs what it accepted, so a test can prove
/// the order of logins, pages and logouts.
///
/// They read requests with Foundation's XML parser, not HotelKit's: what
/// they check does not depend on the code under test.
public final class VendorEmulator: Sendable {
    public enum Style: String, Sendable { case concur, sabre, amadeus, travelport, tbo }

    /// What the emulator accepted or refused, in order: `login s1`, `page 2 s1`, `logout s1`, `refused: …`.
    public var log: [String] { state.withLock { $0.log } }
    /// Every mistake it found in a request, in order.
    public var mistakes: [String] { state.withLock { $0.log.filter { $0.hasPrefix("refused") } } }
    public var url: String { server.url + "/service" }
    public var requests: [ScriptedHTTPServer.Request] { server.requests }

    public let style: Style
    public let credentials: [String: String]
    /// The catalogue: `hotels` per city, served `pageSize` at a time (the request's size where it names one).
    public let hotels: Int
    public let pageSize: Int
    /// The first session's token stops working after this many calls: the
    /// client must log in again (and, for a list, run its search again there).
    public let expireAfterCalls: Int?
    /// The sessions `expireAfterCalls` ends: the first by default; `s2` too
    /// ends the session a search is run again in.
    public let expiring: Set<String>
    /// The request (counted from 1) left unanswered until the client hangs up.
    public let stallRequest: Int?
    /// Signalled when the stalled request has arrived.
    public let stalled = DispatchSemaphore(value: 0)
    private let server: ScriptedHTTPServer
    private let state = PosixMutex(State())

    struct Session {
        var id: String
        var token: String
        var conversation: String = ""
        var sequence = 1
        var calls = 0
        var open = true
    }

    struct State {
        var log: [String] = []
        var sessions: [String: Session] = [:]
        var sessionCount = 0
        var nonces: Set<String> = []
        var messageIDs: Set<String> = []
        /// The position of each city's list, and the token that asks for what follows it.
        var positions: [String: Int] = [:]
        var tokens: [String: String] = [:]
    }

    public init(
        _ style: Style, credentials: [String: String], hotels: Int = 23, pageSize: Int = 10,
        expireAfterCalls: Int? = nil, expiring: Set<String> = ["s1"], stallRequest: Int? = nil
    ) throws {
        self.style = style
        self.credentials = credentials
        self.hotels = hotels
        self.pageSize = pageSize
        self.expireAfterCalls = expireAfterCalls
        self.expiring = expiring
        self.stallRequest = stallRequest
        let box = PosixMutex<VendorEmulator?>(nil)
        let count = PosixMutex(0)
        server = try ScriptedHTTPServer { request, connection in
            guard let emulator = box.withLock({ $0 }) else { return connection.respond(status: 503, body: []) }
            let number = count.withLock { count in
                count += 1
                return count
            }
            if number == emulator.stallRequest {
                emulator.stalled.signal()
                _ = connection.waitForClientClose(seconds: 30)
                return
            }
            let reply = emulator.answer(request)
            connection.respond(status: reply.status, headers: reply.headers, body: reply.body)
        }
        box.withLock { $0 = self }
    }

    public func stop() { server.stop() }

    struct Reply {
        var status = 200
        var headers: [String: String] = ["Content-Type": "text/xml; charset=utf-8"]
        var body: [UInt8] = []
    }

    private func answer(_ request: ScriptedHTTPServer.Request) -> Reply {
        state.withLock { state in
            var exchange = Exchange(request: request, emulator: self, state: state)
            let reply = exchange.answer()
            state = exchange.state
            return reply
        }
    }
}

/// One request being checked, with the emulator's state.
struct Exchange {
    let request: ScriptedHTTPServer.Request
    let emulator: VendorEmulator
    var state: VendorEmulator.State
    var document: XMLDocument?

    init(request: ScriptedHTTPServer.Request, emulator: VendorEmulator, state: VendorEmulator.State) {
        self.request = request
        self.emulator = emulator
        self.state = state
        document = try? XMLDocument(data: Data(request.body), options: [])
    }

    var credentials: [String: String] { emulator.credentials }

    mutating func answer() -> VendorEmulator.Reply {
        guard document != nil else { return refuse("not XML", status: 400, body: "") }
        switch emulator.style {
        case .concur: return concur()
        case .sabre: return sabre()
        case .amadeus: return amadeus()
        case .travelport: return travelport()
        case .tbo: return tbo()
        }
    }

    // MARK: Reading the request

    /// Text of the first node at an XPath written with local names (`//Header/Security/Username`).
    func value(_ path: String) -> String? {
        let xpath = path.split(separator: "/", omittingEmptySubsequences: false).map { step -> String in
            if step.isEmpty { return "" }
            if step.hasPrefix("@") { return "@*[local-name()='\(step.dropFirst())']" }
            return "*[local-name()='\(step)']"
        }.joined(separator: "/")
        return (try? document?.nodes(forXPath: xpath))?.first?.stringValue
    }

    func namespace(of path: String) -> String? {
        let xpath = path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "*[local-name()='\($0)']" }.joined(separator: "/")
        return ((try? document?.nodes(forXPath: xpath))?.first as? XMLElement)?.uri
    }

    func header(_ name: String) -> String? { request.headers[name.lowercased()] }

    var basicCredentials: (String, String)? {
        guard let value = header("Authorization"), value.hasPrefix("Basic "),
            let data = Data(base64Encoded: String(value.dropFirst(6))), let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    // MARK: Answers

    mutating func accept(_ entry: String) { state.log.append(entry) }

    /// A mistake is logged as `refused: …`; an expiry the emulator caused on purpose as `expired …`.
    mutating func refuse(_ mistake: String, status: Int, body: String, headers: [String: String] = [:]) -> VendorEmulator.Reply {
        state.log.append(mistake.hasPrefix("expired ") ? mistake : "refused: \(mistake)")
        var reply = VendorEmulator.Reply(status: status, body: Array(body.utf8))
        reply.headers.merge(headers) { _, new in new }
        return reply
    }

    mutating func soap11Fault(_ mistake: String, code: String, reason: String, namespaces: String = "", header: String = "")
        -> VendorEmulator.Reply
    {
        refuse(
            mistake, status: 500,
            body: """
                <soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"\(namespaces)><soap-env:Header>\(header)</soap-env:Header>\
                <soap-env:Body><soap-env:Fault><faultcode>\(code)</faultcode><faultstring>\(reason)</faultstring></soap-env:Fault></soap-env:Body></soap-env:Envelope>
                """)
    }

    func soap11(_ body: String, header: String = "") -> VendorEmulator.Reply {
        VendorEmulator.Reply(
            body: Array(
                """
                <soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"><soap-env:Header>\(header)</soap-env:Header>\
                <soap-env:Body>\(body)</soap-env:Body></soap-env:Envelope>
                """.utf8))
    }

    /// The next slice of a city's list: after the position its token stands
    /// for. A stateful service keeps a search in its session (`session`): a
    /// token is good only in the session that ran the search.
    mutating func page(city: String, token: String?, size: Int? = nil, session: String = "") -> (codes: [Int], next: String?)? {
        let search = Self.search(city, session: session)
        let position: Int
        if let token, !token.isEmpty {
            guard state.tokens[search] == token, let known = state.positions[search] else { return nil }
            position = known
        } else {
            position = 0
        }
        let count = min(size ?? emulator.pageSize, emulator.pageSize)
        let codes = Array(position..<min(position + count, emulator.hotels))
        let end = position + codes.count
        state.positions[search] = end
        guard end < emulator.hotels else {
            state.tokens[search] = nil
            return (codes, nil)
        }
        let next = "T\(city)\(end)-\(UUID().uuidString.prefix(8))"
        state.tokens[search] = next
        return (codes, next)
    }

    /// The key of a city's search in a session (or in none).
    static func search(_ city: String, session: String) -> String { city + "\u{1}" + session }

    static func code(_ city: String, _ index: Int) -> String { "\(city.prefix(3).uppercased())\(String(format: "%03d", index + 1))" }

    // MARK: Concur

    mutating func concur() -> VendorEmulator.Reply {
        guard header("Content-Type")?.hasPrefix("application/xml") == true else {
            return refuse("Content-Type \(header("Content-Type") ?? "none")", status: 415, body: "")
        }
        guard header("SOAPAction") == "search" else { return refuse("SOAPAction \(header("SOAPAction") ?? "none")", status: 400, body: "") }
        guard let (user, password) = basicCredentials, user == credentials["CONCUR_USER"], password == credentials["CONCUR_PASSWORD"] else {
            return refuse("HTTP Basic credentials", status: 403, body: "Forbidden")
        }
        guard namespace(of: "//Header/authentication") == "http://www.concur.com/webservice/auth",
            value("//Header/authentication/userid") == credentials["CONCUR_USER"],
            value("//Header/authentication/password") == credentials["CONCUR_PASSWORD"]
        else {
            return refuse("authentication header", status: 403, body: "Forbidden")
        }
        // Concur searches by position and answers one page of up to MaxResponses hotels.
        let criterion = "//Body/OTA_HotelSearchRQ/Criteria/Criterion/"
        guard let latitude = value(criterion + "Position/@Latitude").flatMap(Double.init),
            let longitude = value(criterion + "Position/@Longitude").flatMap(Double.init),
            let radius = value(criterion + "Radius/@Distance").flatMap(Double.init), radius > 0
        else {
            state.log.append("refused: position")
            return soap11(
                #"<OTA_HotelSearchRS xmlns="http://www.opentravel.org/OTA/2003/05"><Errors><Error Code="321" ShortText="Position and Radius are required"/></Errors></OTA_HotelSearchRS>"#
            )
        }
        let count = min(emulator.hotels, value("//Body/OTA_HotelSearchRQ/@MaxResponses").flatMap { Int($0) } ?? 100)
        accept("search near \(latitude),\(longitude) within \(radius) km")
        let properties = (0..<count).map { index in
            let code = Self.code("SEA", index)
            // The address is only in the extensions, as Concur sends it.
            return
                #"<Property HotelCode="\#(code)" HotelName="Hotel \#(code)"><Position Latitude="\#(latitude)" Longitude="\#(longitude)"/><TPA_Extensions><Description Name="Phone"><Text>+1 206 555 01\#(index)</Text></Description><Description Name="Address"><Text>\#(index + 1) Pike St, Seattle, WA 9810\#(index)</Text></Description></TPA_Extensions></Property>"#
        }.joined()
        return soap11(
            #"<OTA_HotelSearchRS xmlns="http://www.opentravel.org/OTA/2003/05"><Success/><Properties>\#(properties)</Properties></OTA_HotelSearchRS>"#
        )
    }

    // MARK: Sabre

    mutating func sabre() -> VendorEmulator.Reply {
        guard let action = value("//Header/MessageHeader/Action"), header("SOAPAction") == action,
            value("//Header/MessageHeader/Service") == action
        else {
            return soap11Fault(
                "eb:Action \(value("//Header/MessageHeader/Action") ?? "none") for SOAPAction \(header("SOAPAction") ?? "none")",
                code: "soap-env:Client.InvalidAction", reason: "Action specified in EbxmlMessage does not exist.")
        }
        guard let messageID = value("//Header/MessageHeader/MessageData/MessageId"), messageID.hasPrefix("mid:"),
            state.messageIDs.insert(messageID).inserted
        else {
            return soap11Fault("MessageId missing or repeated", code: "soap-env:Client.InvalidEbXmlMessage", reason: "Invalid MessageId")
        }
        guard value("//Header/MessageHeader/@mustUnderstand") == "1", value("//Header/MessageHeader/CPAId") == credentials["SABRE_PCC"],
            value("//Header/MessageHeader/From/PartyId")?.isEmpty == false, value("//Header/MessageHeader/To/PartyId")?.isEmpty == false,
            value("//Header/MessageHeader/MessageData/Timestamp")?.isEmpty == false
        else {
            return soap11Fault(
                "MessageHeader incomplete", code: "soap-env:Client.InvalidEbXmlMessage",
                reason: "Required element or attribute missing in the ebXML MessageHeader")
        }
        let conversation = value("//Header/MessageHeader/ConversationId") ?? ""
        let token =
            #"<wsse:Security xmlns:wsse="http://schemas.xmlsoap.org/ws/2002/12/secext"><wsse:BinarySecurityToken valueType="String" EncodingType="wsse:Base64Binary">TOKEN</wsse:BinarySecurityToken></wsse:Security>"#
        if action == "SessionCreateRQ" {
            guard namespace(of: "//Header/Security") == "http://schemas.xmlsoap.org/ws/2002/12/secext",
                value("//Header/Security/UsernameToken/Username") == credentials["SABRE_USER"],
                value("//Header/Security/UsernameToken/Password") == credentials["SABRE_PASSWORD"],
                value("//Header/Security/UsernameToken/Organization") == credentials["SABRE_PCC"],
                value("//Header/Security/UsernameToken/Domain") == "DEFAULT", !conversation.isEmpty
            else {
                return soap11Fault(
                    "SessionCreateRQ credentials", code: "soap-env:Client.AuthenticationFailed", reason: "Authentication failed")
            }
            state.sessionCount += 1
            let id = "s\(state.sessionCount)"
            let secret =
                #"Shared/IDL:IceSess\/SessMgr:1\.0.IDL/Common/!ICESMS\/ACPCRTC!ICESMSLB\/CRT.LB!-\#(3_161_758_806 + state.sessionCount)"#
            state.sessions[secret] = VendorEmulator.Session(id: id, token: secret, conversation: conversation, calls: 1)
            accept("login \(id)")
            return soap11(
                #"<SessionCreateRS xmlns="http://www.opentravel.org/OTA/2002/11" status="Approved" version="1"><ConversationId>\#(conversation)</ConversationId></SessionCreateRS>"#,
                header: token.replacingOccurrences(of: "TOKEN", with: secret))
        }
        let sent = value("//Header/Security/BinarySecurityToken") ?? ""
        guard var session = state.sessions[sent], session.open else {
            return soap11Fault(
                "token \(sent.isEmpty ? "missing" : "unknown or closed")", code: "soap-env:Client.InvalidSecurityToken",
                reason: "Invalid or Expired binary security token: \(sent)")
        }
        guard value("//Header/Security/UsernameToken") == nil else {
            return soap11Fault(
                "credentials after login", code: "soap-env:Client.AuthenticationNotAllowed",
                reason: "Authentication is not allowed for this service. Please use SessionCreateRQ")
        }
        guard session.conversation == conversation else {
            return soap11Fault(
                "ConversationId changed in \(session.id)", code: "soap-env:Client.InvalidEbXmlMessage", reason: "ConversationId mismatch")
        }
        session.calls += 1
        if let limit = emulator.expireAfterCalls, emulator.expiring.contains(session.id), session.calls > limit {
            session.open = false
            state.sessions[sent] = session
            return soap11Fault(
                "expired \(session.id)", code: "soap-env:Client.InvalidSecurityToken",
                reason: "Invalid or Expired binary security token: \(sent)")
        }
        state.sessions[sent] = session
        switch action {
        case "SessionCloseRQ":
            state.sessions[sent]?.open = false
            accept("logout \(session.id)")
            return soap11(#"<SessionCloseRS xmlns="http://www.opentravel.org/OTA/2002/11" status="Approved" version="1"/>"#)
        case "OTA_HotelAvailLLSRQ":
            let city = value("//Body/OTA_HotelAvailRQ/AvailRequestSegment/HotelSearchCriteria/Criterion/HotelRef/@HotelCityCode") ?? ""
            // The schema's types: TimeSpan's ends are month-day, AdditionalAvail's Ind a boolean when sent.
            let span = ["Start", "End"].map { value("//Body/OTA_HotelAvailRQ/AvailRequestSegment/TimeSpan/@\($0)") ?? "" }
            let indicator = value("//Body/OTA_HotelAvailRQ/AvailRequestSegment/AdditionalAvail/@Ind")
            guard span.allSatisfy({ $0.wholeMatch(of: /[01][0-9]-[0-3][0-9]/) != nil }), [nil, "true", "false"].contains(indicator) else {
                return soap11Fault(
                    "invalid TimeSpan \(span) or AdditionalAvail \(indicator ?? "none")", code: "soap-env:Client.ValidationFailed",
                    reason: "ERR.SWS.CLIENT.VALIDATION_FAILED")
            }
            let more = indicator == "true"
            // "More" rows belong to the session that ran the search, and only to it.
            let token = more ? state.tokens[Self.search(city, session: session.id)] : nil
            if more, token == nil {
                return soap11(
                    #"<OTA_HotelAvailRS xmlns="http://webservices.sabre.com/sabreXML/2011/10"><ApplicationResults status="NotProcessed"><Error Type="BusinessLogic"><SystemSpecificResults><Message>NO MORE AVAILABILITY IN THIS SESSION</Message></SystemSpecificResults></Error></ApplicationResults></OTA_HotelAvailRS>"#
                )
            }
            let slice = page(city: city, token: token, session: session.id) ?? ([], nil)
            accept("page \(city) \(slice.codes.first.map { $0 + 1 } ?? 0) \(session.id)")
            let options = slice.codes.map { index in
                let code = Self.code(city, index)
                return
                    #"<AvailabilityOption RPH="\#(index + 1)"><BasicPropertyInfo HotelCode="\#(code)" HotelName="Hotel \#(code)" Latitude="48.\#(index)" Longitude="2.\#(index)"><Address><AddressLine>\#(index + 1) RUE DE LA PAIX</AddressLine><AddressLine>\#(city)</AddressLine></Address></BasicPropertyInfo></AvailabilityOption>"#
            }.joined()
            return soap11(
                #"<OTA_HotelAvailRS xmlns="http://webservices.sabre.com/sabreXML/2011/10"><ApplicationResults status="Complete"/><AdditionalAvail Ind="\#(slice.next == nil ? "false" : "true")"/><AvailabilityOptions>\#(options)</AvailabilityOptions></OTA_HotelAvailRS>"#
            )
        default:
            return soap11Fault(
                "action \(action)", code: "soap-env:Client.InvalidAction", reason: "Action specified in EbxmlMessage does not exist.")
        }
    }
}

extension ISO8601DateFormatter {
    static var withFraction: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

/// gzip with stored (uncompressed) deflate blocks: a valid stream any
/// decoder reads, written here so the emulator needs no zlib.
enum Gzip {
    static func stored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        for value in [crc32(data), UInt32(truncatingIfNeeded: data.count)] {
            out += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return out
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
