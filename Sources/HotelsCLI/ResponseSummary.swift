import Hotels

/// What one response said, on standard error: its counts, where paging
/// stands, the profile's header values (secret-looking ones hidden, with
/// their length) and its error state. `hotels parse --summary` prints it
/// for each file, `hotels call` for the page it asked for.
enum ResponseSummary {
    static func print(_ context: String, records: Int, skipped: Int?, warnings: Int, pagingState: String,
                      headerValues: [String: String], profile: ServiceProfile, error: String? = nil) {
        Diagnostics.note("\(context): \(records) records, " + (skipped.map { "\($0) skipped, " } ?? "") + "\(warnings) warnings")
        Diagnostics.note("\(context): paging: " + pagingState)
        for (name, value) in headerValues.sorted(by: { $0.key < $1.key }) {
            // A session's captured values are secrets unless the profile calls them public.
            let secret = name.hasPrefix("session.")
                ? profile.session?.publicValues.contains(String(name.dropFirst("session.".count))) != true
                : ParseCommand.looksSecret(name, profile.header[name]?.description ?? "")
            Diagnostics.note("\(context): header \(name): " + (secret ? "(hidden, \(value.count) characters)" : "“\(value)”"))
        }
        for name in profile.header.keys.sorted() where headerValues[name] == nil {
            Diagnostics.note("\(context): header \(name): absent")
        }
        Diagnostics.note("\(context): error: " + (error ?? "none"))
    }
}
