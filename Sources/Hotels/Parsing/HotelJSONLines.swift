/// Writes hotels as JSON Lines: one object per line with every key of
/// ``HotelFields`` in its order (`code name address latitude longitude logoURL
/// addtime phone chainCode rating postalCode city countryCode references`),
/// null when absent.
///
/// Written by hand rather than with `JSONEncoder` because `hotels parse`
/// writes one line per record at parser speed, and the encoder drops nil keys
/// and costs more than the parse itself.
public enum HotelJSONLines {
    /// Each field's `"key":`, with the comma before it, made once.
    private static let keyPrefixes: [[UInt8]] = HotelFields.all.enumerated().map { index, spec in
        Array(((index == 0 ? "{" : ",") + "\"\(spec.jsonKey)\":").utf8)
    }

    /// The fields in the table's order.
    private static let fields = HotelFields.all.map(\.field)

    /// Appends `hotel` as one line, newline included. The keys and their order
    /// are the table's; each value is read straight from the hotel rather than
    /// through the table's reader, which costs a closure call and a boxed value
    /// per field at parser speed. The switch names every field, so a field
    /// added to the table does not build until it is written here too.
    public static func append(_ hotel: Hotel, to output: inout [UInt8]) {
        for (index, field) in fields.enumerated() {
            output.append(contentsOf: keyPrefixes[index])
            switch field {
            case .code: appendString(hotel.code, to: &output)
            case .name: appendString(hotel.name, to: &output)
            case .address: appendString(hotel.address, to: &output)
            case .latitude: appendNumber(hotel.latitude, to: &output)
            case .longitude: appendNumber(hotel.longitude, to: &output)
            case .logoURL: appendString(hotel.logoURL, to: &output)
            case .addtime: appendNumber(hotel.addtime, to: &output)
            case .phone: appendString(hotel.phone, to: &output)
            case .chainCode: appendString(hotel.chainCode, to: &output)
            case .rating: appendNumber(hotel.rating, to: &output)
            case .postalCode: appendString(hotel.postalCode, to: &output)
            case .city: appendString(hotel.city, to: &output)
            case .countryCode: appendString(hotel.countryCode, to: &output)
            case .references:
                if let references = hotel.references { appendReferences(references, to: &output) } else { output.append(contentsOf: "null".utf8) }
            }
        }
        output.append(contentsOf: "}\n".utf8)
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
        guard var string else {
            output.append(contentsOf: "null".utf8)
            return
        }
        output.append(UInt8(ascii: "\""))
        string.withUTF8 { bytes in
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
        output.append(UInt8(ascii: "\""))
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
