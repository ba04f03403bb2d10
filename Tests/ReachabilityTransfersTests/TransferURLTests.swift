@testable import ReachabilityTransfers
import Testing

/// URLs a job may name: what URLComponents lets through but no request could use is refused.
@Suite("Transfer URLs")
struct TransferURLTests {
    @Test(arguments: [
        "http://example.org/f", "HTTPS://example.org:443/f", "http://[::1]:8080/f", "http://[2001:db8::1]/", "http://user:pw@h:1/",
        "http://h:/f", "http://127.0.0.1:65535/", "http://h:065520/", "https://[fA:849:A15::b]#\u{1F3FB}x",
    ])
    func accepts(_ text: String) {
        #expect(TransferURL(text) != nil, "\(text)")
    }

    @Test(arguments: [
        "http://[zz]/", "http://[]/", "http://[v1.x]/", "http://[0f]/", "http://[127.0.0.1]/", "http://h:99999999999999999999/",
        "http://h:0/", "http://h:000/", "http://h:65536/", "http://h:8x/", "ftp://h/", "http:///f", "http://[::1/",
    ])
    func refuses(_ text: String) {
        #expect(TransferURL(text) == nil, "\(text)")
    }
}
