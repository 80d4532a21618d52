import AtomicFiles
import Foundation
import HTTP
import SOAP

/// Loads a WSDL (a file or an http(s) URL) with everything it imports and
/// includes: `wsdl:import`, `xs:import`, `xs:include` and `xs:redefine`,
/// at relative, absolute and `../` locations.
///
/// ```swift
/// let set = try await WSDLLoader().load("https://hotels.example.com/Service.svc?wsdl")
/// let description = try ServiceDescription(set)
/// ```
///
/// Every document is read by the same reader as a SOAP response, under the
/// same rules: a DOCTYPE is refused (so no entity, internal or external,
/// ever exists), nothing is loaded by libxml2 itself, and each document is
/// capped. On top of that:
/// - **Remote documents** are cached in ``Options/cacheFolder``, one file
///   per URL, so a second load needs no network and a set can be vendored.
///   They stay on the WSDL's own host unless ``Options/allowedHosts`` names
///   another; a redirect is refused rather than followed elsewhere.
/// - **Local documents** must lie under ``Options/localRoot``, be regular
///   files, and are never named by a `file:` URL in an import.
/// - **Cycles** of `wsdl:import` are refused with the chain; schemas that
///   import each other (which XML Schema allows) are each read once.
/// - **Standard schemas** (XML Signature, `xml:`, SOAP encoding) that a
///   schema imports are not read, and are listed in ``WSDLDocumentSet/skipped``.
/// - **Counts**: documents in the set, imports in one document, bytes per
///   document and in all.
public struct WSDLLoader: Sendable {
    /// Where a load may go and how much it may read. Every default is usable as is.
    public struct Options: Sendable {
        /// Remote documents are kept here; nil: never cached.
        /// Default: `$XDG_CACHE_HOME/hotelkit/wsdl` (`~/.cache/hotelkit/wsdl`).
        public var cacheFolder: String?
        /// Hosts besides the WSDL's own that imports may fetch from.
        public var allowedHosts: Set<String> = []
        /// Local documents must lie under this folder. Nil: the folder above
        /// the WSDL's (so `wsdls/x.wsdl` reaches `../opentravel/`, as HTNG
        /// and OpenTravel publish their sets), or the working folder when it
        /// holds the WSDL and is higher; never `/` or the home folder itself.
        public var localRoot: String?
        /// Use the cache only; a remote document not cached is an error.
        public var offline = false
        /// The largest document, 16 MiB.
        public var maxDocumentBytes = 16 << 20
        /// The largest set, all documents together, 128 MiB.
        public var maxTotalBytes = 128 << 20
        /// The most documents in a set, 1,000 (OTA's largest sets have about 300).
        public var maxDocuments = 1_000
        /// The most imports and includes in one document, 1,000.
        public var maxImportsPerDocument = 1_000

        public init(cacheFolder: String? = Options.defaultCacheFolder) {
            self.cacheFolder = cacheFolder
        }

        /// `$XDG_CACHE_HOME/hotelkit/wsdl`, or `~/.cache/hotelkit/wsdl`.
        public static var defaultCacheFolder: String {
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache")
            return ((base as NSString).appendingPathComponent("hotelkit") as NSString).appendingPathComponent("wsdl")
        }
    }

    public var options: Options
    /// How remote documents are fetched: libcurl with no redirects and the
    /// document cap as its body cap, by default.
    public var transport: any HTTPClient

    public init(options: Options = Options(), transport: (any HTTPClient)? = nil) {
        self.options = options
        var configuration = TransportConfiguration()
        configuration.maxRedirects = 0
        configuration.maxBodyBytes = options.maxDocumentBytes
        self.transport = transport ?? HTTPTransport(configuration: configuration)
    }

    /// Loads the WSDL at `location` (a path, a `file:` URL or an http(s)
    /// URL) and every document it reaches. Throws ``WSDLError``.
    public func load(_ location: String) async throws -> WSDLDocumentSet {
        let rootURL = try Self.rootURL(location)
        let localRoot: String? =
            rootURL.isFileURL ? (options.localRoot.map(Self.canonicalPath) ?? Self.defaultLocalRoot(for: rootURL)) : nil
        let load = LoadState(rootHost: rootURL.host?.lowercased(), localRoot: localRoot)
        try await visit(rootURL, referrer: nil, wsdlChain: [], state: load)
        return WSDLDocumentSet(documents: load.documents, skipped: load.skipped, missing: load.missing)
    }

    // MARK: Walking the set

    private func visit(_ url: URL, referrer: LoadedDocument?, wsdlChain: [String], state: LoadState) async throws {
        let key = url.absoluteString
        if let start = wsdlChain.firstIndex(of: key) {
            throw WSDLError.importCycle((wsdlChain[start...] + [key]).map(Self.displayName(of:)))
        }
        guard !state.seen.contains(key) else { return }
        guard state.documents.count < options.maxDocuments else {
            throw WSDLError.tooManyDocuments(limit: options.maxDocuments, at: referrer?.name ?? Self.displayName(of: key))
        }
        state.seen.insert(key)
        let name = Self.displayName(of: key)
        let (bytes, origin) = try await read(url, name: name, referrer: referrer?.name, state: state)
        state.totalBytes += bytes.count
        guard state.totalBytes <= options.maxTotalBytes else {
            throw WSDLError.tooLarge(document: name, referrer: referrer?.name, limit: options.maxTotalBytes)
        }
        let root: XMLTreeElement
        do {
            root = try XMLTreeElement.parse(bytes, limits: XMLReaderLimits(maxInputBytes: options.maxDocumentBytes))
        } catch {
            throw WSDLError.xml(document: name, referrer: referrer?.name, error)
        }
        try Self.checkKind(root, name: name)
        let document = LoadedDocument(url: key, name: name, referrer: referrer?.name, root: root, origin: origin, bytes: bytes.count)
        state.documents.append(document)
        let references = Self.references(in: root)
        guard references.count <= options.maxImportsPerDocument else {
            throw WSDLError.tooManyImports(document: name, count: references.count, limit: options.maxImportsPerDocument)
        }
        for reference in references {
            if let namespace = reference.standardNamespace {
                state.skipped.append(
                    SkippedImport(
                        location: reference.location, namespace: namespace,
                        standard: Namespaces.notRead[namespace] ?? namespace, referrer: name))
                continue
            }
            let target = try resolve(reference.location, from: url, referrer: name, state: state)
            do {
                try await visit(target, referrer: document, wsdlChain: reference.isWSDLImport ? wsdlChain + [key] : [], state: state)
            } catch WSDLError.missing(let location, let referrer, let reason) where !reference.isWSDLImport {
                // A schema not shipped: its types are unknown, the operations are not. A missing WSDL stops the load.
                state.missing.append(
                    MissingDocument(location: location, referrer: referrer ?? name, reason: reason, namespace: reference.namespace))
            }
        }
    }

    /// A document's bytes: the file, the cache, or the network (then cached).
    private func read(_ url: URL, name: String, referrer: String?, state: LoadState) async throws -> ([UInt8], LoadedDocument.Origin) {
        if url.isFileURL {
            return (try readFile(url.path, name: name, referrer: referrer), .file)
        }
        let cached = options.cacheFolder.map { ($0 as NSString).appendingPathComponent(Self.cachePath(for: url)) }
        if let cached, FileManager.default.fileExists(atPath: cached) {
            return (try readFile(cached, name: name, referrer: referrer), .cache)
        }
        guard !options.offline else { throw WSDLError.notCached(document: name) }
        let bytes = try await fetch(url, name: name, referrer: referrer)
        if let cached {
            // A cache that cannot be written costs the next run a fetch, nothing more.
            try? FileManager.default.createDirectory(
                atPath: (cached as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            try? AtomicFile.write(bytes, to: URL(fileURLWithPath: cached))
        }
        return (bytes, .network)
    }

    private func readFile(_ path: String, name: String, referrer: String?) throws -> [UInt8] {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw WSDLError.missing(document: name, referrer: referrer, reason: "no such file")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw WSDLError.refused(document: name, referrer: referrer, reason: "not a regular file")
        }
        // Checked before a byte is read: a sparse 1 GB file costs nothing.
        if let size = attributes[.size] as? Int, size > options.maxDocumentBytes {
            throw WSDLError.tooLarge(document: name, referrer: referrer, limit: options.maxDocumentBytes)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WSDLError.missing(document: name, referrer: referrer, reason: "cannot be read")
        }
        guard data.count <= options.maxDocumentBytes else {
            throw WSDLError.tooLarge(document: name, referrer: referrer, limit: options.maxDocumentBytes)
        }
        return [UInt8](data)
    }

    private func fetch(_ url: URL, name: String, referrer: String?) async throws -> [UInt8] {
        let head: HTTPResponseHead
        let body: [UInt8]
        do {
            (head, body) = try await transport.data(for: HTTPRequest(url: url.absoluteString))
        } catch TransportError.tooLarge {
            throw WSDLError.tooLarge(document: name, referrer: referrer, limit: options.maxDocumentBytes)
        } catch TransportError.tooManyRedirects {
            throw WSDLError.refused(document: name, referrer: referrer, reason: "the server redirects; give the URL it redirects to")
        } catch {
            throw WSDLError.unavailable(document: name, referrer: referrer, reason: "\(error)")
        }
        switch head.status {
        case 200..<300: return body
        case 404, 410: throw WSDLError.missing(document: name, referrer: referrer, reason: "HTTP \(head.status)")
        case 300..<400:
            throw WSDLError.refused(document: name, referrer: referrer, reason: "HTTP \(head.status): redirects are not followed")
        default: throw WSDLError.unavailable(document: name, referrer: referrer, reason: "HTTP \(head.status)")
        }
    }

    // MARK: Locations

    /// Where an import points, checked against the load's rules.
    private func resolve(_ location: String, from base: URL, referrer: String, state: LoadState) throws -> URL {
        let written = location.trimmingWhitespace()
        let lowered = written.lowercased()
        if lowered.hasPrefix("file:") {
            throw WSDLError.refused(
                document: written, referrer: referrer,
                reason: "file: URLs are refused in imports; a set refers to its files by relative path")
        }
        if let colon = lowered.firstIndex(of: ":"), lowered[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }),
            lowered[..<colon].count > 1, !["http", "https"].contains(lowered[..<colon])
        {
            throw WSDLError.refused(document: written, referrer: referrer, reason: "only http(s) and relative locations are followed")
        }
        // Windows-made sets write `..\xsd\types.xsd`; spaces are common in vendors' file names.
        let normalized = written.replacingOccurrences(of: "\\", with: "/").replacingOccurrences(of: " ", with: "%20")
        guard let url = URL(string: normalized, relativeTo: base)?.absoluteURL.standardized else {
            throw WSDLError.refused(document: written, referrer: referrer, reason: "not a valid location")
        }
        if url.isFileURL {
            let path = Self.canonicalPath(url.path)
            if let root = state.localRoot, !(path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")) {
                throw WSDLError.refused(
                    document: Self.displayName(of: url.absoluteString), referrer: referrer,
                    reason:
                        "outside \(Self.displayName(of: URL(fileURLWithPath: root).absoluteString)), the folder the WSDL's documents must lie in"
                )
            }
            return URL(fileURLWithPath: path)
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host?.lowercased() else {
            throw WSDLError.refused(document: written, referrer: referrer, reason: "only http(s) and relative locations are followed")
        }
        guard host == state.rootHost || options.allowedHosts.contains(host) else {
            throw WSDLError.hostNotAllowed(document: url.absoluteString, referrer: referrer, host: host)
        }
        return url
    }

    static func rootURL(_ location: String) throws -> URL {
        let lowered = location.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: location), url.host?.isEmpty == false else {
                throw WSDLError.refused(document: location, referrer: nil, reason: "not a valid URL")
            }
            return url
        }
        if lowered.hasPrefix("file:") {
            guard let url = URL(string: location), url.isFileURL else {
                throw WSDLError.refused(document: location, referrer: nil, reason: "not a valid file URL")
            }
            return URL(fileURLWithPath: canonicalPath(url.path))
        }
        if let colon = location.firstIndex(of: ":"), location[..<colon].count > 1, !location[..<colon].contains("/") {
            throw WSDLError.refused(document: location, referrer: nil, reason: "give a file path or an http(s) URL")
        }
        return URL(fileURLWithPath: canonicalPath(URL(fileURLWithPath: location).path))
    }

    /// The working folder when the WSDL is under it (so `../xsd/` next to
    /// the WSDL's folder works), else the WSDL's own folder.
    static func defaultLocalRoot(for wsdl: URL) -> String {
        let working = canonicalPath(FileManager.default.currentDirectoryPath)
        let path = wsdl.path
        let folder = (path as NSString).deletingLastPathComponent
        // Published sets keep their schemas beside the WSDLs' folder (HTNG's wsdls/ and opentravel/): one level up
        // reaches them. Not further, and never the whole file system or the whole home folder.
        let above = (folder as NSString).deletingLastPathComponent
        let package = above.isEmpty || above == "/" || above == canonicalPath(NSHomeDirectory()) ? folder : above
        if working != "/", path.hasPrefix(working + "/"), working.count < package.count { return working }
        return package
    }

    static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// A local file relative to the working folder when it is under it; a URL as it is.
    static func displayName(of url: String) -> String {
        guard let parsed = URL(string: url), parsed.isFileURL else { return url }
        let working = canonicalPath(FileManager.default.currentDirectoryPath)
        let path = parsed.path
        return path.hasPrefix(working + "/") ? String(path.dropFirst(working.count + 1)) : path
    }

    /// The cache's file for a URL: `host[_port]/path/segments`, the query
    /// kept in the last one, everything else percent-encoded, so a person can
    /// find a document and a set can be vendored as a folder.
    public static func cachePath(for url: URL) -> String {
        func encode(_ text: String) -> String {
            var result = ""
            for byte in text.utf8 {
                let character = Character(Unicode.Scalar(byte))
                if character.isASCII && (character.isLetter || character.isNumber || "._-".contains(character)) {
                    result.append(character)
                } else {
                    result += String(format: "%%%02X", byte)
                }
            }
            return result == "." || result == ".." ? result.replacingOccurrences(of: ".", with: "%2E") : result
        }
        let host = (url.host ?? "unknown").lowercased() + (url.port.map { "_\($0)" } ?? "")
        var segments = url.path.split(separator: "/").map { encode(String($0)) }
        if segments.isEmpty { segments = ["index"] }
        if let query = url.query { segments[segments.count - 1] += "%3F" + encode(query) }
        return ([encode(host)] + segments).joined(separator: "/")
    }

    // MARK: What a document refers to

    struct Reference {
        var location: String
        var isWSDLImport: Bool
        /// The namespace of an `xs:import` of a standard schema, which is not read.
        var standardNamespace: String? = nil
        /// The namespace the schema is for: an import's, or the including schema's own.
        var namespace: String? = nil
    }

    /// The WSDL 1.1 definitions, or a schema; anything else is refused with what it is.
    static func checkKind(_ root: XMLTreeElement, name: String) throws {
        switch (root.namespaceURI, root.localName) {
        case (Namespaces.wsdl, "definitions"), (Namespaces.xsd, "schema"):
            return
        case (Namespaces.wsdl20, _):
            throw WSDLError.notWSDL(
                document: name, root: root.localName,
                hint: "this is WSDL 2.0, which HotelKit does not read; ask the vendor for the WSDL 1.1 description")
        case (_, "Envelope"):
            throw WSDLError.notWSDL(
                document: name, root: root.localName, hint: "this is a SOAP message; for a recorded response use --sample")
        default:
            throw WSDLError.notWSDL(
                document: name, root: root.localName, hint: "check the URL: a WSDL is usually at the service's address with ?wsdl")
        }
    }

    static func references(in root: XMLTreeElement) -> [Reference] {
        var references: [Reference] = []
        func schemaReferences(_ schema: XMLTreeElement) {
            for child in schema.children
            where child.namespaceURI == Namespaces.xsd
                && ["import", "include", "redefine"].contains(child.localName)
            {
                if let location = child.attributes["schemaLocation"], !location.trimmingWhitespace().isEmpty {
                    let namespace = child.localName == "import" ? child.attributes["namespace"] : schema.attributes["targetNamespace"]
                    references.append(
                        Reference(
                            location: location, isWSDLImport: false,
                            standardNamespace: namespace.flatMap { Namespaces.notRead[$0] == nil ? nil : $0 }, namespace: namespace))
                }
            }
        }
        if root.namespaceURI == Namespaces.xsd {
            schemaReferences(root)
        } else {
            for child in root.children where child.namespaceURI == Namespaces.wsdl {
                if child.localName == "import", let location = child.attributes["location"], !location.trimmingWhitespace().isEmpty {
                    references.append(Reference(location: location, isWSDLImport: true))
                } else if child.localName == "types" {
                    child.children(("schema"), in: Namespaces.xsd).forEach(schemaReferences)
                }
            }
        }
        return references
    }
}

/// What one load has read so far; used by the load's one task only.
private final class LoadState {
    let rootHost: String?
    let localRoot: String?
    var seen: Set<String> = []
    var documents: [LoadedDocument] = []
    var skipped: [SkippedImport] = []
    var missing: [MissingDocument] = []
    var totalBytes = 0

    init(rootHost: String?, localRoot: String?) {
        self.rootHost = rootHost
        self.localRoot = localRoot
    }
}
