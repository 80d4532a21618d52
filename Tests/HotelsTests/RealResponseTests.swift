import Foundation
import Hotels
import SOAP
import Testing
import TestSupport

/// Responses published by vendors, standards bodies and client libraries
/// (`Samples/Real`, origins in its SOURCES.md).
@Suite("Real responses")
struct RealResponseTests {
    static let files: [String] = {
        let root = Samples.url("Real")
        let found = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return found.filter { $0.pathExtension == "xml" }.map { String($0.path.dropFirst(root.path.count + 1)) }.sorted()
    }()

    /// Either form, as a client that does not know the service yet would read it.
    func parse(_ file: String, profile: String = "Samples/Profiles/ota-plain-xml.json") throws -> HotelPage {
        try HotelResponseParser(profile: .named(Samples.profileArgument(profile))).parse(bytes: Array(Data(contentsOf: Samples.url("Real/\(file)"))))
    }

    func fault(_ file: String) throws -> SOAPFault {
        do {
            _ = try parse(file)
        } catch let fault as SOAPFault {
            return fault
        }
        throw CocoaError(.coderInvalidValue)
    }

    @Test("every file's origin is recorded in SOURCES.md")
    func sources() throws {
        let sources = try String(contentsOf: Samples.url("Real/SOURCES.md"), encoding: .utf8)
        #expect(Self.files.count >= 18)
        for file in Self.files { #expect(sources.contains("`\(file)`"), "\(file) has no row in SOURCES.md") }
    }

    @Test("every file is well-formed XML the reader accepts, but the one whose prefix is never declared")
    func wellFormed() throws {
        for file in Self.files where file != "amadeus/fault-bare-undeclared-prefix.xml" {
            do {
                _ = try parse(file)
            } catch is SOAPFault {
            } catch is ServiceReportedError {
            } catch {
                Issue.record("\(file): \(error)")
            }
        }
        #expect(throws: XMLReaderError.self) { try parse("amadeus/fault-bare-undeclared-prefix.xml") }
    }

    @Test("vendor faults: detail lines, one-line reasons, and what each is about")
    func faults() throws {
        let travelport = try fault("travelport/fault-ErrorInfo-prefixed.xml")
        #expect(travelport.detailLines.first == "Code: 10024")
        #expect(travelport.topic == .service)
        let multiline = try fault("travelport/fault-multiline-faultstring.xml")
        #expect(!multiline.reason.contains("\n") && !multiline.reason.contains("  "))
        #expect(try fault("tbo/fault-soap12-ActionNotSupported.xml").topic == .addressing)
        #expect(try fault("sabre/fault-InvalidSecurityToken-ebxml-header.xml").topic == .authentication)
        let amadeus = try fault("amadeus/fault-bare-faultactor.xml") // no envelope at all
        #expect(amadeus.node == "SI:Backend" && amadeus.reason == "1929|Application|INVALID RECORD LOCATOR")
    }

    @Test("OTA errors in a normal body are the service's errors")
    func otaErrors() throws {
        #expect(throws: ServiceReportedError(message: "No availability", path: "//Errors/Error/@ShortText")) {
            try parse("concur/OTA_HotelSearchRS-error-322.xml")
        }
        #expect(throws: ServiceReportedError(message: "Invalid start/end date combination", path: "//Errors/Error/@ShortText")) {
            try parse("alpinebits/OTA_HotelInvCountNotifRS-error-2020-10.xml")
        }
    }
}
