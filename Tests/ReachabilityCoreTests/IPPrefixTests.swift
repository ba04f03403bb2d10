import ReachabilityCore
import Testing

/// The one parser of address text (route lookups and literal hosts use it, not `inet_pton`).
@Suite("IPPrefix")
struct IPPrefixTests {
    struct Literal: Sendable, CustomTestStringConvertible {
        var text: String
        var bytes: [UInt8]?
        var testDescription: String { text }
    }

    static let literals: [Literal] = [
        Literal(text: "192.0.2.1", bytes: [192, 0, 2, 1]),
        Literal(text: "0.0.0.0", bytes: [0, 0, 0, 0]),
        Literal(text: "2001:db8::1", bytes: [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1]),
        Literal(text: "::", bytes: Array(repeating: 0, count: 16)),
        Literal(text: "::ffff:192.0.2.1", bytes: Array(repeating: 0, count: 10) + [0xff, 0xff, 192, 0, 2, 1]),
        Literal(text: "1.2.3", bytes: nil),
        Literal(text: "+1.2.3.4", bytes: nil),
        Literal(text: "256.1.1.1", bytes: nil),
        Literal(text: "1.2.3.4.5", bytes: nil),
        Literal(text: ":::", bytes: nil),
        Literal(text: "12345::1", bytes: nil),
        Literal(text: "1::2::3", bytes: nil),
        Literal(text: "::ffff:1.2.3", bytes: nil),
        Literal(text: "example.org", bytes: nil),
        Literal(text: "", bytes: nil),
    ]

    @Test(arguments: literals)
    func parses(_ literal: Literal) {
        #expect(IPPrefix.parse(literal.text)?.bytes == literal.bytes)
    }

    @Test func networkPrefixes() {
        #expect(IPPrefix.network(of: "192.168.1.20", prefixLength: 24, family: .ipv4) == "192.168.1.0/24")
        #expect(IPPrefix.network(of: "2001:db8:1::20", prefixLength: 64, family: .ipv6) == "2001:db8:1::/64")
        #expect(IPPrefix.network(of: "10.1.2.3", prefixLength: 99, family: .ipv4) == "10.1.2.3/32")
    }
}
