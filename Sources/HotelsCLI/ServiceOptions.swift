import ArgumentParser
import Foundation
import Hotels

/// `--profile` and `--endpoint`: the service a command talks to.
struct ServiceOptions: ParsableArguments {
    @Option(help: "A built-in profile or a profile file.") var profile = "sample"
    @Option(help: "The service's SOAP endpoint URL.") var endpoint: String

    /// `--endpoint` is an http or https URL with a host, or the command is refused with 64.
    func validate() throws {
        let url = URL(string: endpoint)
        guard ["http", "https"].contains(url?.scheme?.lowercased() ?? ""), url?.host?.isEmpty == false else {
            throw ValidationError("--endpoint must be an http or https URL, not “\(endpoint)”")
        }
    }

    /// The profile, or its error reported (64, 66, 78).
    func loadProfile() throws -> ServiceProfile {
        try reported("--profile \(profile)") { try ServiceProfile.named(profile) }
    }
}

/// `--keyword`, `--near`/`--radius` and `--page-size`: what a list asks the service for, beside its city.
struct QueryOptions: ParsableArguments {
    @Option(help: "A keyword, for profiles whose body uses {keyword}.") var keyword: String?
    @OptionGroup var areaOptions: AreaOptions
    @Option(help: "Hotels per page.") var pageSize = 50

    func validate() throws {
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1") }
    }

    func area() throws -> SearchArea? { try areaOptions.area() }
}
