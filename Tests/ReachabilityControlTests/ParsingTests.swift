import Foundation
@testable import ReachabilityControl
import Testing

/// The module's small parsers and formatters, without sockets.
struct ParsingTests {
    @Test func splitsPathAndDecodesTheQuery() throws {
        let target = try #require(RequestTarget("/v1/jobs/a%2Fb?state=queued&q=a+b%21&q=c&empty=&bare#fragment"))
        #expect(target.path == "/v1/jobs/a%2Fb")
        #expect(target.query == ["state": "queued", "q": "c", "empty": "", "bare": ""])
        // Every parameter in order, repeats kept: lists sent as `?state=a&state=b`.
        #expect(target.queryItems.map { "\($0.name)=\($0.value)" } == ["state=queued", "q=a b!", "q=c", "empty=", "bare="])
        let request = ControlRequest(method: "GET", path: target.path, query: target.query, queryItems: target.queryItems)
        #expect(request.queryValues("q") == ["a b!", "c"])
        #expect(request.queryValues("none").isEmpty)
        // Built from a dictionary alone, the items are its pairs.
        #expect(ControlRequest(method: "GET", path: "/", query: ["b": "2", "a": "1"]).queryValues("a") == ["1"])
    }

    @Test(arguments: [("a%20b+c", "a b c"), ("%zz%", "%zz%"), ("%4", "%4"), ("%C3%A9", "é"), ("%FF", "\u{FFFD}"), ("", "")])
    func decodesLeniently(_ encoded: String, _ decoded: String) {
        #expect(RequestTarget.decode(Substring(encoded)) == decoded)
    }

    @Test(arguments: ["*", "http://example.com/", ""])
    func refusesTargetsThatAreNotPaths(_ uri: String) {
        #expect(RequestTarget(uri) == nil)
    }

    @Test func socketDirectoryIsTheParentOfTheLastComponent() throws {
        #expect(try UnixSocketAddress("/run/reach/reach.sock").directory == "/run/reach")
        #expect(try UnixSocketAddress("/run//reach.sock").directory == "/run")
        #expect(try UnixSocketAddress("/reach.sock").directory == "/")
        #expect(try UnixSocketAddress("reach.sock").directory == ".")
    }

    @Test func lineSplitterBoundsLines() {
        var splitter = LineSplitter(maxLineBytes: 4)
        #expect(splitter.append(Array("ab\ncd".utf8)) == [Array("ab".utf8)])
        #expect(splitter.append(Array("ef".utf8)) == [])
        #expect(splitter.append(Array("g".utf8)) == nil)
        var last = LineSplitter(maxLineBytes: 8)
        #expect(last.append(Array("x\r\ny".utf8)) == [Array("x".utf8)])
        #expect(last.finish() == Array("y".utf8))
        #expect(last.finish() == nil)
    }

    @Test func errorMessagesAreValidJSONStrings() throws {
        let response = ControlResponse.error(status: 400, "bad \"x\"\\\n\u{1}")
        guard case .bytes(let body) = response.body else { throw TestFailure("not a complete body") }
        let decoded = try JSONSerialization.jsonObject(with: Data(body)) as? [String: String]
        #expect(decoded == ["error": "bad \"x\"\\\n\u{1}"])
    }
}
