import Foundation
import HTTP
import SOAP
import TestSupport
import Testing

@testable import WSDL

/// A folder of documents for one test, removed with it.
final class DocumentFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wsdl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ path: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// WSDL and schema text, small enough to read in a test.
enum Documents {
    static func wsdl(imports: [String] = [], schemaImports: [String] = [], body: String = "") -> String {
        """
        <?xml version="1.0"?>
        <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
            xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:test" targetNamespace="urn:test">
          \(imports.map { #"<wsdl:import namespace="urn:test" location="\#($0)"/>"# }.joined())
          <wsdl:types><xs:schema targetNamespace="urn:test/imports">\(schemaImports.map { #"<xs:import namespace="urn:test" schemaLocation="\#($0)"/>"# }.joined())</xs:schema></wsdl:types>
          \(body)
        </wsdl:definitions>
        """
    }

    static func schema(_ content: String, imports: [String] = [], target: String = "urn:test") -> String {
        """
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="\(target)" targetNamespace="\(target)" elementFormDefault="qualified">
        \(imports.map { #"<xs:import namespace="urn:other" schemaLocation="\#($0)"/>"# }.joined())
        \(content)
        </xs:schema>
        """
    }

    /// A port type, SOAP binding and service for `Search(SearchRQ) → SearchRS`.
    static let searchOperation = """
        <wsdl:message name="In"><wsdl:part name="parameters" element="tns:SearchRQ"/></wsdl:message>
        <wsdl:message name="Out"><wsdl:part name="parameters" element="tns:SearchRS"/></wsdl:message>
        <wsdl:portType name="Port"><wsdl:operation name="Search"><wsdl:input message="tns:In"/><wsdl:output message="tns:Out"/></wsdl:operation></wsdl:portType>
        <wsdl:binding name="Binding" type="tns:Port"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
          <wsdl:operation name="Search"><soap:operation soapAction="urn:test#Search"/>
            <wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
        </wsdl:binding>
        <wsdl:service name="Test"><wsdl:port name="P" binding="tns:Binding"><soap:address location="http://test.invalid/svc"/></wsdl:port></wsdl:service>
        """
}

@Suite("Loading a WSDL set")
struct WSDLLoaderTests {
    func loader(root: String? = nil, cache: String? = nil, configure: (inout WSDLLoader.Options) -> Void = { _ in }) -> WSDLLoader {
        var options = WSDLLoader.Options(cacheFolder: cache)
        options.localRoot = root
        configure(&options)
        return WSDLLoader(options: options)
    }

    func loadError(_ loader: WSDLLoader, _ location: String) async -> WSDLError? {
        do {
            _ = try await loader.load(location)
            return nil
        } catch {
            return error as? WSDLError
        }
    }

    @Test("imports and includes are followed at relative, ../ and nested locations; schemas that import each other are read once")
    func chainedImports() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("wsdl/service.wsdl", Documents.wsdl(imports: ["binding.wsdl"]))
        try folder.write("wsdl/binding.wsdl", Documents.wsdl(schemaImports: ["../xsd/messages.xsd"], body: Documents.searchOperation))
        try folder.write(
            "xsd/messages.xsd",
            Documents.schema(
                #"""
                <xs:include schemaLocation="common/types.xsd"/>
                <xs:element name="SearchRQ"><xs:complexType><xs:sequence><xs:element name="City" type="xs:string"/></xs:sequence></xs:complexType></xs:element>
                <xs:element name="SearchRS" type="tns:Result"/>
                """#))
        try folder.write(
            "xsd/common/types.xsd",
            Documents.schema(
                #"""
                <xs:import namespace="urn:test" schemaLocation="../messages.xsd"/>
                <xs:complexType name="Result"><xs:sequence><xs:element name="Hotel" maxOccurs="unbounded"><xs:complexType>
                  <xs:attribute name="HotelCode" use="required"/><xs:attribute name="HotelName"/></xs:complexType></xs:element></xs:sequence></xs:complexType>
                """#))
        let set = try await loader(root: folder.url.path).load(root)
        #expect(set.documents.count == 4)
        #expect(
            set.documents.map { URL(string: $0.url)?.lastPathComponent } == ["service.wsdl", "binding.wsdl", "messages.xsd", "types.xsd"])
        #expect(set.documents[3].referrer?.hasSuffix("messages.xsd") == true)
        let description = ServiceDescription(set)
        #expect(description.operations.map(\.name) == ["Search"])
        let output = try #require(description.bodyShape(of: try description.operation(named: "Search"), output: true))
        #expect(output.children.map(\.name) == ["Hotel"])
        #expect(output.children[0].attributes.map(\.name) == ["HotelCode", "HotelName"])
    }

    @Test(
        "a missing schema is named with the document that refers to it, and the operations are read all the same; a missing WSDL stops the load"
    )
    func missingDocument() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("service.wsdl", Documents.wsdl(schemaImports: ["types/absent.xsd"], body: Documents.searchOperation))
        let set = try await loader(root: folder.url.path).load(root)
        let missing = try #require(set.missing.first)
        #expect(set.missing.count == 1 && missing.location.hasSuffix("types/absent.xsd") && missing.referrer.hasSuffix("service.wsdl"))
        #expect(missing.reason == "no such file")
        let description = ServiceDescription(set)
        #expect(description.operations.map(\.name) == ["Search"])
        #expect(description.inspection.lines.contains { $0.hasPrefix("  missing: ") && $0.contains("types/absent.xsd ← ") })
        let top = try folder.write("top.wsdl", Documents.wsdl(imports: ["absent.wsdl"]))
        let error = await loadError(loader(root: folder.url.path), top)
        guard case .missing(let document, let referrer, _) = error else {
            Issue.record("expected missing, got \(String(describing: error))")
            return
        }
        #expect(document.hasSuffix("absent.wsdl") && referrer?.hasSuffix("top.wsdl") == true)
        #expect(error?.description.contains("imported by") == true)
    }

    @Test("HTNG's and OpenTravel's published layout loads with no root given (wsdls/ imports ../opentravel/); ../../ is still refused")
    func siblingSchemaFolder() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write(
            "htng/wsdls/service.wsdl",
            Documents.wsdl(
                schemaImports: ["../opentravel/messages.xsd"],
                body: Documents.searchOperation))
        try folder.write(
            "htng/opentravel/messages.xsd",
            Documents.schema(
                #"""
                <xs:element name="SearchRQ"><xs:complexType><xs:sequence><xs:element name="City" type="xs:string"/></xs:sequence></xs:complexType></xs:element>
                <xs:element name="SearchRS"><xs:complexType><xs:sequence><xs:element name="Hotel" maxOccurs="unbounded"/></xs:sequence></xs:complexType></xs:element>
                """#))
        let set = try await loader().load(root)
        #expect(set.documents.count == 2 && set.missing.isEmpty)
        let escaping = try folder.write("htng/wsdls/escape.wsdl", Documents.wsdl(schemaImports: ["../../outside.xsd"]))
        try folder.write("outside.xsd", Documents.schema(""))
        let error = await loadError(loader(), escaping)
        guard case .refused = error else {
            Issue.record("expected refused, got \(String(describing: error))")
            return
        }
        // A WSDL at the top of the home folder or of the file system gets its own folder, not the one above.
        #expect(
            WSDLLoader.defaultLocalRoot(for: URL(fileURLWithPath: NSHomeDirectory() + "/svc/x.wsdl"))
                == WSDLLoader.canonicalPath(NSHomeDirectory() + "/svc"))
        #expect(WSDLLoader.defaultLocalRoot(for: URL(fileURLWithPath: "/svc/x.wsdl")) == "/svc")
    }

    @Test("a DOCTYPE in any document of the set is refused, so no entity is ever declared")
    func doctypeRefused() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("service.wsdl", Documents.wsdl(schemaImports: ["evil.xsd"]))
        try folder.write(
            "evil.xsd", #"<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>"# + Documents.schema("&e;"))
        let error = await loadError(loader(root: folder.url.path), root)
        guard case .xml(let document, _, .doctypeForbidden) = error else {
            Issue.record("expected a refused DOCTYPE, got \(String(describing: error))")
            return
        }
        #expect(document.hasSuffix("evil.xsd"))
    }

    @Test("standard schemas a WS-Security schema imports (XML Signature, xml:) are listed, not read: W3C's copies carry a DOCTYPE")
    func standardSchemasNotRead() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("service.wsdl", Documents.wsdl(schemaImports: ["secext.xsd"]))
        try folder.write(
            "secext.xsd",
            #"""
            <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:secext">
              <xs:import namespace="http://www.w3.org/XML/1998/namespace" schemaLocation="xml.xsd"/>
              <xs:import namespace="http://www.w3.org/2000/09/xmldsig#" schemaLocation="xmldsig-core-schema.xsd"/>
              <xs:element name="Security" type="xs:anyType"/>
            </xs:schema>
            """#)
        try folder.write(
            "xmldsig-core-schema.xsd",
            #"<?xml version="1.0"?><!DOCTYPE schema [<!ENTITY dsig "http://www.w3.org/2000/09/xmldsig#">]>"#
                + Documents.schema("", target: "http://www.w3.org/2000/09/xmldsig#"))
        let set = try await loader(root: folder.url.path).load(root)
        #expect(set.documents.count == 2)
        #expect(set.skipped.map(\.location) == ["xml.xsd", "xmldsig-core-schema.xsd"])
        #expect(set.skipped.map(\.standard) == ["the xml: attributes", "XML Signature"])
        #expect(set.skipped.allSatisfy { $0.referrer.hasSuffix("secext.xsd") })
        let lines = ServiceDescription(set).inspection.lines
        #expect(lines.contains { $0.contains("not read: xmldsig-core-schema.xsd") && $0.contains("XML Signature") }, "\(lines)")
        // Another namespace at the same location is read, and its DOCTYPE refused.
        let other = try folder.write("other.wsdl", Documents.wsdl(schemaImports: ["xmldsig-core-schema.xsd"]))
        let error = await loadError(loader(root: folder.url.path), other)
        guard case .xml(_, _, .doctypeForbidden) = error else {
            Issue.record("expected a refused DOCTYPE, got \(String(describing: error))")
            return
        }
    }

    @Test("WSDL documents that import each other in a loop are refused with the chain")
    func importLoop() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("a.wsdl", Documents.wsdl(imports: ["b.wsdl"]))
        try folder.write("b.wsdl", Documents.wsdl(imports: ["a.wsdl"]))
        let error = await loadError(loader(root: folder.url.path), root)
        guard case .importCycle(let chain) = error else {
            Issue.record("expected a cycle, got \(String(describing: error))")
            return
        }
        #expect(chain.map { ($0 as NSString).lastPathComponent } == ["a.wsdl", "b.wsdl", "a.wsdl"])
    }

    @Test(
        "file: URLs, paths that leave the set's folder and other schemes are refused, never read",
        arguments: ["file:///etc/passwd", "../../../../../../etc/passwd", "/etc/passwd", "ftp://example.com/x.xsd", "jar:file:/x!/y.xsd"])
    func refusedLocations(_ location: String) async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("service.wsdl", Documents.wsdl(schemaImports: [location]))
        let error = await loadError(loader(root: folder.url.path), root)
        guard case .refused(_, let referrer, _) = error else {
            Issue.record("expected refused, got \(String(describing: error))")
            return
        }
        #expect(referrer?.hasSuffix("service.wsdl") == true)
    }

    @Test("a 1 GB schema is refused from its size, before a byte of it is read")
    func hugeSchema() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("service.wsdl", Documents.wsdl(schemaImports: ["huge.xsd"]))
        let huge = try folder.write("huge.xsd", Documents.schema(""))
        // Sparse: a gigabyte on paper, nothing on disk.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let error = await loadError(loader(root: folder.url.path), root)
        guard case .tooLarge(let document, _, let limit) = error else {
            Issue.record("expected too large, got \(String(describing: error))")
            return
        }
        #expect(document.hasSuffix("huge.xsd"))
        #expect(limit == WSDLLoader.Options().maxDocumentBytes)
    }

    @Test("a document with 10,000 imports is refused before any of them is read")
    func tenThousandImports() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("service.wsdl", Documents.wsdl(schemaImports: (0..<10_000).map { "x\($0).xsd" }))
        let error = await loadError(loader(root: folder.url.path), root)
        #expect(
            error
                == .tooManyImports(
                    document: WSDLLoader.displayName(of: URL(fileURLWithPath: root).absoluteString), count: 10_000,
                    limit: WSDLLoader.Options().maxImportsPerDocument))
    }

    @Test("a set larger than the document cap is refused when it passes the cap")
    func tooManyDocuments() async throws {
        let folder = try DocumentFolder()
        let root = try folder.write("service.wsdl", Documents.wsdl(schemaImports: (0..<5).map { "x\($0).xsd" }))
        for index in 0..<5 { try folder.write("x\(index).xsd", Documents.schema("")) }
        let error = await loadError(loader(root: folder.url.path) { $0.maxDocuments = 3 }, root)
        guard case .tooManyDocuments(3, _) = error else {
            Issue.record("expected too many documents, got \(String(describing: error))")
            return
        }
    }

    @Test("a WCF set (?wsdl, ?wsdl=wsdl0, ?xsd=xsd0) is fetched once and read from the cache after; other hosts are refused unasked")
    func remoteSetCached() async throws {
        let documents: [String: String] = [
            "/Service.svc?wsdl": Documents.wsdl(imports: ["http://127.0.0.1:PORT/Service.svc?wsdl=wsdl0"]),
            "/Service.svc?wsdl=wsdl0": Documents.wsdl(schemaImports: ["?xsd=xsd0"], body: Documents.searchOperation),
            "/Service.svc?xsd=xsd0": Documents.schema(
                #"""
                <xs:element name="SearchRQ"><xs:complexType><xs:sequence><xs:element name="City" type="xs:string"/></xs:sequence></xs:complexType></xs:element>
                <xs:element name="SearchRS"><xs:complexType><xs:sequence><xs:element name="Hotel" maxOccurs="unbounded"><xs:complexType>
                  <xs:attribute name="HotelCode"/></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element>
                """#),
        ]
        let server = try ScriptedHTTPServer { request, connection in
            guard let text = documents[request.path] else {
                return connection.respond(status: 404, reason: "Not Found", contentType: "text/plain", body: "no")
            }
            connection.respond(
                contentType: "text/xml",
                body: text.replacingOccurrences(
                    of: "PORT", with: request.headers["host"]?.split(separator: ":").last.map(String.init) ?? ""))
        }
        defer { server.stop() }
        let cache = try DocumentFolder()
        let first = try await loader(cache: cache.url.path).load("\(server.url)/Service.svc?wsdl")
        #expect(first.documents.count == 3)
        #expect(first.fetched == 3)
        #expect(ServiceDescription(first).operations.map(\.name) == ["Search"])
        server.stop()
        let second = try await loader(cache: cache.url.path) { $0.offline = true }.load("\(server.url)/Service.svc?wsdl")
        #expect(second.fetched == 0)
        #expect(second.documents.allSatisfy { $0.origin == .cache })
        #expect(FileManager.default.fileExists(atPath: cache.path("127.0.0.1_\(server.port)/Service.svc%3Fxsd%3Dxsd0")))

        let folder = try DocumentFolder()
        let elsewhere = try folder.write("service.wsdl", Documents.wsdl(schemaImports: ["http://evil.invalid/types.xsd"]))
        let error = await loadError(loader(root: folder.url.path), elsewhere)
        #expect(
            error
                == .hostNotAllowed(
                    document: "http://evil.invalid/types.xsd",
                    referrer: WSDLLoader.displayName(of: URL(fileURLWithPath: elsewhere).absoluteString),
                    host: "evil.invalid"))
    }

    @Test("WSDL 2.0 and SOAP messages are told apart from a WSDL 1.1 description")
    func notWSDL() async throws {
        let folder = try DocumentFolder()
        let wsdl20 = try folder.write("a.wsdl", #"<description xmlns="http://www.w3.org/ns/wsdl"/>"#)
        let envelope = try folder.write("b.xml", #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#)
        for file in [wsdl20, envelope] {
            guard case .notWSDL = await loadError(loader(root: folder.url.path), file) else {
                Issue.record("\(file) was not refused")
                continue
            }
        }
    }
}
