import Failures
import Foundation

/// A file named by the caller cannot be read: missing, a folder, not
/// permitted, or not UTF-8 where text is wanted. Exit 66.
public struct UnreadableFile: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The file at `path` could not be opened; `errorNumber` says why.
    public init(path: String, errorNumber: Int32) {
        self.init(path: path, reason: String(cString: strerror(errorNumber)))
    }

    /// Without the path: whoever reports it names the file (`--cities FILE: cannot open: …`).
    public var description: String { "cannot open: \(reason)" }

    /// The bytes of the file at `path`.
    public static func contents(of path: String) throws(UnreadableFile) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UnreadableFile(path: path, reason: (error as NSError).localizedFailureReason ?? error.localizedDescription)
        }
    }
}

/// The cities of several lists: those named one by one, then a file's, one a
/// line (`#` starts a comment), each once, in order.
public enum CityList {
    public static func merge(_ cities: [String], file: String?) throws(UnreadableFile) -> [String] {
        var all = cities
        if let file {
            guard let text = String(data: try UnreadableFile.contents(of: file), encoding: .utf8) else {
                throw UnreadableFile(path: file, reason: "it is not UTF-8 text; give one city a line")
            }
            all += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }
}

extension UnreadableFile: MeaningfulError {
    /// No input (66).
    public var meaning: ErrorMeaning { ErrorMeaning(kind: .noInput, status: .noInput) }
}
