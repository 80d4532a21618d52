import Failures
import Foundation

/// A profile that cannot be used, with the key at fault and why.
public struct ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Neither a built-in name nor a file path.
        case unknownName
        /// The file could not be read.
        case unreadable
        /// The profile has a mistake.
        case invalid
    }

    public var kind: Kind
    /// Where the profile came from: a file path or a built-in name.
    public var source: String
    /// The key at fault, dotted (`paging.next`), or nil for the whole document.
    public var key: String?
    public var reason: String

    public init(kind: Kind = .invalid, source: String, key: String?, reason: String) {
        self.kind = kind
        self.source = source
        self.key = key
        self.reason = reason
    }

    public var description: String {
        "profile \(source): " + (key.map { "“\($0)”: " } ?? "") + reason
    }
}

/// Any key of a JSON object, to list the keys a profile gave.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// JSONDecoder ignores keys it was not asked for; a profile must not, or a
    /// typo ("recrod") would silently fall back to a default.
    func refuseUnknownKeys(_ known: [String], under parent: String?) throws {
        let container = try container(keyedBy: AnyKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw ProfileKeyError(
                key: parent.map { "\($0).\(key.stringValue)" } ?? key.stringValue,
                reason: "unknown key; known keys: " + known.joined(separator: ", "))
        }
    }
}

extension [any CodingKey] {
    /// `references[0].catalog`: keys joined by dots, an array's index in brackets.
    var dotted: String {
        reduce("") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path.isEmpty ? key.stringValue : path + "." + key.stringValue
        }
    }
}

extension ProfileError: MeaningfulError {
    /// An unknown name is usage (64), an unreadable file no input (66), a mistake in one configuration (78).
    public var meaning: ErrorMeaning {
        switch kind {
        case .unknownName: ErrorMeaning(kind: .usage, status: .usage)
        case .unreadable: ErrorMeaning(kind: .noInput, status: .noInput)
        case .invalid: ErrorMeaning(kind: .configuration, status: .config, hint: "see README.md, “Service profiles”, for the format")
        }
    }
}
