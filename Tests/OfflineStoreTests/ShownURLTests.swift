import OfflineStore
import Testing

/// URLs as reports and logs show them, without a credential.
@Suite("A URL as shown")
struct ShownURLTests {
    @Test(
        "no user:password@ and no query value, whether URLComponents can read the URL or not",
        arguments: [
            ("http://agent:s3cret@hotels.test/soap?apikey=k3y&v", "http://hotels.test/soap?apikey=…&v"),
            ("https://hotels.test/soap", "https://hotels.test/soap"),
            // A port that is no number: URLComponents gives nil, and the text is masked instead.
            ("http://agent:s3cret@hotels.test:port/soap?apikey=k3y", "http://hotels.test:port/soap?…"),
            ("http://agent:s3cret@[broken/soap", "http://[broken/soap"),
        ])
    func shown(_ url: String, _ expected: String) {
        #expect(ShownURL.of(url) == expected)
        #expect(!ShownURL.of(url).contains("s3cret") && !ShownURL.of(url).contains("k3y"))
    }
}
