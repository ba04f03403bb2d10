import Foundation
import Testing

/// The test server's own HTTP contract, checked with curl (an independent client).
@Suite("reach-testserver", .enabled(if: requiredUnderCI(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")), "needs curl"))
struct TestServerTests {
    /// Status line and headers (lowercased names) of a response, and the body size.
    struct Response {
        var status: Int
        var headers: [String: String]
        var bodyBytes: Int
    }

    func fetch(_ url: String, _ headers: [String] = [], head: Bool = false) throws -> Response {
        var arguments = ["-s", "--path-as-is", "-D", "-", "-o", "/dev/null", "-w", "BODY %{size_download}\n"]
        if head { arguments.append("-I") }
        for header in headers { arguments += ["-H", header] }
        arguments.append(url)
        // A truncated body makes curl exit non-zero; what it received still counts.
        let output = try run("/usr/bin/curl", arguments, allowFailure: true).output
        var response = Response(status: 0, headers: [:], bodyBytes: 0)
        for line in output.split(separator: "\r\n").flatMap({ $0.split(separator: "\n") }) {
            if line.hasPrefix("HTTP/") {
                response.status = Int(line.split(separator: " ")[1]) ?? 0
            } else if line.hasPrefix("BODY ") {
                response.bodyBytes = Int(line.dropFirst(5)) ?? -1
            } else if let colon = line.firstIndex(of: ":") {
                response.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return response
    }

    @Test("validators, single ranges, If-Range, 416 and 404")
    func rangesAndValidators() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try server.addFile("r.bin", size: 1000, seed: 30)
        let url = server.url("r.bin")

        let head = try fetch(url, head: true)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "1000")
        #expect(head.headers["accept-ranges"] == "bytes")
        let etag = try #require(head.headers["etag"])
        let lastModified = try #require(head.headers["last-modified"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))

        let full = try fetch(url)
        #expect(full.status == 200)
        #expect(full.bodyBytes == 1000)

        let open = try fetch(url, ["Range: bytes=100-"])
        #expect(open.status == 206)
        #expect(open.headers["content-range"] == "bytes 100-999/1000")
        #expect(open.bodyBytes == 900)

        let closed = try fetch(url, ["Range: bytes=10-19"])
        #expect(closed.headers["content-range"] == "bytes 10-19/1000")
        #expect(closed.bodyBytes == 10)

        let suffix = try fetch(url, ["Range: bytes=-100"])
        #expect(suffix.headers["content-range"] == "bytes 900-999/1000")

        let beyond = try fetch(url, ["Range: bytes=1000-"])
        #expect(beyond.status == 416)
        #expect(beyond.headers["content-range"] == "bytes */1000")

        #expect(try fetch(url, ["Range: bytes=500-", "If-Range: \(etag)"]).status == 206)
        #expect(try fetch(url, ["Range: bytes=500-", "If-Range: \(lastModified)"]).status == 206)
        #expect(try fetch(url, ["Range: bytes=500-", "If-Range: \"other\""]).bodyBytes == 1000)
        #expect(try fetch(url, ["Range: bytes=500-", "If-Range: W/\(etag)"]).status == 200)

        let ignored = try fetch(server.url("r.bin", query: "norange=1"), ["Range: bytes=500-"])
        #expect(ignored.status == 200)
        #expect(ignored.bodyBytes == 1000)

        let overridden = try fetch(server.url("r.bin", query: "etag=v9"), head: true)
        #expect(overridden.headers["etag"] == "\"v9\"")

        let truncated = try fetch(server.url("r.bin", query: "truncate=300"))
        #expect(truncated.bodyBytes == 300)

        #expect(try fetch(server.url("missing.bin")).status == 404)
        #expect(try fetch(server.url("../etc/passwd")).status == 404)

        let failing = server.url("r.bin", query: "fail=1&failstatus=429&retryafter=7")
        let first = try fetch(failing)
        #expect(first.status == 429)
        #expect(first.headers["retry-after"] == "7")
        #expect(try fetch(failing).status == 200)

        let logged = try await server.requests(count: 17)
        #expect(logged.count == 17)
        #expect(logged[2].range == "bytes=100-")
        #expect(logged[2].start == 100)
        #expect(logged[2].bytes == 900)
        #expect(logged[12].outcome == "truncated")
        #expect(logged[12].bytes == 300)
    }
}
