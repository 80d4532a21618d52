import Failures
import HTTP
import Hotels
import Imaging
import Logos
import Matching
import OfflineStore
import SOAP
import Testing
import WSDL

/// Each error type says what it means in its own module (a `MeaningfulError`); `ErrorMeaning` reads it.
@Suite("What errors mean, each in its own module")
struct ErrorMeaningTests {
    struct NotHotelKits: Error {}

    static let securityFault = SOAPFault(
        version: .v1_1, code: .init(value: "wsse:InvalidSecurity", localName: "InvalidSecurity"), reasons: [.init(text: "no")])

    @Test(
        "SOAP, HTTP, OfflineStore, Matching, WSDL, Hotels, Imaging and Logos errors mean what their own modules say; another error is bad data",
        arguments: [
            (ErrorMeaningTests.securityFault as any Error, ErrorMeaning.Kind.credentials, Int32(77), false),
            (TransportError.httpStatus(503, snippet: ""), .transient, 69, true),
            (StoreError(path: "/x", reason: "disk full", kind: .io), .storage, 74, false),
            (StoreError(path: "postgres://db", reason: "taken over", kind: .leaseLost), .transient, 75, false),
            (CatalogueError(.unknownRecord, "no H1 in list 3"), .noInput, 66, false),
            (WSDLError.missing(document: "a.wsdl", referrer: nil, reason: "gone"), .noInput, 66, false),
            (ProfileError(kind: .unknownName, source: "nosuch", key: nil, reason: "no such profile"), .usage, 64, false),
            (ImageError.unreadable(path: "a.png", reason: "gone"), .noInput, 66, false),
            (LogoError.notCached("http://x/logo.png"), .unavailable, 69, false),
            (NotHotelKits(), .badData, 65, false),
        ])
    func meanings(error: any Error, kind: ErrorMeaning.Kind, exitCode: Int32, isRetryable: Bool) {
        let meaning = ErrorMeaning(error)
        #expect(meaning.kind == kind && meaning.exitCode == exitCode && meaning.isRetryable == isRetryable)
        #expect(meaning == (error as? any MeaningfulError)?.meaning ?? ErrorMeaning(kind: .badData, status: .dataError))
    }

    @Test("a security fault is the credentials, with the hint that says which")
    func credentials() {
        #expect(ErrorMeaning(Self.securityFault) == .credentials && ErrorMeaning.credentials.hint?.contains("--credentials FILE") == true)
    }

    @Test("a filter chain that does not read is a usage error (64), wherever it is given")
    func badFilter() {
        let error = #expect(throws: FilterSpecError.self) { try FilterChain(parsing: "resize:9") }
        #expect(error.map { ErrorMeaning($0).status } == .usage)
    }

    @Test("an error redacted of a secret means what it meant: a profile's mistake stays 78, not bad data")
    func redacted() {
        let secrets = SecretRedactor()
        secrets.add("hunter2-secret")
        let mistake = ProfileError(source: "p.json", key: "body", reason: "“hunter2-secret” is not a template")
        let redacted = secrets.redact(mistake)
        #expect(redacted is RedactedError && !"\(redacted)".contains("hunter2-secret"))
        #expect(ErrorMeaning(redacted) == ErrorMeaning(mistake) && ErrorMeaning(redacted).status == .config)
    }
}
