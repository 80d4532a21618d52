/// Writes hotels as JSON Lines: one object per line with the keys `code name
/// address latitude longitude logoURL addtime` in that order, null when absent.
///
/// Written by hand rather than with `JSONEncoder` because `hotels parse`
/// writes one line per record at parser speed, and the encoder drops nil keys
/// and costs more than the parse itself.
public enum HotelJSONLines {
    /// Appends `hotel` as one line, newline included.
    public static func append(_ hotel: Hotel, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"code":"#.utf8)
        appendString(hotel.code, to: &output)
        output.append(contentsOf: #","name":"#.utf8)
        appendString(hotel.name, to: &output)
        output.append(contentsOf: #","address":"#.utf8)
        appendString(hotel.address, to: &output)
        output.append(contentsOf: #","latitude":"#.utf8)
        appendNumber(hotel.latitude, to: &output)
        output.append(contentsOf: #","longitude":"#.utf8)
        appendNumber(hotel.longitude, to: &output)
        output.append(contentsOf: #","logoURL":"#.utf8)
        appendString(hotel.logoURL, to: &output)
        output.append(contentsOf: #","addtime":"#.utf8)
        appendNumber(hotel.addtime, to: &output)
        output.append(contentsOf: "}\n".utf8)
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

    private static func appendNumber(_ number: (some CustomStringConvertible)?, to output: inout [UInt8]) {
        output.append(contentsOf: (number?.description ?? "null").utf8)
    }
}
