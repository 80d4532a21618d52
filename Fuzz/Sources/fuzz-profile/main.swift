import Foundation
import FuzzCheck
import Hotels

/// A profile document is either loaded, and then a response can be parsed
/// with it, or refused with ProfileError (typed throws) naming its key.
func fuzzProfile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = Data(input(start, count))
    do {
        let profile = try ServiceProfile(json: data, source: "fuzz")
        _ = try? HotelResponseParser(profile: profile).parse(bytes: Array(Sample.response.utf8))
    } catch {
        invariant(!error.reason.isEmpty, "a refusal without a reason")
    }
    return 0
}

enum Sample {
    static let response = """
        <?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>\
        <QueryHotelsResponse><Hotel code="A1"><Name>A</Name><Addtime>1700000000</Addtime></Hotel></QueryHotelsResponse>\
        </soap:Body></soap:Envelope>
        """
}

runFuzzer(fuzzProfile)
