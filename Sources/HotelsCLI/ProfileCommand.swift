import ArgumentParser
import AtomicFiles
import Console
import Fetching
import Foundation
import Hotels
import SOAP
import WSDL

struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Start from a WSDL: inspect it, write a profile from one of its operations, check a profile.",
        subcommands: [InspectCommand.self, InitCommand.self, CheckCommand.self]
    )
}

/// How a WSDL set is loaded: the cache, the hosts and folder it may read, its caps.
struct WSDLLoadOptions: ParsableArguments {
    @Option(help: "Keep fetched documents here (default: $XDG_CACHE_HOME/hotelkit/wsdl); a second run needs no network.")
    var cache: String?
    @Flag(help: "Read remote documents from the cache only.") var offline = false
    @Option(help: "Also fetch imports from this host (repeatable); by default they stay on the WSDL's own host.")
    var allowHost: [String] = []
    @Option(
        help: "Local imports must lie under this folder (default: the working folder when the WSDL is under it, else the WSDL's folder).")
    var root: String?
    @Option(help: "The largest document, in bytes.") var maxDocumentBytes = WSDLLoader.Options().maxDocumentBytes
    @Option(help: "The most documents in the set.") var maxDocuments = WSDLLoader.Options().maxDocuments

    func validate() throws {
        guard maxDocumentBytes > 0, maxDocuments > 0 else { throw ValidationError("limits must be positive") }
    }

    var loader: WSDLLoader {
        var options = WSDLLoader.Options(cacheFolder: cache ?? WSDLLoader.Options.defaultCacheFolder)
        options.offline = offline
        options.allowedHosts = Set(allowHost.map { $0.lowercased() })
        options.localRoot = root
        options.maxDocumentBytes = maxDocumentBytes
        options.maxDocuments = maxDocuments
        return WSDLLoader(options: options)
    }

    /// The WSDL's description; an error is reported and becomes the exit status.
    func describe(_ wsdl: String) async throws -> ServiceDescription {
        do {
            return ServiceDescription(try await loader.load(wsdl))
        } catch {
            throw Diagnostics.report(error, context: error is WSDLError ? "" : wsdl).code
        }
    }
}

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List a WSDL's services, endpoints, bindings, operations and policies.",
        discussion: """
            Imports and includes are followed and remote ones cached. Every document is read \
            under the XML reader's rules (no DOCTYPE, no entities, size caps). Exit 65 for a \
            refused or malformed document, 66 for a missing one, 69 when one cannot be fetched.
            """
    )

    @Argument(help: "The WSDL: a file or an http(s) URL.") var wsdl: String
    @Flag(help: "Print one JSON object.") var json = false
    @OptionGroup var loading: WSDLLoadOptions

    func run() async throws {
        let inspection = try await loading.describe(wsdl).inspection
        let output = StandardOutput()
        if json {
            output.write(line: JSONLine.string(inspection))
        } else {
            inspection.lines.forEach { output.write(line: $0) }
        }
        output.flush()
    }
}

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a profile for one operation of a WSDL; every guess is explained in its notes.",
        discussion: """
            The body is built from the input schema, the record and fields from the output \
            schema (or from --sample, a recorded response: the only way when the schema says \
            anyType), the paging from tokens, flags and page numbers. The profile is checked \
            before it is written.
            """
    )

    @Option(help: "The WSDL: a file or an http(s) URL.") var wsdl: String
    @Option(help: "The operation, as inspect lists it.") var operation: String
    @Option(help: "Write the profile here (default: standard output).") var out: String?
    @Option(help: "A recorded response to guess the record and fields from.") var sample: String?
    @Option(help: "The binding's SOAP version, 1.1 or 1.2, when the WSDL has both (default 1.1).") var soapVersion: String?
    @Option(help: "The profile's name (default: the service's and the operation's).") var name: String?
    @Flag(help: "Replace --out if it exists.") var force = false
    @OptionGroup var loading: WSDLLoadOptions

    func validate() throws {
        if let soapVersion, SOAPVersion(rawValue: soapVersion) == nil {
            throw ValidationError("--soap-version is 1.1 or 1.2, not “\(soapVersion)”")
        }
        if let out, !force, FileManager.default.fileExists(atPath: out) {
            throw ValidationError("\(out) exists; give --force to replace it")
        }
    }

    func run() async throws {
        let description = try await loading.describe(wsdl)
        let recorded = try sample.map { path in try reported("--sample \(path)") { [UInt8](try UnreadableFile.contents(of: path)) } }
        let draft: ProfileDraft
        do {
            draft = try ProfileDrafter(description: description)
                .draft(operation: operation, version: soapVersion.flatMap(SOAPVersion.init(rawValue:)), sample: recorded, profileName: name)
        } catch {
            throw Diagnostics.report(error, context: error is WSDLError ? "" : wsdl).code
        }
        guard let out else {
            writeAll(Array(draft.json.utf8), to: STDOUT_FILENO)
            return
        }
        try reported("--out") { try AtomicFile.write(Array(draft.json.utf8), to: URL(fileURLWithPath: out)) }
        let profile = draft.profile
        Diagnostics.note(
            "wrote \(out): record \(profile.record ?? "none"), \(profile.fields.count + profile.joins.count) fields, "
                + "paging \(profile.paging.name); \(profile.notes.count) notes to review"
                + (draft.endpoint.map { "; endpoint \($0)" } ?? ""))
    }
}

/// The values a request's placeholders are filled with: `check` prints that request, `call` sends it.
struct RequestValueOptions: ParsableArguments {
    @Option(help: "{city}.") var city: String?
    @Option(help: "{keyword}.") var keyword: String?
    @OptionGroup var areaOptions: AreaOptions
    @Option(help: "{pageSize}.") var pageSize = 50
    @Option(help: "{page} (default: the profile's first page).") var page: Int?
    @Option(help: "{cursor}: the token of the page to ask for (default: none, the first page).") var cursor: String?
    @Flag(help: "{more}: ask for the rows that follow, under flag paging.") var more = false
    @Option(help: "A JSON file of credentials for the profile's {env:NAME} placeholders (mode 600).") var credentials: String?

    func validate() throws {
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1") }
    }

    /// The first page's parameters as the profile's paging asks for it, with the options over them.
    func parameters(for profile: ServiceProfile) throws -> RequestParameters {
        let area = try areaOptions.area()
        var parameters =
            Pager(paging: profile.paging, pageSize: pageSize).nextRequest(city: city, keyword: keyword, area: area)
            ?? RequestParameters(city: city, keyword: keyword, area: area, pageSize: pageSize)
        if let page { parameters.page = page }
        if let cursor { parameters.cursor = cursor }
        if more { parameters.more = true }
        return parameters
    }

    func loadCredentials() throws -> Credentials {
        try credentials.map(Credentials.environment(overlaidWith:)) ?? .environment
    }
}

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a profile and print the request it would send, placeholders filled and secrets masked.",
        discussion: """
            Exit 78 when the profile has a mistake (the message names the key). Credentials that \
            are not set are warned about and shown masked, like every other secret.
            """
    )

    @Argument(help: "A built-in profile or a profile file.") var profile: String
    @Option(help: "The endpoint the request is addressed to.") var endpoint = "https://service.invalid/endpoint"
    @OptionGroup var values: RequestValueOptions

    func run() throws {
        let loaded = try reported(profile) { try ServiceProfile.named(profile) }
        let credentials = try reported(profile) { try values.loadCredentials() }
        for warning in loaded.warnings { Diagnostics.warning("\(profile): \(warning)") }
        let preview = try reported(profile) {
            try RequestPreview(
                profile: loaded, endpoint: endpoint, credentials: credentials, parameters: try values.parameters(for: loaded))
        }
        for name in preview.unsetCredentials { Diagnostics.warning("{env:\(name)} is not set; the request shows it masked") }
        writeAll(Array((preview.text + "\n").utf8), to: STDOUT_FILENO)
    }
}
