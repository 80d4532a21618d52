import HTTP
import Testing

@Suite("Which addresses a public-only transport refuses")
struct AddressRuleTests {
    @Test(
        "private, loopback, link-local, shared, multicast and unspecified addresses, in IPv4, IPv6 and IPv4 inside IPv6, are this machine's network; public ones are not",
        arguments: [
            ("127.0.0.1", true), ("localhost", true), ("::1", true), ("[::1]", true), ("0.0.0.0", true), ("::", true),
            ("10.1.2.3", true), ("172.16.0.1", true), ("172.31.255.255", true), ("192.168.1.1", true), ("169.254.169.254", true),
            ("100.64.0.1", true), ("224.0.0.1", true), ("fd00::1", true), ("fe80::1", true), ("ff02::1", true),
            ("::ffff:127.0.0.1", true), ("::ffff:10.0.0.1", true), ("64:ff9b::a9fe:a9fe", true),
            ("8.8.8.8", false), ("172.32.0.1", false), ("100.128.0.1", false), ("2001:4860:4860::8888", false),
            ("::ffff:8.8.8.8", false), ("name.invalid", false),
        ])
    func special(host: String, isSpecial: Bool) {
        #expect(AddressRule.isSpecial(host: host) == isSpecial, "\(host)")
    }
}
