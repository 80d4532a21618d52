import Foundation

// FoundationXML's XMLParser building the same records as `hotels parse` with
// the `sample` profile, fed by a stream (XMLParser(data:) fails past ~10 MB
// on Linux). Prints {"records": N} like `hotels parse --count`.
#if canImport(FoundationXML)
    import FoundationXML
#endif

struct Record {
    var code: String?
    var name: String?
    var address: String?
    var latitude: Double?
    var longitude: Double?
    var logoURL: String?
    var addtime: Int64?
}

final class RecordBuilder: NSObject, XMLParserDelegate {
    private static let fields: Set<String> = ["code", "name", "address", "latitude", "longitude", "logoURL", "addtime"]
    private var record: Record?
    private var text = ""
    private var collecting = false
    var count = 0

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        if elementName == "Hotel" {
            record = Record()
        } else if record != nil, RecordBuilder.fields.contains(elementName) {
            text = ""
            collecting = true
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if collecting { text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if collecting { text += String(decoding: CDATABlock, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if elementName == "Hotel", let record {
            if record.code != nil { count += 1 }
            self.record = nil
            return
        }
        guard collecting else { return }
        collecting = false
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch elementName {
        case "code": record?.code = value
        case "name": record?.name = value
        case "address": record?.address = value
        case "latitude": record?.latitude = Double(value)
        case "longitude": record?.longitude = Double(value)
        case "logoURL": record?.logoURL = URL(string: value)?.absoluteString
        case "addtime": record?.addtime = Int64(value)
        default: break
        }
    }
}

guard CommandLine.arguments.count == 2, let stream = InputStream(fileAtPath: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: foundation-xml-baseline FILE\n".utf8))
    exit(64)
}
let parser = XMLParser(stream: stream)
parser.shouldProcessNamespaces = true
let builder = RecordBuilder()
parser.delegate = builder
guard parser.parse() else {
    FileHandle.standardError.write(Data("parse failed: \(String(describing: parser.parserError))\n".utf8))
    exit(65)
}
print("{\"records\": \(builder.count)}")
