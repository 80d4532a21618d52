import Foundation

/// A URL as pages, reports and logs show it: no `user:password@`, and no
/// query value (`?apikey=…`), since either may be a credential. Paths stay,
/// so a log still says which endpoint or logo it was.
public enum ShownURL {
    public static func of(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return maskedText(url) }
        let items = components.percentEncodedQueryItems ?? []
        let hasQueryValues = items.contains { $0.value != nil }
        guard components.user != nil || components.password != nil || hasQueryValues else { return url }
        components.user = nil
        components.password = nil
        guard hasQueryValues else { return components.string ?? "" }
        // Appended as text: URLComponents traps on a query set with characters a URL cannot hold, such as "…".
        components.query = nil
        components.fragment = nil
        return (components.string ?? "") + "?" + items.map { $0.value == nil ? $0.name : "\($0.name)=…" }.joined(separator: "&")
    }

    /// Text URLComponents cannot read (a port that is no number, a broken
    /// host) keeps no `…@` after its scheme and no query either.
    private static func maskedText(_ text: String) -> String {
        text.replacing(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\/?#]*@/) { $0.1 }.replacing(/\?[^#]*/, with: "?…")
    }
}
