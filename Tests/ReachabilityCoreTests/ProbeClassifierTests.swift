import ReachabilityCore
import Testing

// How one probe's answer is read: Chromium's and Android's matrix (204, empty or one-byte 200,
// a page, redirects, 511, errors, HTTPS), NetworkManager's expected text and status header, and
// the portal URLs a hostile network could try to slip onto a terminal.

private let generate204 = "http://connectivitycheck.example/generate_204"
private let firefox = "http://detectportal.firefox.com/success.txt"
private let networkManager = "http://nmcheck.gnome.org/check_network_status.txt"
private let secure = "https://check.example/generate_204"

struct VerdictRow: Sendable, CustomTestStringConvertible {
    var name: String
    var endpoint = generate204
    var status: Int
    var reason = ""
    var headers: [(name: String, value: String)] = []
    var body = ""
    var outcome: ProbeRecord.Outcome
    var portalURL: String? = nil
    var detail: String
    var testDescription: String { name }
}

private let html = "<html><head><title>Welcome</title></head><body>Please log in.</body></html>"

private let chromiumMatrix: [VerdictRow] = [
    VerdictRow(name: "204 is the expected answer", status: 204, reason: "No Content", outcome: .success, detail: "204 No Content"),
    VerdictRow(name: "204 with a body still counts", status: 204, reason: "No Content", body: "ignored", outcome: .success,
               detail: "204 No Content"),
    VerdictRow(name: "200 empty", status: 200, reason: "OK", outcome: .success, detail: "200 OK, 0 bytes"),
    VerdictRow(name: "200 with one byte", status: 200, reason: "OK", body: "\n", outcome: .success, detail: "200 OK, 1 byte"),
    VerdictRow(name: "200 with two bytes is a portal", status: 200, reason: "OK", body: "ok", outcome: .portal,
               detail: "200 OK, 2 bytes: not the expected answer"),
    VerdictRow(name: "200 with an HTML page is a portal", status: 200, reason: "OK", body: html, outcome: .portal,
               detail: "200 OK, \(html.utf8.count) bytes: not the expected answer"),
    VerdictRow(name: "other 2xx is a portal", status: 202, reason: "Accepted", body: "", outcome: .portal,
               detail: "202 Accepted, 0 bytes: not the expected answer"),
    VerdictRow(name: "302 to an absolute URL", status: 302, reason: "Found", headers: [("Location", "http://10.0.0.1/login")],
               outcome: .portal, portalURL: "http://10.0.0.1/login", detail: "302 Found to http://10.0.0.1/login"),
    VerdictRow(name: "302 to an absolute path", status: 302, reason: "Found", headers: [("location", "/login?from=probe")],
               outcome: .portal, portalURL: "http://connectivitycheck.example/login?from=probe",
               detail: "302 Found to http://connectivitycheck.example/login?from=probe"),
    VerdictRow(name: "307 to a relative path", endpoint: "http://probe.example:8080/a/b/check", status: 307,
               reason: "Temporary Redirect", headers: [("LOCATION", " ../login.html ")], outcome: .portal,
               portalURL: "http://probe.example:8080/a/login.html", detail: "307 Temporary Redirect to http://probe.example:8080/a/login.html"),
    VerdictRow(name: "301 to an https portal", status: 301, reason: "Moved Permanently", headers: [("Location", "https://portal.example/")],
               outcome: .portal, portalURL: "https://portal.example/", detail: "301 Moved Permanently to https://portal.example/"),
    VerdictRow(name: "302 without a Location", status: 302, reason: "Found", outcome: .portal, detail: "302 Found without a Location"),
    VerdictRow(name: "511 is a portal", status: 511, reason: "Network Authentication Required", outcome: .portal,
               detail: "511 Network Authentication Required"),
    VerdictRow(name: "404 is a failure", status: 404, reason: "Not Found", body: html, outcome: .failure, detail: "404 Not Found"),
    VerdictRow(name: "503 is a failure", status: 503, reason: "Service Unavailable", outcome: .failure, detail: "503 Service Unavailable"),
    VerdictRow(name: "100 is a failure", status: 100, reason: "Continue", outcome: .failure, detail: "100 Continue"),
    VerdictRow(name: "https 204", endpoint: secure, status: 204, reason: "No Content", outcome: .success, detail: "204 No Content"),
    VerdictRow(name: "https 301 is no portal", endpoint: secure, status: 301, reason: "Moved Permanently",
               headers: [("Location", "https://www.example.com/")], outcome: .failure,
               detail: "301 Moved Permanently to https://www.example.com/, not the expected answer"),
    VerdictRow(name: "https 200 page is no portal", endpoint: secure, status: 200, reason: "OK", body: html, outcome: .failure,
               detail: "200 OK, \(html.utf8.count) bytes: not the expected answer"),
    VerdictRow(name: "https 511 is a portal", endpoint: secure, status: 511, reason: "Network Authentication Required",
               body: "<meta http-equiv=\"refresh\" content=\"0; url=https://login.example.net/\">", outcome: .portal,
               portalURL: "https://login.example.net/", detail: "511 Network Authentication Required"),
    VerdictRow(name: "https 503", endpoint: secure, status: 503, reason: "Service Unavailable", outcome: .failure,
               detail: "503 Service Unavailable"),
]

private let expectedBodies: [VerdictRow] = [
    VerdictRow(name: "exact expected body", endpoint: firefox, status: 200, reason: "OK", body: "success\n", outcome: .success,
               detail: "200 OK, 8 bytes"),
    VerdictRow(name: "expected body without its newline", endpoint: firefox, status: 200, reason: "OK", body: "success", outcome: .success,
               detail: "200 OK, 7 bytes"),
    VerdictRow(name: "expected body with CRLF and blanks", endpoint: firefox, status: 200, reason: "OK", body: " \tsuccess\r\n",
               outcome: .success, detail: "200 OK, 11 bytes"),
    VerdictRow(name: "expected body as a prefix", endpoint: networkManager, status: 200, reason: "OK",
               body: "NetworkManager is online\nand more", outcome: .success, detail: "200 OK, 33 bytes"),
    VerdictRow(name: "a longer text starting with the expected one (prefix rule)", endpoint: firefox, status: 200, reason: "OK",
               body: "successor? no: failure", outcome: .success, detail: "200 OK, 22 bytes"),
    VerdictRow(name: "wrong text is a portal", endpoint: firefox, status: 200, reason: "OK", body: "Success", outcome: .portal,
               detail: "200 OK, 7 bytes: not the expected answer"),
    VerdictRow(name: "empty 200 when a text is expected", endpoint: firefox, status: 200, reason: "OK", outcome: .portal,
               detail: "200 OK, 0 bytes: not the expected answer"),
    VerdictRow(name: "truncated expected text", endpoint: networkManager, status: 200, reason: "OK", body: "NetworkManager is",
               outcome: .portal, detail: "200 OK, 17 bytes: not the expected answer"),
    VerdictRow(name: "204 where a text is expected", endpoint: firefox, status: 204, reason: "No Content", outcome: .success,
               detail: "204 No Content"),
    VerdictRow(name: "expected text with another status", endpoint: firefox, status: 201, reason: "Created", body: "success\n",
               outcome: .portal, detail: "201 Created, 8 bytes: not the expected answer"),
    VerdictRow(name: "NetworkManager's header on a page", status: 200, reason: "OK",
               headers: [("X-NetworkManager-Status", "online")], body: html, outcome: .success,
               detail: "200 OK, X-NetworkManager-Status: online"),
    VerdictRow(name: "the header in any case", endpoint: firefox, status: 200, reason: "OK",
               headers: [("x-networkmanager-status", " ONLINE ")], body: "nope", outcome: .success,
               detail: "200 OK, X-NetworkManager-Status: online"),
    VerdictRow(name: "the header on a redirect does not count", status: 302, reason: "Found",
               headers: [("X-NetworkManager-Status", "online"), ("Location", "http://portal/")], outcome: .portal,
               portalURL: "http://portal/", detail: "302 Found to http://portal/"),
    VerdictRow(name: "another header value does not count", status: 200, reason: "OK",
               headers: [("X-NetworkManager-Status", "offline")], body: "xx", outcome: .portal,
               detail: "200 OK, 2 bytes: not the expected answer"),
]

private func meta(_ attributes: String) -> String { "<html><head><meta \(attributes)></head><body>Redirecting</body></html>" }

private let portalPages: [VerdictRow] = [
    VerdictRow(name: "meta refresh", status: 200, reason: "OK", body: meta("http-equiv=\"refresh\" content=\"0; url=http://portal.example/login\""),
               outcome: .portal, portalURL: "http://portal.example/login", detail: ""),
    VerdictRow(name: "meta refresh, content first, upper case, single quotes", status: 200, reason: "OK",
               body: meta("CONTENT='5;URL=http://p.example/a?b=1&amp;c=2' HTTP-EQUIV=Refresh"), outcome: .portal,
               portalURL: "http://p.example/a?b=1&c=2", detail: ""),
    VerdictRow(name: "meta refresh with a quoted URL", status: 200, reason: "OK",
               body: meta("http-equiv=refresh content=\"0; url='https://portal.example/x'\""), outcome: .portal,
               portalURL: "https://portal.example/x", detail: ""),
    VerdictRow(name: "meta refresh to a relative URL", status: 200, reason: "OK", body: meta("http-equiv=\"refresh\" content=\"0;url=/login\""),
               outcome: .portal, portalURL: "http://connectivitycheck.example/login", detail: ""),
    VerdictRow(name: "meta refresh without url=", status: 200, reason: "OK", body: meta("http-equiv=\"refresh\" content=\"0, http://p.example/\""),
               outcome: .portal, portalURL: "http://p.example/", detail: ""),
    VerdictRow(name: "a meta that is no refresh", status: 200, reason: "OK",
               body: meta("name=\"viewport\" content=\"0; url=http://not.example/\""), outcome: .portal, detail: ""),
    VerdictRow(name: "window.location", status: 200, reason: "OK",
               body: "<script>window.location = \"http://portal.example/js\";</script>", outcome: .portal,
               portalURL: "http://portal.example/js", detail: ""),
    VerdictRow(name: "location.href with escaped slashes", status: 200, reason: "OK",
               body: "<script>document.location.href='http:\\/\\/portal.example\\/esc';</script>", outcome: .portal,
               portalURL: "http://portal.example/esc", detail: ""),
    VerdictRow(name: "location.replace", status: 200, reason: "OK", body: "<script>top.location.replace( \"/captive\" )</script>",
               outcome: .portal, portalURL: "http://connectivitycheck.example/captive", detail: ""),
    VerdictRow(name: "a comparison is no assignment", status: 200, reason: "OK",
               body: "<script>if (location == \"http://a.example/\") {} var geolocation = \"http://b.example/\"</script>",
               outcome: .portal, detail: ""),
    VerdictRow(name: "the meta refresh wins over a script", status: 200, reason: "OK",
               body: "<script>location='http://js.example/'</script>" + meta("http-equiv=refresh content='0;url=http://meta.example/'"),
               outcome: .portal, portalURL: "http://meta.example/", detail: ""),
    VerdictRow(name: "an unusable meta refresh falls back to the script", status: 200, reason: "OK",
               body: meta("http-equiv=refresh content='0;url=file:///etc/passwd'") + "<script>location.href=\"http://js.example/\"</script>",
               outcome: .portal, portalURL: "http://js.example/", detail: ""),
    VerdictRow(name: "a 302 without a usable Location uses the page", status: 302, reason: "Found", headers: [("Location", "ftp://x/")],
               body: meta("http-equiv=refresh content='0;url=http://page.example/'"), outcome: .portal,
               portalURL: "http://page.example/", detail: "302 Found to an unusable Location"),
    VerdictRow(name: "a 511 page names the login", status: 511, reason: "Network Authentication Required",
               body: meta("http-equiv=\"refresh\" content=\"0; url=https://login.example.net/\""), outcome: .portal,
               portalURL: "https://login.example.net/", detail: "511 Network Authentication Required"),
    VerdictRow(name: "a 404 page's refresh is ignored", status: 404, reason: "Not Found",
               body: meta("http-equiv=refresh content='0;url=http://x.example/'"), outcome: .failure, detail: "404 Not Found"),
]

private let hostileAnswers: [VerdictRow] = [
    VerdictRow(name: "javascript: Location", status: 302, reason: "Found", headers: [("Location", "javascript:alert(1)")], outcome: .portal,
               detail: "302 Found to an unusable Location"),
    VerdictRow(name: "escape sequence in Location", status: 302, reason: "Found", headers: [("Location", "http://p.example/\u{1B}[2J")],
               outcome: .portal, detail: "302 Found to an unusable Location"),
    VerdictRow(name: "non-ASCII Location", status: 302, reason: "Found", headers: [("Location", "http://portal.example/é")], outcome: .portal,
               detail: "302 Found to an unusable Location"),
    VerdictRow(name: "space in Location", status: 302, reason: "Found", headers: [("Location", "http://portal.example/a b")], outcome: .portal,
               detail: "302 Found to an unusable Location"),
    VerdictRow(name: "user info in Location", status: 302, reason: "Found", headers: [("Location", "http://bank.example@evil.example/")],
               outcome: .portal, detail: "302 Found to an unusable Location"),
    VerdictRow(name: "Location over 2048 bytes", status: 302, reason: "Found",
               headers: [("Location", "http://p.example/" + String(repeating: "a", count: 2048))], outcome: .portal,
               detail: "302 Found to an unusable Location"),
    VerdictRow(name: "a Location without a host", status: 302, reason: "Found", headers: [("Location", "http:///x")], outcome: .portal,
               detail: "302 Found to an unusable Location"),
    VerdictRow(name: "escape sequence in the reason", status: 503, reason: "Service\u{1B}[31m Unavailable\r\n", outcome: .failure,
               detail: "503 Service[31m Unavailable"),
    VerdictRow(name: "a long reason is cut", status: 503, reason: String(repeating: "x", count: 500), outcome: .failure,
               detail: "503 " + String(repeating: "x", count: 64)),
    VerdictRow(name: "non-ASCII reason", status: 503, reason: "Indisponible ☠", outcome: .failure, detail: "503 Indisponible"),
    VerdictRow(name: "no reason: the standard phrase", status: 302, headers: [("Location", "http://p/")], outcome: .portal,
               portalURL: "http://p/", detail: "302 Found to http://p/"),
    VerdictRow(name: "no reason, unknown code", status: 299, outcome: .portal, detail: "299, 0 bytes: not the expected answer"),
    VerdictRow(name: "status 0", status: 0, outcome: .failure, detail: "0"),
    VerdictRow(name: "negative status", status: -1, reason: "?", outcome: .failure, detail: "-1 ?"),
    VerdictRow(name: "huge status", status: Int.max, outcome: .failure, detail: "\(Int.max)"),
]

@Suite("Probe answers")
struct ProbeClassifierTests {
    @Test(arguments: chromiumMatrix + expectedBodies + portalPages + hostileAnswers)
    func classifies(_ row: VerdictRow) throws {
        let endpoint = try ProbeEndpoint(parsing: row.endpoint)
        let verdict = ProbeResponseClassifier.classify(
            endpoint: endpoint, status: row.status, reason: row.reason, headers: row.headers, body: Array(row.body.utf8)
        )
        #expect(verdict.outcome == row.outcome)
        #expect(verdict.portalURL == row.portalURL)
        // The page rows are about the URL; their detail is the generic page one.
        if !row.detail.isEmpty { #expect(verdict.detail == row.detail) }
        #expect(verdict.detail.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F })
        if verdict.outcome != .portal { #expect(verdict.portalURL == nil) }
    }

    @Test func aFullSizeBodyIsScannedWithoutTrouble() throws {
        // 64 KiB of tag openings that never close: every scan resumes where the last stopped.
        let endpoint = try ProbeEndpoint(parsing: generate204)
        let body = Array(String(repeating: "<meta location=\"", count: 4096).utf8)
        let verdict = ProbeResponseClassifier.classify(endpoint: endpoint, status: 200, reason: "OK", headers: [], body: body)
        #expect(verdict.outcome == .portal)
        #expect(verdict.portalURL == nil)
    }
}

struct PortalURLRow: Sendable, CustomTestStringConvertible {
    var reference: String
    var base = "http://probe.example/dir/check?q=1"
    var resolved: String?
    var testDescription: String { "\(reference) against \(base)" }
}

private let portalURLRows: [PortalURLRow] = [
    PortalURLRow(reference: "http://portal.example/", resolved: "http://portal.example/"),
    PortalURLRow(reference: "HTTPS://Portal.Example/Login", resolved: "https://Portal.Example/Login"),
    PortalURLRow(reference: "//other.example/x", resolved: "http://other.example/x"),
    PortalURLRow(reference: "//other.example/x", base: "https://probe.example/", resolved: "https://other.example/x"),
    PortalURLRow(reference: "/login", resolved: "http://probe.example/login"),
    PortalURLRow(reference: "/a/../b/./c", resolved: "http://probe.example/b/c"),
    PortalURLRow(reference: "/../../x", resolved: "http://probe.example/x"),
    PortalURLRow(reference: "login", resolved: "http://probe.example/dir/login"),
    PortalURLRow(reference: "./", resolved: "http://probe.example/dir/"),
    PortalURLRow(reference: "..", resolved: "http://probe.example/"),
    PortalURLRow(reference: "../up?x=1#f", resolved: "http://probe.example/up?x=1#f"),
    PortalURLRow(reference: "?other", resolved: "http://probe.example/dir/check?other"),
    PortalURLRow(reference: "#frag", resolved: "http://probe.example/dir/check?q=1#frag"),
    PortalURLRow(reference: "/login", base: "http://[2001:db8::1]:8080/gen", resolved: "http://[2001:db8::1]:8080/login"),
    PortalURLRow(reference: "/login", base: "https://probe.example:443/", resolved: "https://probe.example/login"),
    PortalURLRow(reference: "  http://padded.example/  ", resolved: "http://padded.example/"),
    PortalURLRow(reference: "http://10.0.0.1:8002/index.php?zone=guest&redirurl=http%3A%2F%2Fx",
                 resolved: "http://10.0.0.1:8002/index.php?zone=guest&redirurl=http%3A%2F%2Fx"),
    PortalURLRow(reference: "", resolved: nil),
    PortalURLRow(reference: "mailto:root@example", resolved: nil),
    PortalURLRow(reference: "data:text/html,hi", resolved: nil),
    PortalURLRow(reference: "http:", resolved: nil),
    PortalURLRow(reference: "http://", resolved: nil),
    PortalURLRow(reference: "http://:80/", resolved: nil),
    PortalURLRow(reference: "http://a\\@b/", resolved: nil),
    PortalURLRow(reference: "http://user:pw@portal.example/", resolved: nil),
    PortalURLRow(reference: "http://portal.example/\u{7F}", resolved: nil),
    PortalURLRow(reference: "http://portal.example/\u{9B}31m", resolved: nil),
    PortalURLRow(reference: "http://portal.example/\0", resolved: nil),
]

@Suite("Portal URLs")
struct PortalURLTests {
    @Test(arguments: portalURLRows)
    func resolves(_ row: PortalURLRow) throws {
        let endpoint = try ProbeEndpoint(parsing: row.base)
        #expect(PortalURL.resolve(row.reference, against: endpoint) == row.resolved)
    }

    @Test func theLengthLimitIsInclusive() throws {
        let endpoint = try ProbeEndpoint(parsing: generate204)
        let prefix = "http://p.example/"
        let longest = prefix + String(repeating: "a", count: PortalURL.maximumLength - prefix.utf8.count)
        #expect(PortalURL.resolve(longest, against: endpoint) == longest)
        #expect(PortalURL.resolve(longest + "a", against: endpoint) == nil)
        // A relative reference that grows past the limit once resolved is refused too.
        let relative = String(repeating: "a", count: PortalURL.maximumLength - 5)
        #expect(PortalURL.resolve(relative, against: endpoint) == nil)
    }
}
