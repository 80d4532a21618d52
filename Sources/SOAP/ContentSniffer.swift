/// Remembers the first bytes of a response, to say what it was when it turns
/// out not to be XML: an HTML error page, JSON, plain text or nothing at all.
struct ContentSniffer {
    private static let keep = 2048
    private var prefix: [UInt8] = []

    mutating func observe(_ bytes: UnsafeRawBufferPointer) {
        guard prefix.count < ContentSniffer.keep else { return }
        prefix.append(contentsOf: bytes.prefix(ContentSniffer.keep - prefix.count))
    }

    /// A description of a response that is clearly not XML, or nil when it may
    /// be XML (then the XML error says more).
    var looksLike: String? {
        var start = prefix.startIndex
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < prefix.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[start]) { start += 1 }
        guard start < prefix.endIndex else { return "an empty body" }
        let text = String(decoding: prefix[start...], as: UTF8.self)
        let lowercased = text.lowercased()
        switch prefix[start] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return "JSON, starting “\(ContentSniffer.snippet(text))”"
        case UInt8(ascii: "<"):
            guard lowercased.hasPrefix("<!doctype html") || lowercased.hasPrefix("<html") else { return nil }
            return ContentSniffer.title(in: text, lowercased: lowercased).map { "an HTML page titled “\($0)”" }
                ?? "an HTML page"
        case 0x00, 0xFE, 0xFF:
            return nil  // UTF-16 or UTF-32: let the XML reader decide.
        default:
            return "plain text, starting “\(ContentSniffer.snippet(text))”"
        }
    }

    private static func snippet(_ text: String) -> String {
        let line = text.prefix { $0 != "\n" && $0 != "\r" }
        return line.count > 80 ? line.prefix(80) + "…" : String(line)
    }

    private static func title(in text: String, lowercased: String) -> String? {
        // Offsets agree between the two strings only when lowercasing kept
        // the length, as it does for the ASCII of HTML markup.
        guard text.utf8.count == lowercased.utf8.count,
            let open = lowercased.utf8.firstRange(of: "<title>".utf8),
            let close = lowercased.utf8[open.upperBound...].firstRange(of: "</title>".utf8)
        else { return nil }
        let bytes = Array(text.utf8)
        let start = lowercased.utf8.distance(from: lowercased.utf8.startIndex, to: open.upperBound)
        let end = lowercased.utf8.distance(from: lowercased.utf8.startIndex, to: close.lowerBound)
        let title = String(decoding: bytes[start..<end], as: UTF8.self).trimmingWhitespace()
        return title.isEmpty ? nil : title
    }
}
