import Foundation
import ReachabilityCore
import Testing

@testable import ReachabilityValidation

private func response(_ body: String, status: Int = 200, type: String? = "application/captive+json") -> ProbeResponse {
    ProbeResponse(status: status, reason: "X", headers: type.map { [(name: "Content-Type", value: $0)] } ?? [], body: Array(body.utf8))
}

@Suite("RFC 8908 API answers and probe texts")
struct ProbeAnswerTests {
    @Test func captiveWithAPortalURL() {
        let verdict = CaptivePortalAPIAnswer.judge(response(#"{"captive": true, "user-portal-url": "https://portal.example/login?x=1"}"#))
        #expect(verdict.outcome == .portal)
        #expect(verdict.portalURL == "https://portal.example/login?x=1")
    }

    @Test func notCaptive() {
        let verdict = CaptivePortalAPIAnswer.judge(response(#"{"captive": false, "seconds-remaining": 300}"#, type: "application/captive+json; charset=utf-8"))
        #expect(verdict.outcome == .notCaptive)
        #expect(verdict.portalURL == nil)
    }

    @Test("a portal URL that is not a plain http(s) URL is dropped, the verdict kept", arguments: [
        "javascript:alert(1)", "https://portal.example/\u{1B}[31m", "ftp://portal.example/", "https://" + String(repeating: "a", count: 2050),
    ])
    func unusablePortalURLs(url: String) {
        let body = #"{"captive": true, "user-portal-url": "# + "\"\(url.replacingEscapes)\"" + "}"
        let verdict = CaptivePortalAPIAnswer.judge(response(body))
        #expect(verdict.outcome == .portal)
        #expect(verdict.portalURL == nil)
    }

    @Test("anything else is a failure", arguments: [
        (#"{"captive": "yes"}"#, 200, "application/captive+json"), (#"{"other": 1}"#, 200, "application/captive+json"),
        ("[true]", 200, "application/captive+json"), ("<html>", 200, "application/captive+json"),
        (#"{"captive": true}"#, 200, "text/html"), (#"{"captive": true}"#, 302, "application/captive+json"),
        (#"{"captive": 1}"#, 200, "application/json"), ("", 200, "application/captive+json"),
    ])
    func failures(body: String, status: Int, type: String) {
        let verdict = CaptivePortalAPIAnswer.judge(response(body, status: status, type: type))
        #expect(verdict.outcome == .failure, "\(verdict)")
        #expect(verdict.detail.allSatisfy { $0.isASCII })
    }

    @Test func aMissingContentTypeIsAFailure() {
        #expect(CaptivePortalAPIAnswer.judge(response(#"{"captive": false}"#, type: nil)).outcome == .failure)
    }

    @Test func timeoutsReadInTenthsOfASecond() {
        #expect(ProbeDeadline.seconds(.seconds(3)) == "3.0")
        #expect(ProbeDeadline.seconds(.milliseconds(1500)) == "1.5")
        #expect(ProbeDeadline.seconds(.milliseconds(260)) == "0.3")
    }

    @Test func theHostHeaderCarriesOnlyAPortThatIsNotTheSchemes() throws {
        #expect(ProbeRequest.hostHeader(try ProbeEndpoint(parsing: "http://a.example/x")) == "a.example")
        #expect(ProbeRequest.hostHeader(try ProbeEndpoint(parsing: "https://a.example:8443/")) == "a.example:8443")
        #expect(ProbeRequest.hostHeader(try ProbeEndpoint(parsing: "http://[2001:db8::1]:8080/")) == "[2001:db8::1]:8080")
        #expect(ProbeRequest.hostHeader(try ProbeEndpoint(parsing: "https://[2001:db8::1]/")) == "[2001:db8::1]")
    }
}

extension String {
    /// The text as a JSON string's contents (escape and control characters as `\u00XX`).
    fileprivate var replacingEscapes: String {
        unicodeScalars.map { $0.value < 0x20 || $0 == "\"" || $0 == "\\" ? String(format: "\\u%04x", $0.value) : String($0) }.joined()
    }
}
