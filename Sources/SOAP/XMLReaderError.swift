import Failures

/// A place in a document, 1-based, as libxml2 counts it.
public struct XMLPosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}

/// Caps an ``XMLPushReader`` enforces on every document, on top of libxml2's own.
public struct XMLReaderLimits: Sendable, Equatable {
    /// The deepest element nesting allowed.
    public var maxDepth: Int
    /// The longest text node or attribute value, in bytes.
    public var maxTextLength: Int
    /// The most bytes one document may have.
    public var maxInputBytes: Int

    public init(maxDepth: Int = 128, maxTextLength: Int = 1 << 20, maxInputBytes: Int = 256 << 20) {
        self.maxDepth = maxDepth
        self.maxTextLength = maxTextLength
        self.maxInputBytes = maxInputBytes
    }
}

/// Why a document was refused by the XML reader.
public enum XMLReaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not well-formed XML (libxml2's reason and position).
    case malformed(reason: String, at: XMLPosition)
    /// The document has a DOCTYPE; SOAP messages must not, and refusing it
    /// rules out every entity-expansion and external-DTD attack.
    case doctypeForbidden(name: String, at: XMLPosition)
    /// One of ``XMLReaderLimits`` was passed.
    case limitExceeded(Limit, at: XMLPosition)
    /// libxml2 could not allocate its parser.
    case outOfMemory

    public enum Limit: Sendable, Equatable, CustomStringConvertible {
        case depth(Int)
        case textLength(Int)
        case inputBytes(Int)

        public var description: String {
            switch self {
            case .depth(let limit): "element nesting deeper than \(limit)"
            case .textLength(let limit): "a text value longer than \(limit) bytes"
            case .inputBytes(let limit): "a document larger than \(limit) bytes"
            }
        }
    }

    public var description: String {
        switch self {
        case .malformed(let reason, let position):
            "malformed XML at \(position): \(reason)"
        case .doctypeForbidden(let name, let position):
            "refused a DOCTYPE (<!DOCTYPE \(name)>) at \(position): SOAP messages must not carry a DTD"
        case .limitExceeded(let limit, let position):
            "refused \(limit) at \(position)"
        case .outOfMemory:
            "libxml2 could not allocate a parser"
        }
    }
}

extension String {
    /// The string without leading and trailing XML white space (space, tab, CR, LF).
    package func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }),
            let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }

    /// The string with every run of XML white space made one space, and none
    /// at either end: a multi-line, indented text on one line.
    package func foldingWhitespace() -> String {
        split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).joined(separator: " ")
    }
}

extension XMLReaderError: MeaningfulError {
    /// Bad data; a passed limit says how to raise it.
    public var meaning: ErrorMeaning {
        guard case .limitExceeded = self else { return ErrorMeaning(kind: .badData, status: .dataError) }
        return ErrorMeaning(
            kind: .badData, status: .dataError,
            hint: "if the document is trusted, raise the limit with --max-depth, --max-text or --max-input")
    }
}
