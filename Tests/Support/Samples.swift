import Foundation

/// The recorded material in `Samples/`, found from this file's place in the tree.
public enum Samples {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples")

    public static func url(_ path: String) -> URL {
        root.appendingPathComponent(path)
    }

    /// The bytes of `Samples/Fixtures/NAME`.
    public static func fixture(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: url("Fixtures/\(name)")))
    }

    /// Every fixture with its profile and what parsing it must give.
    public static func manifest() throws -> [FixtureCase] {
        try JSONDecoder().decode([FixtureCase].self, from: Data(contentsOf: url("Fixtures/manifest.json")))
    }

    /// A profile argument as the manifest gives it: a built-in name, or a path under the repository.
    public static func profileArgument(_ profile: String) -> String {
        profile.hasPrefix("Samples/") ? root.deletingLastPathComponent().appendingPathComponent(profile).path : profile
    }
}

/// One row of `Samples/Fixtures/manifest.json`.
public struct FixtureCase: Decodable, Sendable, CustomStringConvertible {
    public enum Outcome: String, Decodable, Sendable {
        case records, fault, serviceError, notSOAP, doctype, limit, malformed
    }

    public var file: String
    public var profile: String
    public var outcome: Outcome
    public var records: Int?

    /// The golden output for a fixture that parses: `Samples/Expected/NAME.jsonl`.
    public var expectedOutput: URL {
        Samples.url("Expected/\((file as NSString).deletingPathExtension).jsonl")
    }

    public var description: String { file }
}

/// One row of `Samples/Images/manifest.json`.
public struct ImageCase: Decodable, Sendable, CustomStringConvertible {
    /// `decode` (with a reference), `partial`, `error`, `unsupported` or `bomb`.
    public var file: String
    public var kind: String
    public var width: Int?
    public var height: Int?
    public var orientation: Int?
    public var named: String?

    public static func all() throws -> [ImageCase] {
        try JSONDecoder().decode([ImageCase].self, from: Data(contentsOf: Samples.url("Images/manifest.json")))
    }

    public func bytes() throws -> [UInt8] {
        try [UInt8](Data(contentsOf: Samples.url("Images/\(file)")))
    }

    /// Pillow's decode of the file, as RGBA.
    public func reference() throws -> [UInt8] {
        try [UInt8](Data(contentsOf: Samples.url("Images/reference/\(file).rgba")))
    }

    public var description: String { file }
}
