/// Writes hotels as JSON Lines: one object per line with every key of
/// ``HotelFields`` in its order (`code name address latitude longitude logoURL
/// addtime phone chainCode rating postalCode city countryCode references`),
/// null when absent, then the values of any fields a ``HotelFieldTable`` adds.
///
/// Written by hand rather than with `JSONEncoder` because `hotels parse`
/// writes one line per record at parser speed, and the encoder drops nil keys
/// and costs more than the parse itself.
public enum HotelJSONLines {
    /// Each field's `"key":`, with the comma before it.
    private static let keys: [String] = HotelFields.all.enumerated().map { index, spec in (index == 0 ? "{" : ",") + "\"\(spec.jsonKey)\":"
    }
    /// The keys made once, one after another: field *i*'s is `keyPrefixes[keyStarts[i]..<keyStarts[i + 1]]`.
    private static let keyPrefixes: [UInt8] = Array(keys.joined().utf8)
    private static let keyStarts: [Int] = keys.reduce(into: [0]) { starts, key in starts.append(starts[starts.count - 1] + key.utf8.count) }

    /// Appends `hotel` as one line, newline included: the table's keys in its
    /// order, each value read straight from the hotel (``HotelFieldVisitor``).
    public static func append(_ hotel: Hotel, to output: inout [UInt8]) {
        keyPrefixes.withUnsafeBufferPointer { prefixes in
            keyStarts.withUnsafeBufferPointer { starts in
                var line = LineWriter(prefixes: prefixes, starts: starts)
                // The writer holds the only reference to the bytes while it appends, so none is copied.
                swap(&line.output, &output)
                hotel.visitFields(&line)
                swap(&line.output, &output)
            }
        }
        if let extensions = hotel.extensions { appendAdded(extensions, to: &output) }
        output.append(contentsOf: "}\n".utf8)
    }

    /// The values of a table's added fields, after the built-in ones.
    @inline(never)  // out of the way of the built-in fields' path
    private static func appendAdded(_ extensions: [HotelExtensionValue], to output: inout [UInt8]) {
        for added in extensions {
            output.append(UInt8(ascii: ","))
            appendString(added.key, to: &output)
            output.append(UInt8(ascii: ":"))
            appendValue(added.value, to: &output)
        }
    }

    /// Writes each field as `"key":value` after the ones before it.
    private struct LineWriter: HotelFieldVisitor {
        let prefixes: UnsafeBufferPointer<UInt8>
        let starts: UnsafeBufferPointer<Int>
        var output: [UInt8] = []

        init(prefixes: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int>) {
            self.prefixes = prefixes
            self.starts = starts
        }

        private mutating func key(_ field: Int) {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: prefixes[starts[field]..<starts[field + 1]]))
        }

        mutating func visit(_ field: Int, text: String?) {
            key(field)
            appendString(text, to: &output)
        }

        mutating func visit(_ field: Int, real: Double?) {
            key(field)
            appendNumber(real, to: &output)
        }

        mutating func visit(_ field: Int, integer: Int64?) {
            key(field)
            appendNumber(integer, to: &output)
        }

        mutating func visit(_ field: Int, references: [String: String]?) {
            key(field)
            if let references { appendReferences(references, to: &output) } else { output.append(contentsOf: "null".utf8) }
        }
    }

    /// One field's value as JSON.
    public static func appendValue(_ value: HotelFieldSpec.Value, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .text(let text): appendString(text, to: &output)
        case .real(let number): appendNumber(number, to: &output)
        case .integer(let number): appendNumber(number, to: &output)
        case .references(let references): appendReferences(references, to: &output)
        }
    }

    /// Catalogue references as an object, keys sorted so equal maps give equal text.
    public static func appendReferences(_ references: [String: String], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        for (index, name) in references.keys.sorted().enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendString(name, to: &output)
            output.append(UInt8(ascii: ":"))
            appendString(references[name], to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// One hotel as a line, newline included.
    public static func line(_ hotel: Hotel) -> String {
        var bytes: [UInt8] = []
        append(hotel, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string literal; UTF-8 passes through, control characters are
    /// escaped. Runs that need no escaping are copied whole.
    public static func appendString(_ string: String?, to output: inout [UInt8]) {
        guard let string else {
            output.append(contentsOf: "null".utf8)
            return
        }
        output.append(UInt8(ascii: "\""))
        // A native string's bytes are read in place: no copy of the string, and no retain of it.
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaping($0, to: &output) }) == nil {
            var copy = string
            copy.withUTF8 { appendEscaping($0, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// UTF-8 bytes, with what JSON must escape escaped.
    private static func appendEscaping(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            appendEscaped(byte, to: &output)
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    private static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        default:
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0xF)])
        }
    }

    private static func appendNumber(_ number: some CustomStringConvertible, to output: inout [UInt8]) {
        output.append(contentsOf: number.description.utf8)
    }

    private static func appendNumber(_ number: (some CustomStringConvertible)?, to output: inout [UInt8]) {
        if let number { appendNumber(number, to: &output) } else { output.append(contentsOf: "null".utf8) }
    }
}
