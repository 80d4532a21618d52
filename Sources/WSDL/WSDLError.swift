import Failures
import HTTP
import SOAP

/// Why a WSDL, one of the documents it imports, or an operation in it cannot
/// be used. Each case names the document at fault and, for an import, the
/// document that referred to it.
public enum WSDLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The document does not exist (no such file, HTTP 404).
    case missing(document: String, referrer: String?, reason: String)
    /// The location is refused: a `file:` URL, a scheme other than http(s),
    /// a local path outside the allowed folder, or something that is not a regular file.
    case refused(document: String, referrer: String?, reason: String)
    /// A remote document on a host other than the WSDL's own, without `--allow-host`.
    case hostNotAllowed(document: String, referrer: String?, host: String)
    /// WSDL documents that import each other in a loop, in import order.
    case importCycle([String])
    /// A document larger than the per-document cap, or the set larger than its total cap.
    case tooLarge(document: String, referrer: String?, limit: Int)
    /// More documents in the set than ``WSDLLoader/Options/maxDocuments``.
    case tooManyDocuments(limit: Int, at: String)
    /// One document with more imports and includes than ``WSDLLoader/Options/maxImportsPerDocument``.
    case tooManyImports(document: String, count: Int, limit: Int)
    /// The XML reader refused the document: malformed, a DOCTYPE, a cap passed.
    case xml(document: String, referrer: String?, XMLReaderError)
    /// The document is XML but not a WSDL 1.1 description or an XML Schema.
    case notWSDL(document: String, root: String, hint: String)
    /// The document could not be fetched: the network, or an HTTP error status.
    case unavailable(document: String, referrer: String?, reason: String)
    /// A remote document is not in the cache, and the loader may not fetch.
    case notCached(document: String)
    /// No operation of that name in any SOAP binding.
    case unknownOperation(String, known: [String])
    /// The operation exists but cannot be described: a part refers to an undeclared element.
    case unresolved(what: String, in: String)

    public var description: String {
        func from(_ referrer: String?) -> String { referrer.map { " (imported by \($0))" } ?? "" }
        switch self {
        case .missing(let document, let referrer, let reason):
            return "\(document)\(from(referrer)): not found: \(reason)"
        case .refused(let document, let referrer, let reason):
            return "\(document)\(from(referrer)): refused: \(reason)"
        case .hostNotAllowed(let document, let referrer, let host):
            return "\(document)\(from(referrer)): refused: \(host) is not the WSDL's own host"
        case .importCycle(let chain):
            return "import cycle: " + chain.joined(separator: " → ")
        case .tooLarge(let document, let referrer, let limit):
            return "\(document)\(from(referrer)): refused: larger than \(limit) bytes"
        case .tooManyDocuments(let limit, let document):
            return "\(document): refused: the WSDL's set of documents grew past \(limit)"
        case .tooManyImports(let document, let count, let limit):
            return "\(document): refused: \(count) imports and includes, more than \(limit)"
        case .xml(let document, let referrer, let error):
            return "\(document)\(from(referrer)): \(error)"
        case .notWSDL(let document, let root, let hint):
            return "\(document): not a WSDL 1.1 description or an XML Schema (the root is <\(root)>); \(hint)"
        case .unavailable(let document, let referrer, let reason):
            return "\(document)\(from(referrer)): cannot be fetched: \(reason)"
        case .notCached(let document):
            return "\(document): not in the cache, and --offline forbids fetching it"
        case .unknownOperation(let name, let known):
            return "no operation “\(name)”; the WSDL has " + (known.isEmpty ? "none" : known.joined(separator: ", "))
        case .unresolved(let what, let place):
            return "\(place): \(what) is not declared in the WSDL or its schemas"
        }
    }

    /// What to do about it, when something can be done.
    public var hint: String? {
        switch self {
        case .hostNotAllowed(_, _, let host):
            return "if you trust it, add --allow-host \(host)"
        case .refused(_, _, let reason) where reason.contains("outside"):
            return "vendor the documents under one folder, or widen it with --root DIR"
        case .notCached:
            return "run once without --offline, or put the documents in the cache folder"
        case .tooLarge, .tooManyDocuments, .tooManyImports:
            return "if the WSDL is trusted, raise the limit (--max-document-bytes, --max-documents)"
        case .importCycle:
            return "WSDL documents must not import one another in a loop; the vendor's set is broken"
        default:
            return nil
        }
    }
}

extension WSDLError: MeaningfulError {
    /// A missing document is no input (66), one that cannot be fetched unavailable (69), an unknown operation usage (64),
    /// the rest bad data (65); each with its ``hint``.
    public var meaning: ErrorMeaning {
        switch self {
        case .missing: ErrorMeaning(kind: .noInput, status: .noInput, hint: hint)
        case .unavailable, .notCached: ErrorMeaning(kind: .unavailable, status: .unavailable, hint: hint, isRetryable: true)
        case .unknownOperation: ErrorMeaning(kind: .usage, status: .usage, hint: hint)
        default: ErrorMeaning(kind: .badData, status: .dataError, hint: hint)
        }
    }
}
