import Foundation
import SOAP

/// Namespaces of the languages a WSDL set is written in.
enum Namespaces {
    static let wsdl = "http://schemas.xmlsoap.org/wsdl/"
    static let wsdl20 = "http://www.w3.org/ns/wsdl"
    static let soap11 = "http://schemas.xmlsoap.org/wsdl/soap/"
    static let soap12 = "http://schemas.xmlsoap.org/wsdl/soap12/"
    static let xsd = "http://www.w3.org/2001/XMLSchema"
    /// Apache Axis's own types (`apachesoap:Element`, a DOM element).
    static let apacheSOAP = "http://xml.apache.org/xml-soap"

    /// W3C and SOAP namespaces whose schemas an `xs:import` may name but a
    /// profile never needs: signatures, encryption, `xml:lang`, SOAP
    /// encoding and envelopes. They are not read. W3C's own copies of the
    /// signature and `xml:` schemas carry a DOCTYPE, which the reader
    /// refuses, so reading them would stop every WS-Security WSDL.
    static let notRead: [String: String] = [
        "http://www.w3.org/2000/09/xmldsig#": "XML Signature",
        "http://www.w3.org/2001/04/xmlenc#": "XML Encryption",
        "http://www.w3.org/XML/1998/namespace": "the xml: attributes",
        "http://schemas.xmlsoap.org/soap/encoding/": "SOAP 1.1 encoding",
        "http://schemas.xmlsoap.org/soap/envelope/": "the SOAP 1.1 envelope",
        "http://www.w3.org/2003/05/soap-envelope": "the SOAP 1.2 envelope",
    ]
}

/// One document of a WSDL set, parsed.
public struct LoadedDocument: Sendable {
    /// Where it came from, absolute: a `file:` or `http(s):` URL.
    public var url: String
    /// The same, as messages show it: a path relative to the working folder for local files.
    public var name: String
    /// The document that imported or included it; nil for the WSDL itself.
    public var referrer: String?
    public var root: XMLTreeElement
    public var origin: Origin
    public var bytes: Int

    public enum Origin: String, Sendable {
        case file, cache, network
    }
}

/// A WSDL and every document it imports or includes, each read once.
public struct WSDLDocumentSet: Sendable {
    /// The WSDL first, then the others in the order they were reached.
    public var documents: [LoadedDocument]
    public var root: LoadedDocument { documents[0] }
    /// Imports of standard schemas that were not read (``WSDLInspection/notRead``).
    public var skipped: [SkippedImport] = []
    /// Schemas the set refers to that do not exist: vendors ship WSDLs
    /// without every schema. The operations are still read; the types those
    /// schemas held are unknown.
    public var missing: [MissingDocument] = []
    /// How many documents came over the network in this load; 0 once cached.
    public var fetched: Int { documents.count { $0.origin == .network } }
    public var totalBytes: Int { documents.reduce(0) { $0 + $1.bytes } }
}

/// A schema the set refers to (`xs:import`, `xs:include`, `xs:redefine`) that
/// is not there: no such file, or HTTP 404 or 410.
public struct MissingDocument: Sendable, Encodable, Equatable {
    public var location: String
    /// The document that refers to it.
    public var referrer: String
    /// `no such file`, `HTTP 404`.
    public var reason: String
    /// The namespace whose declarations it was to hold: an import's, or the including schema's target namespace.
    public var namespace: String?
}

/// An `xs:import` of a standard namespace (XML Signature, `xml:`, SOAP
/// encoding, …) that the loader did not follow: no profile needs its types.
public struct SkippedImport: Sendable, Encodable, Equatable {
    public var location: String
    public var namespace: String
    /// What the namespace is, e.g. "XML Signature".
    public var standard: String
    /// The document that imports it.
    public var referrer: String
}
