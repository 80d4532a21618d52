import Foundation

/// The host names the dashboard answers to: its defence against DNS
/// rebinding, where a web page the operator visits points its own name at
/// 127.0.0.1 and reads the dashboard (and its CSRF token) as its own origin.
///
/// Accepted: the bound address, `localhost`, `127.0.0.1` and `[::1]`, with or
/// without a port, and every `--allowed-host` name (for a reverse proxy).
/// A dashboard bound to every address (`0.0.0.0`, `::`) with a token and no
/// `--allowed-host` cannot know its names; the token guards each request, and a
/// rebinding page cannot show it (the login cookie belongs to the real name).
struct HostCheck: Sendable {
    /// Lower-case names, without ports; empty when any name is accepted.
    let accepted: [String]
    /// The `--allowed-host` names, lower case: the proxies whose `X-Forwarded-Proto` is believed.
    let proxies: [String]

    init(configuration: DashboardServer.Configuration) {
        proxies = configuration.allowedHosts.map { $0.lowercased() }
        let wildcard = ["0.0.0.0", "::", "[::]"].contains(configuration.host)
        if wildcard && configuration.token != nil && configuration.allowedHosts.isEmpty {
            accepted = []
            return
        }
        let bound = configuration.host.contains(":") && !configuration.host.hasPrefix("[") ? "[\(configuration.host)]" : configuration.host
        var names: [String] = []
        for name in (wildcard ? [] : [bound.lowercased()]) + ["localhost", "127.0.0.1", "[::1]"] + proxies where !names.contains(name) {
            names.append(name)
        }
        accepted = names
    }

    /// Whether a request whose `Host` is `authority` is for this dashboard. A request without one is not a
    /// browser's (HTTP/1.1 browsers always send it) and passes.
    func accepts(authority: String?) -> Bool {
        guard !accepted.isEmpty, let authority else { return true }
        return accepted.contains(Self.name(of: authority))
    }

    /// Whether `authority` names an `--allowed-host` proxy.
    func isProxy(authority: String) -> Bool {
        proxies.contains(Self.name(of: authority))
    }

    /// Whether an `Origin` (`http://host:port`) is one of this dashboard's names; `null` is not.
    func accepts(origin: String) -> Bool {
        guard let components = URLComponents(string: origin), let host = components.host else { return false }
        return accepts(authority: host.contains(":") ? "[\(host)]" : host)
    }

    /// The host of `Host`, lower case and without its port: `[::1]:8080` is `[::1]`, `Example.org:80` is `example.org`.
    static func name(of authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("["), let close = lowered.firstIndex(of: "]") { return String(lowered[...close]) }
        return lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? lowered
    }

    /// What a refused request is told: the names this dashboard answers to.
    var refusal: String {
        "this dashboard answers to \(accepted.joined(separator: ", ")), with or without a port; "
            + "behind a proxy, start it with --allowed-host NAME\n"
    }
}
