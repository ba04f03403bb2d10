import ReachabilityCore
import Testing

// The probe URL parser: what a user gives with `--probe` or `probe =`. A URL it accepts is
// requested as it is rebuilt, so the accepted rows check every part, and the refused rows the
// reason a user is shown.

struct EndpointRow: Sendable, CustomTestStringConvertible {
    var text: String
    var url: String
    var isHTTPS: Bool
    var host: String
    var port: Int
    var target: String
    var expectedBody: String? = nil
    var testDescription: String { text }
}

private let acceptedEndpoints: [EndpointRow] = [
    EndpointRow(text: "http://connectivity-check.ubuntu.com/", url: "http://connectivity-check.ubuntu.com/", isHTTPS: false,
                host: "connectivity-check.ubuntu.com", port: 80, target: "/"),
    EndpointRow(text: "http://example.com", url: "http://example.com/", isHTTPS: false, host: "example.com", port: 80, target: "/"),
    EndpointRow(text: "http://example.com?x=1", url: "http://example.com/?x=1", isHTTPS: false, host: "example.com", port: 80, target: "/?x=1"),
    EndpointRow(text: "https://example.com:8443/check?x=1&y", url: "https://example.com:8443/check?x=1&y", isHTTPS: true,
                host: "example.com", port: 8443, target: "/check?x=1&y"),
    EndpointRow(text: "HTTP://Example.COM:80/Path", url: "http://Example.COM/Path", isHTTPS: false, host: "Example.COM", port: 80, target: "/Path"),
    EndpointRow(text: "https://example.com:443/", url: "https://example.com/", isHTTPS: true, host: "example.com", port: 443, target: "/"),
    EndpointRow(text: "http://example.com:443/", url: "http://example.com:443/", isHTTPS: false, host: "example.com", port: 443, target: "/"),
    EndpointRow(text: "http://192.0.2.1:1/gen", url: "http://192.0.2.1:1/gen", isHTTPS: false, host: "192.0.2.1", port: 1, target: "/gen"),
    EndpointRow(text: "http://h:65535", url: "http://h:65535/", isHTTPS: false, host: "h", port: 65535, target: "/"),
    EndpointRow(text: "http://h:00080/", url: "http://h/", isHTTPS: false, host: "h", port: 80, target: "/"),
    EndpointRow(text: "http://[::1]:8080/generate_204", url: "http://[::1]:8080/generate_204", isHTTPS: false, host: "::1", port: 8080,
                target: "/generate_204"),
    EndpointRow(text: "https://[2001:DB8::1]", url: "https://[2001:DB8::1]/", isHTTPS: true, host: "2001:DB8::1", port: 443, target: "/"),
    EndpointRow(text: "http://[::ffff:192.0.2.1]/", url: "http://[::ffff:192.0.2.1]/", isHTTPS: false, host: "::ffff:192.0.2.1", port: 80,
                target: "/"),
    EndpointRow(text: "http://detectportal.firefox.com/success.txt", url: "http://detectportal.firefox.com/success.txt", isHTTPS: false,
                host: "detectportal.firefox.com", port: 80, target: "/success.txt", expectedBody: "success\n"),
    EndpointRow(text: "http://NMCheck.GNOME.org/check_network_status.txt", url: "http://NMCheck.GNOME.org/check_network_status.txt",
                isHTTPS: false, host: "NMCheck.GNOME.org", port: 80, target: "/check_network_status.txt",
                expectedBody: "NetworkManager is online\n"),
    EndpointRow(text: "http://example.com/a%20b/~x;y=z", url: "http://example.com/a%20b/~x;y=z", isHTTPS: false, host: "example.com",
                port: 80, target: "/a%20b/~x;y=z"),
]

struct RefusedEndpointRow: Sendable, CustomTestStringConvertible {
    var text: String
    /// A part of the reason given.
    var reason: String
    var testDescription: String { text.isEmpty ? "(empty)" : String(text.prefix(40)) }
}

private let refusedEndpoints: [RefusedEndpointRow] = [
    RefusedEndpointRow(text: "", reason: "not an http:// or https:// URL"),
    RefusedEndpointRow(text: "ftp://example.com/", reason: "not an http:// or https:// URL"),
    RefusedEndpointRow(text: "example.com", reason: "not an http:// or https:// URL"),
    RefusedEndpointRow(text: "javascript:alert(1)", reason: "not an http:// or https:// URL"),
    RefusedEndpointRow(text: "http:/example.com/", reason: "not an http:// or https:// URL"),
    RefusedEndpointRow(text: "http://user:secret@example.com/", reason: "no user or password"),
    RefusedEndpointRow(text: "http://user@example.com/", reason: "no user or password"),
    RefusedEndpointRow(text: "http://example.com/#top", reason: "no fragment"),
    RefusedEndpointRow(text: "http://example.com#", reason: "no fragment"),
    RefusedEndpointRow(text: "http://example.com:0/", reason: "port '0'"),
    RefusedEndpointRow(text: "http://example.com:65536/", reason: "port '65536'"),
    RefusedEndpointRow(text: "http://example.com:99999/", reason: "port '99999'"),
    RefusedEndpointRow(text: "http://example.com:123456/", reason: "port '123456'"),
    RefusedEndpointRow(text: "http://example.com:/", reason: "port ''"),
    RefusedEndpointRow(text: "http://example.com:-1/", reason: "port '-1'"),
    RefusedEndpointRow(text: "http://example.com:+80/", reason: "port '+80'"),
    RefusedEndpointRow(text: "http://example.com:80a/", reason: "port '80a'"),
    RefusedEndpointRow(text: "http://example.com:80:81/", reason: "port '80:81'"),
    RefusedEndpointRow(text: "http://exa mple.com/", reason: "spaces"),
    RefusedEndpointRow(text: "http://example.com/a b", reason: "spaces"),
    RefusedEndpointRow(text: " http://example.com/", reason: "spaces"),
    RefusedEndpointRow(text: "http://example.com/\t", reason: "control"),
    RefusedEndpointRow(text: "http://example.com/\u{7F}", reason: "control"),
    RefusedEndpointRow(text: "http://exämple.com/", reason: "non-ASCII"),
    RefusedEndpointRow(text: "http://", reason: "no host"),
    RefusedEndpointRow(text: "http:///path", reason: "no host"),
    RefusedEndpointRow(text: "https://:443/", reason: "no host"),
    RefusedEndpointRow(text: "http://?x", reason: "no host"),
    RefusedEndpointRow(text: "http://[]/", reason: "brackets hold only an IPv6 address"),
    RefusedEndpointRow(text: "http://[::1/", reason: "unclosed '['"),
    RefusedEndpointRow(text: "http://[::1]x/", reason: "unexpected text after the IPv6 address"),
    RefusedEndpointRow(text: "http://[example.com]/", reason: "brackets hold only an IPv6 address"),
    RefusedEndpointRow(text: "http://[g::h]/", reason: "brackets hold only an IPv6 address"),
    RefusedEndpointRow(text: "http://[fe80::1%25eth0]/", reason: "brackets hold only an IPv6 address"),
    RefusedEndpointRow(text: "http://::1/", reason: "no host"),
    RefusedEndpointRow(text: "http://ex!ample.com/", reason: "characters a host name cannot have"),
    RefusedEndpointRow(text: "http://exa\\mple.com/", reason: "characters a host name cannot have"),
    RefusedEndpointRow(text: "http://" + String(repeating: "a", count: 254) + "/", reason: "longer than 253 bytes"),
    RefusedEndpointRow(text: "http://example.com/" + String(repeating: "a", count: 2030), reason: "longer than 2048 bytes"),
]

@Suite("Probe endpoints")
struct ProbeEndpointTests {
    @Test(arguments: acceptedEndpoints)
    func accepts(_ row: EndpointRow) throws {
        let endpoint = try ProbeEndpoint(parsing: row.text)
        #expect(endpoint.url == row.url)
        #expect(endpoint.description == row.url)
        #expect(endpoint.isHTTPS == row.isHTTPS)
        #expect(endpoint.host == row.host)
        #expect(endpoint.port == row.port)
        #expect(endpoint.target == row.target)
        #expect(endpoint.expectedBody == row.expectedBody)
        // The rebuilt URL is what is requested: it must parse back to the same endpoint.
        #expect(try ProbeEndpoint(parsing: endpoint.url) == endpoint)
    }

    @Test(arguments: refusedEndpoints)
    func refuses(_ row: RefusedEndpointRow) {
        let error = #expect(throws: ProbeEndpointError.self) { try ProbeEndpoint(parsing: row.text) }
        #expect(error?.url == row.text)
        #expect(error?.reason.contains(row.reason) == true, "reason: \(error?.reason ?? "none")")
        #expect(error?.description.hasPrefix("probe URL '") == true)
    }

    @Test func explicitExpectedBodyWinsOverTheKnownOne() throws {
        let endpoint = try ProbeEndpoint(parsing: "http://detectportal.firefox.com/success.txt", expectedBody: "custom")
        #expect(endpoint.expectedBody == "custom")
        #expect(try ProbeEndpoint(parsing: "http://detectportal.firefox.com/other.txt").expectedBody == nil)
    }

    @Test func exactly2048BytesIsAccepted() throws {
        let prefix = "http://example.com/"
        let text = prefix + String(repeating: "a", count: 2048 - prefix.utf8.count)
        #expect(try ProbeEndpoint(parsing: text).url == text)
    }
}
