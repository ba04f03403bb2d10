import Foundation
import ReachabilityControl
import Testing

@Suite(.timeLimit(.minutes(1)))
struct LimitTests {
    private func withLimitedServer(
        _ limits: ControlServer.Limits, requests: Mailbox<ControlRequest> = Mailbox(), _ body: (String) async throws -> Void
    ) async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = ControlServer(
            address: .unix(sandbox.socketPath), limits: limits, authorize: ControlServer.sameUserOrRoot(), handler: recordingHandler(requests)
        )
        try await withServer(server) { _ in try await body(sandbox.socketPath) }
    }

    @Test func declaredBodyOverTheLimitIs413AndClosed() async throws {
        let requests = Mailbox<ControlRequest>()
        try await withLimitedServer(ControlServer.Limits(maxBodyBytes: 16), requests: requests) { socket in
            let connection = try await RawHTTPConnection.unix(socket)
            try await connection.send(httpRequest("POST", "/v1/jobs", body: String(repeating: "x", count: 100)))
            let response = try #require(try await connection.readResponse())
            #expect(response.status == 413)
            #expect(response.text.contains("larger than 16 bytes"))
            #expect(try await connection.readToEnd().isEmpty)
        }
        #expect(requests.count == 0)
    }

    @Test func chunkedBodyOverTheLimitIs413() async throws {
        try await withLimitedServer(ControlServer.Limits(maxBodyBytes: 16)) { socket in
            let connection = try await RawHTTPConnection.unix(socket)
            let chunk = "a\r\n0123456789\r\n"
            try await connection.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk)
            #expect(try await connection.readResponse()?.status == 413)
        }
    }

    @Test func bodyAtTheLimitIsServed() async throws {
        let requests = Mailbox<ControlRequest>()
        try await withLimitedServer(ControlServer.Limits(maxBodyBytes: 16), requests: requests) { socket in
            let connection = try await RawHTTPConnection.unix(socket)
            try await connection.send(httpRequest("POST", "/v1/jobs", body: String(repeating: "x", count: 16)))
            #expect(try await connection.readResponse()?.status == 200)
            #expect(await requests.take()?.body.count == 16)
        }
    }

    @Test(arguments: [
        "THIS IS NOT HTTP\r\n\r\n",
        "GET /v1/ping HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n",
        "GET /v1/ping HTTP/1.1\r\nBad Header Without Colon\r\n\r\n",
        "GET /v1/ping HTTP/9.9\r\n\r\n",
        "\u{0}\u{1}\u{2}\r\n\r\n",
    ])
    func malformedRequestIs400AndClosed(_ request: String) async throws {
        let requests = Mailbox<ControlRequest>()
        try await withLimitedServer(ControlServer.Limits(), requests: requests) { socket in
            let connection = try await RawHTTPConnection.unix(socket)
            try await connection.send(request)
            #expect(try await connection.readResponse(toHEAD: true)?.status == 400)
            _ = try await connection.readToEnd()
        }
        #expect(requests.count == 0)
    }

    @Test func targetThatIsNotAPathIs400() async throws {
        try await withLimitedServer(ControlServer.Limits()) { socket in
            let connection = try await RawHTTPConnection.unix(socket)
            try await connection.send(httpRequest("GET", "http://example.com/v1/ping"))
            #expect(try await connection.readResponse()?.status == 400)
        }
    }

    @Test func oversizedHeadIs400AndClosed() async throws {
        try await withLimitedServer(ControlServer.Limits(maxHeaderBytes: 1024)) { socket in
            let connection = try await RawHTTPConnection.unix(socket)
            try await connection.send(httpRequest("GET", "/v1/ping", headers: ["X-Big: " + String(repeating: "b", count: 4096)]))
            #expect(try await connection.readResponse(toHEAD: true)?.status == 400)
            _ = try await connection.readToEnd()
        }
    }

    /// A full server closes an idle connection to admit a new one: silent connections lock
    /// nobody out (128 of them refused `reach queue list` before).
    @Test func anIdleConnectionMakesRoomForANewOne() async throws {
        try await withLimitedServer(ControlServer.Limits(maxConnections: 1, rootReserve: 0)) { socket in
            let first = try await RawHTTPConnection.unix(socket)
            try await first.send(httpRequest("GET", "/v1/ping"))
            #expect(try await first.readResponse()?.status == 200)
            let second = try await RawHTTPConnection.unix(socket)
            try await second.send(httpRequest("GET", "/v1/ping"))
            #expect(try await second.readResponse()?.status == 200)
            // The idle first one made the room.
            #expect(try await first.readToEnd().isEmpty)
        }
    }

    @Test func idleConnectionIsClosed() async throws {
        try await withLimitedServer(ControlServer.Limits(idleTimeout: .milliseconds(100))) { socket in
            let silent = try await RawHTTPConnection.unix(socket)
            #expect(try await silent.readToEnd().isEmpty)
            let served = try await RawHTTPConnection.unix(socket)
            try await served.send(httpRequest("GET", "/v1/ping"))
            #expect(try await served.readResponse()?.status == 200)
            #expect(try await served.readToEnd().isEmpty)
        }
    }
}
