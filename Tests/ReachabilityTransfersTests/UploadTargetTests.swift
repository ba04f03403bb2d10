import Testing
import ReachabilityCore

@testable import ReachabilityTransfers

@Suite("Uploads: URLs, credentials and redaction")
struct UploadTargetTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        var url: String
        var redacted: String
        var authorization: String?
        var origin: String
        var testDescription: String { input }
    }

    @Test(arguments: [
        Case(input: "http://127.0.0.1:8080/files/", url: "http://127.0.0.1:8080/files/", redacted: "http://127.0.0.1:8080/files/",
             authorization: nil, origin: "http://127.0.0.1:8080"),
        // base64("alice:s3cret") = YWxpY2U6czNjcmV0
        Case(input: "https://alice:s3cret@Example.COM/up?x=1", url: "https://Example.COM/up?x=1", redacted: "https://***@Example.COM/up?x=1",
             authorization: "Basic YWxpY2U6czNjcmV0", origin: "https://example.com:443"),
        // Percent-encoded userinfo is decoded: "a@b" and "p:w/d"; base64("a@b:p:w/d") = YUBiOnA6dy9k
        Case(input: "http://a%40b:p%3Aw%2Fd@h:81/", url: "http://h:81/", redacted: "http://***@h:81/",
             authorization: "Basic YUBiOnA6dy9k", origin: "http://h:81"),
        // A user without a password; base64("bob:") = Ym9iOg==
        Case(input: "http://bob@h/x", url: "http://h/x", redacted: "http://***@h/x", authorization: "Basic Ym9iOg==", origin: "http://h:80"),
        // An @ after the authority is part of the path, not userinfo.
        Case(input: "http://h/a@b", url: "http://h/a@b", redacted: "http://h/a@b", authorization: nil, origin: "http://h:80"),
        Case(input: "http://[::1]:8080/f", url: "http://[::1]:8080/f", redacted: "http://[::1]:8080/f", authorization: nil,
             origin: "http://::1:8080"),
    ])
    func credentialsAreTakenOutOfTheURL(_ test: Case) throws {
        let target = try #require(UploadTarget(test.input))
        #expect(target.url == test.url)
        #expect(target.redacted == test.redacted)
        #expect(target.authorization == test.authorization)
        #expect(target.origin == test.origin)
    }

    @Test(arguments: ["ftp://h/x", "http://", "http:///x", "h/x", "mailto:a@b", "http://h:99999/", "http://u:p@:80/"])
    func onlyHTTPURLsWithAHostAreTargets(_ text: String) {
        #expect(UploadTarget(text) == nil)
    }

    @Test(arguments: [
        ("https://u:p@h/x", "https://***@h/x"),
        ("https://h/x", "https://h/x"),
        ("not a url u:p@h", "not a url u:p@h"),
        ("ftp://u:p@h/x", "ftp://***@h/x"),
    ])
    func redactionHidesAnyUserinfo(_ text: String, _ expected: String) {
        #expect(UploadTarget.redact(text) == expected)
    }

    @Test(arguments: [
        ("http://h:1/files/abc", "http://h:1/files/", "http://h:1/files/abc"),
        ("/files/abc", "http://h:1/files/", "http://h:1/files/abc"),
        ("abc", "http://h:1/files/", "http://h:1/files/abc"),
        ("https://u:p@other/up/1", "http://h:1/files/", "https://other/up/1"),
        ("  http://h:1/x  ", "http://h:1/files/", "http://h:1/x"),
        ("ftp://h/x", "http://h:1/files/", nil),
        ("", "http://h:1/files/", nil),
    ] as [(String, String, String?)])
    func locationsResolveAgainstTheUploadURLWithoutCredentials(_ location: String, _ base: String, _ expected: String?) {
        #expect(UploadTarget.resolve(location, against: base) == expected)
    }

    @Test func credentialsGoOnlyToTheSameOrigin() throws {
        let target = try #require(UploadTarget("http://u:p@h:8080/files/"))
        #expect(target.isSameOrigin("http://h:8080/files/123"))
        #expect(target.isSameOrigin("http://H:8080/other"))
        #expect(!target.isSameOrigin("http://h:8081/files/123"))
        #expect(!target.isSameOrigin("https://h:8080/files/123"))
        #expect(!target.isSameOrigin("http://evil.example/files/123"))
        let defaultPort = try #require(UploadTarget("https://u:p@h/x"))
        #expect(defaultPort.isSameOrigin("https://h:443/y"))
    }

    /// `-H` credentials follow the upload to its own origin only (a tus `Location` may name
    /// another host); other fields go everywhere; framing fields nowhere.
    @Test func credentialHeadersGoOnlyToTheSameOrigin() throws {
        let target = try #require(UploadTarget("http://h:1/files/"))
        let fields = try ["Authorization: Bearer s", "Cookie: c=1", "X-Api-Key: k", "X-Album: a", "Content-Length: 5"].map {
            try #require(HTTPHeaderField.parse($0))
        }
        let names = { (url: String) in UploadContext.headers(fields, to: url, target: target).map(\.name) }
        #expect(names("http://h:1/files/abc") == ["Authorization", "Cookie", "X-Api-Key", "X-Album"])
        for elsewhere in ["http://h:2/files/abc", "https://h:1/files/abc", "http://evil.example/files/abc"] {
            #expect(names(elsewhere) == ["X-Album"], "\(elsewhere)")
        }
    }
}
