import Foundation

/// JSON as `hotels … --json` prints it and the dashboard's API answers it:
/// one line, keys sorted, dates in ISO 8601.
public enum JSONLine {
    public static func data(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    /// `value` as a line; `{}` if it cannot be encoded (a non-finite number, say).
    public static func string(_ value: some Encodable) -> String {
        String(decoding: (try? data(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
