import Crypto
import Foundation
import FoundationXML
import Locking

// The emulators of Amadeus SOAP Header 4, Travelport uAPI and TBO's WCF; Concur
// and Sabre, and what they share, are in VendorEmulators.swift.
extension Exchange {
    // MARK: Amadeus SOAP Header 4

    static let wsa = "http://www.w3.org/2005/08/addressing"

    mutating func amadeusFault(_ mistake: String, _ reason: String) -> VendorEmulator.Reply {
        soap11Fault(mistake, code: "soap:Client", reason: reason, namespaces: #" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/""#)
    }

    mutating func amadeus() -> VendorEmulator.Reply {
        // A missing WS-Addressing header gets the fault the WS-Addressing SOAP
        // binding defines, naming the header in a wsa:FaultDetail header block.
        if let missing = ["MessageID", "Action", "To"].first(where: { namespace(of: "//Header/\($0)") != Self.wsa }) {
            return soap11Fault(
                "WS-Addressing \(missing) missing", code: "wsa:MessageAddressingHeaderRequired",
                reason: "A required header representing a Message Addressing Property is not present",
                namespaces: #" xmlns:wsa="\#(Self.wsa)""#,
                header: "<wsa:FaultDetail><wsa:ProblemHeaderQName>wsa:\(missing)</wsa:ProblemHeaderQName></wsa:FaultDetail>")
        }
        guard let messageID = value("//Header/MessageID"),
            state.messageIDs.insert(messageID).inserted,
            value("//Header/Action") == header("SOAPAction"), value("//Header/To") == emulator.url
        else {
            return amadeusFault("WS-Addressing MessageID, Action or To", " 12|Presentation|soap message header incorrect")
        }
        let status = value("//Header/Session/@TransactionStatusCode") ?? ""
        let isStart = status == "Start"
        var session: VendorEmulator.Session
        if isStart {
            guard let nonceText = value("//Header/Security/UsernameToken/Nonce"), let nonce = Data(base64Encoded: nonceText),
                value("//Header/Security/UsernameToken/Nonce/@EncodingType")?.hasSuffix("#Base64Binary") == true,
                let created = value("//Header/Security/UsernameToken/Created"),
                value("//Header/Security/UsernameToken/Password/@Type")?.hasSuffix("#PasswordDigest") == true,
                value("//Header/Security/UsernameToken/Username") == credentials["AMADEUS_USER"],
                value("//Header/AMA_SecurityHostedUser/UserID/@PseudoCityCode") == credentials["AMADEUS_OFFICE"]
            else {
                return amadeusFault("security header", " 12|Presentation|soap message header incorrect")
            }
            guard state.nonces.insert(nonceText).inserted else { return amadeusFault("nonce reused", " 11|Session|") }
            guard let createdDate = ISO8601DateFormatter.withFraction.date(from: created) ?? ISO8601DateFormatter().date(from: created),
                abs(createdDate.timeIntervalSinceNow) < 300
            else {
                return amadeusFault("Created \(created)", " 11|Session|")
            }
            let passwordHash = Data(Insecure.SHA1.hash(data: Data((credentials["AMADEUS_PASSWORD"] ?? "").utf8)))
            let expected = Data(Insecure.SHA1.hash(data: nonce + Data(created.utf8) + passwordHash)).base64EncodedString()
            guard value("//Header/Security/UsernameToken/Password") == expected else { return amadeusFault("digest", " 11|Session|") }
            state.sessionCount += 1
            // The log's name (s1), and the SessionId on the wire, as Amadeus's look.
            session = VendorEmulator.Session(
                id: "s\(state.sessionCount)", token: "TOKEN\(UUID().uuidString.prefix(12))",
                conversation: "01ZWHV5E\(String(format: "%02d", state.sessionCount))")
            accept("login \(session.id)")
        } else {
            guard value("//Header/Security") == nil else {
                return amadeusFault("security header InSeries", " 12|Presentation|soap message header incorrect")
            }
            guard status == "InSeries" || status == "End", let wire = value("//Header/Session/SessionId"),
                var known = state.sessions[wire], known.open, value("//Header/Session/SecurityToken") == known.token
            else {
                return amadeusFault("session \(value("//Header/Session/SessionId") ?? "none")", "99|Session|Not authenticated")
            }
            guard value("//Header/Session/SequenceNumber") == String(known.sequence + 1) else {
                return amadeusFault(
                    "sequence \(value("//Header/Session/SequenceNumber") ?? "none") after \(known.sequence) in \(known.id)",
                    "93|Session|Illogical conversation")
            }
            known.sequence += 1
            known.calls += 1
            if let limit = emulator.expireAfterCalls, emulator.expiring.contains(known.id), known.calls >= limit {
                known.open = false
                state.sessions[wire] = known
                return amadeusFault("expired \(known.id)", "95|Session|Inactive conversation")
            }
            session = known
        }
        let sessionHeader = { (session: VendorEmulator.Session, status: String) in
            #"<awsse:Session xmlns:awsse="http://xml.amadeus.com/2010/06/Session_v3" TransactionStatusCode="\#(status)"><awsse:SessionId>\#(session.conversation)</awsse:SessionId><awsse:SequenceNumber>\#(session.sequence)</awsse:SequenceNumber><awsse:SecurityToken>\#(session.token)</awsse:SecurityToken></awsse:Session>"#
        }
        if status == "End" {
            guard value("//Body/Security_SignOut") != nil else {
                return amadeusFault("End without Security_SignOut", "93|Session|Illogical conversation")
            }
            session.open = false
            state.sessions[session.conversation] = session
            accept("logout \(session.id)")
            return soap11(
                #"<Security_SignOutReply xmlns="http://xml.amadeus.com/VLSSOR_04_1_1A"><processStatus><statusCode>P</statusCode></processStatus></Security_SignOutReply>"#,
                header: sessionHeader(session, "End"))
        }
        state.sessions[session.conversation] = session
        let city =
            value("//Body/OTA_HotelAvailRQ/AvailRequestSegments/AvailRequestSegment/HotelSearchCriteria/Criterion/HotelRef/@HotelCityCode")
            ?? ""
        // The token goes on the segment (amadeus-ws-client sends it there); one on the root is ignored, as Amadeus ignores it.
        guard
            let slice = page(
                city: city, token: value("//Body/OTA_HotelAvailRQ/AvailRequestSegments/AvailRequestSegment/@MoreDataEchoToken"),
                session: session.id)
        else {
            return soap11(
                #"<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05"><Errors><Error Type="12" Code="3286" ShortText="INVALID MORE DATA ECHO TOKEN"/></Errors></OTA_HotelAvailRS>"#,
                header: sessionHeader(session, "InSeries"))
        }
        accept("page \(city) \(slice.codes.first.map { $0 + 1 } ?? 0) \(session.id)")
        let stays = slice.codes.map { index in
            let code = Self.code(city, index)
            return
                #"<RoomStay><BasicPropertyInfo HotelCode="\#(code)" HotelName="HOTEL \#(code)"><Position Latitude="4540\#(index)" Longitude="-7356\#(index)"/><Address><AddressLine>\#(index + 1) RUE SAINT-PAUL</AddressLine><CityName>\#(city)</CityName></Address></BasicPropertyInfo></RoomStay>"#
        }.joined()
        let more = slice.next.map { #" MoreIndicator="\#($0)""# } ?? ""
        return soap11(
            #"<OTA_HotelAvailRS xmlns="http://www.opentravel.org/OTA/2003/05"><Success/><RoomStays\#(more)>\#(stays)</RoomStays></OTA_HotelAvailRS>"#,
            header: sessionHeader(session, "InSeries"))
    }

    // MARK: Travelport

    mutating func travelport() -> VendorEmulator.Reply {
        guard let (user, password) = basicCredentials, user == credentials["TRAVELPORT_USER"],
            password == credentials["TRAVELPORT_PASSWORD"]
        else {
            return refuse(
                "HTTP Basic credentials", status: 401, body: "Unauthorized", headers: ["WWW-Authenticate": #"Basic realm="AXIS""#])
        }
        guard header("Accept-Encoding")?.contains("gzip") == true else { return refuse("no gzip", status: 406, body: "") }
        // uAPI posts every service to one SOAPAction, as SOAP 1.1 text/xml.
        guard header("Content-Type")?.hasPrefix("text/xml") == true else {
            return refuse("Content-Type \(header("Content-Type") ?? "none")", status: 415, body: "")
        }
        guard header("SOAPAction") == "http://localhost:8080/kestrel/HotelService" else {
            return soap11Fault("SOAPAction \(header("SOAPAction") ?? "none")", code: "Client", reason: "Unknown SOAPAction")
        }
        guard value("//Body/HotelSearchAvailabilityReq/@TargetBranch") == credentials["TRAVELPORT_BRANCH"] else {
            return soap11Fault("TargetBranch", code: "Server.Business", reason: "Invalid TargetBranch")
        }
        let city = value("//Body/HotelSearchAvailabilityReq/HotelSearchLocation/HotelLocation/@Location") ?? ""
        let reference = value("//Body/HotelSearchAvailabilityReq/NextResultReference")
        if reference?.isEmpty == true {
            return soap11Fault("an empty NextResultReference", code: "Server.Data", reason: "Invalid NextResultReference")
        }
        if reference != nil, value("//Body/HotelSearchAvailabilityReq/NextResultReference/@ProviderCode") != "1G" {
            return soap11Fault(
                "NextResultReference without its ProviderCode", code: "Server.Business", reason: "Invalid NextResultReference")
        }
        guard let slice = page(city: city, token: reference) else {
            return soap11Fault("NextResultReference \(reference ?? "")", code: "Server.Business", reason: "Invalid NextResultReference")
        }
        accept("page \(city) \(slice.codes.first.map { $0 + 1 } ?? 0)")
        let results = slice.codes.map { index in
            let code = String(format: "%05d", index + 1)
            return
                #"<hotel:HotelSearchResult><hotel:HotelProperty HotelChain="XX" HotelCode="\#(code)" Name="HOTEL \#(code)"><hotel:PropertyAddress><hotel:Address>\#(index + 1) STRAND</hotel:Address><hotel:Address>\#(city)</hotel:Address></hotel:PropertyAddress><common_v47_0:CoordinateLocation latitude="51.\#(index)" longitude="-0.\#(index)"/></hotel:HotelProperty></hotel:HotelSearchResult>"#
        }.joined()
        let next =
            slice.next.map { #"<common_v47_0:NextResultReference ProviderCode="1G">\#($0)</common_v47_0:NextResultReference>"# } ?? ""
        var reply = soap11(
            #"<hotel:HotelSearchAvailabilityRsp xmlns:hotel="http://www.travelport.com/schema/hotel_v47_0" xmlns:common_v47_0="http://www.travelport.com/schema/common_v47_0" TransactionId="X">\#(next)\#(results)</hotel:HotelSearchAvailabilityRsp>"#
        )
        reply.body = Gzip.stored(reply.body)
        reply.headers["Content-Encoding"] = "gzip"
        return reply
    }

    // MARK: TBO

    mutating func tbo() -> VendorEmulator.Reply {
        let soap12 = "http://www.w3.org/2003/05/soap-envelope"
        func fault(_ mistake: String, _ subcode: String, _ reason: String) -> String {
            #"<s:Envelope xmlns:s="\#(soap12)" xmlns:a="\#(Self.wsa)"><s:Body><s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>a:\#(subcode)</s:Value></s:Subcode></s:Code><s:Reason><s:Text xml:lang="en-US">\#(reason)</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>"#
        }
        let action = value("//Header/Action") ?? ""
        guard header("Content-Type")?.hasPrefix("application/soap+xml") == true,
            header("Content-Type")?.contains(#"action="\#(action)""#) == true, namespace(of: "//Envelope") == soap12
        else {
            return refuse("SOAP 1.2 Content-Type with the action", status: 415, body: "")
        }
        guard action == "http://TekTravel/HotelBookingApi/HotelSearch", namespace(of: "//Header/Action") == Self.wsa else {
            return refuse(
                "wsa:Action \(action)", status: 500,
                body: fault(
                    "", "ActionNotSupported",
                    "The message with Action '\(action)' cannot be processed at the receiver, due to a ContractFilter mismatch at the EndpointDispatcher."
                ))
        }
        guard let messageID = value("//Header/MessageID"), messageID.hasPrefix("urn:uuid:"), state.messageIDs.insert(messageID).inserted
        else {
            return refuse(
                "wsa:MessageID missing or repeated", status: 500,
                body: fault(
                    "", "InvalidMessageInformationHeader",
                    "A message information header is not valid and the message cannot be processed: MessageID."))
        }
        guard value("//Header/To") == emulator.url else {
            return refuse(
                "wsa:To", status: 500,
                body: fault(
                    "", "DestinationUnreachable",
                    "The message with To '\(value("//Header/To") ?? "")' cannot be processed at the receiver, due to an AddressFilter mismatch at the EndpointDispatcher."
                ))
        }
        let envelope = { (body: String) in
            #"<s:Envelope xmlns:s="\#(soap12)" xmlns:a="\#(Self.wsa)"><s:Header><a:Action s:mustUnderstand="1">http://TekTravel/HotelBookingApi/IHotelService/HotelSearchResponse</a:Action></s:Header><s:Body><HotelSearchResponse xmlns="http://TekTravel/HotelBookingApi">\#(body)</HotelSearchResponse></s:Body></s:Envelope>"#
        }
        guard value("//Header/Credentials/@UserName") == credentials["TBO_USER"],
            value("//Header/Credentials/@Password") == credentials["TBO_PASSWORD"]
        else {
            var reply = refuse(
                "Credentials", status: 200,
                body: envelope("<Status><StatusCode>02</StatusCode><Description>LoginErr: Login Failed for Member.</Description></Status>"))
            reply.headers["Content-Type"] = "application/soap+xml; charset=utf-8"
            return reply
        }
        let city = value("//Body/HotelSearchRequest/CityName") ?? ""
        accept("page \(city) 1")
        let results = (0..<emulator.hotels).map { index in
            let code = String(1_000_000 + index)
            return
                "<HotelResult><ResultIndex>\(index + 1)</ResultIndex><HotelInfo><HotelCode>\(code)</HotelCode><HotelName>Hotel \(code)</HotelName><HotelPicture>https://img.tbo.test/\(code).jpg</HotelPicture><HotelAddress>\(index + 1) Nanjing Road, \(city)</HotelAddress><Latitude>31.2\(index)</Latitude><Longitude>121.4\(index)</Longitude></HotelInfo></HotelResult>"
        }.joined()
        var reply = VendorEmulator.Reply(
            body: Array(
                envelope(
                    "<Status><StatusCode>01</StatusCode><Description>Successful: HotelSearch Successful</Description></Status><HotelResultList>\(results)</HotelResultList>"
                ).utf8))
        reply.headers["Content-Type"] = "application/soap+xml; charset=utf-8"
        return reply
    }
}
