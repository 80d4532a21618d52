/// What one response said, for a person, a line each: its counts, where
/// paging stands, the profile's header values (secret-looking ones hidden,
/// with their length) and its error state. `hotels parse --summary` prints
/// it for each file, `hotels call` for the page it asked for.
public enum ResponseReport {
    public static func lines(
        records: Int, skipped: Int?, warnings: Int, pagingState: String, headerValues: [String: String],
        profile: ServiceProfile, error: String? = nil
    ) -> [String] {
        var lines = ["\(records) records, " + (skipped.map { "\($0) skipped, " } ?? "") + "\(warnings) warnings", "paging: " + pagingState]
        for (name, value) in headerValues.sorted(by: { $0.key < $1.key }) {
            // A session's captured values are secrets unless the profile calls them public.
            let secret =
                name.hasPrefix("session.")
                ? profile.session?.publicValues.contains(String(name.dropFirst("session.".count))) != true
                : looksSecret(name, profile.header[name]?.description ?? "")
            lines.append("header \(name): " + (secret ? "(hidden, \(value.count) characters)" : "“\(value)”"))
        }
        lines += profile.header.keys.sorted().filter { headerValues[$0] == nil }.map { "header \($0): absent" }
        return lines + ["error: " + (error ?? "none")]
    }

    /// Session tokens and credentials never reach the output.
    static func looksSecret(_ name: String, _ path: String) -> Bool {
        let text = (name + " " + path).lowercased()
        return ["token", "session", "password", "secret", "security", "key", "auth", "credential", "nonce"].contains { text.contains($0) }
    }
}
