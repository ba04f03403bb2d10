import Foundation
import ReachabilityControl
import Testing

@Suite(.timeLimit(.minutes(1)))
struct RoundTripTests {
    @Test func unixRequestReachesTheHandlerWithItsPartsAndPeer() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let requests = Mailbox<ControlRequest>()
        let server = recordingServer(sandbox.socketPath, requests)
        try await withServer(server) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            let query = "state=queued&name=a%20b&name=c+d&flag"
            try await connection.send(httpRequest("POST", "/v1/jobs?\(query)", headers: ["X-Test: yes"], body: "hello"))
            let response = try #require(try await connection.readResponse())
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            #expect(response.text == #"{"path":"/v1/jobs"}"#)

            let request = try #require(await requests.take())
            #expect(request.method == "POST")
            #expect(request.path == "/v1/jobs")
            #expect(request.query == ["state": "queued", "name": "c d", "flag": ""])
            #expect(request.header("x-test") == "yes")
            #expect(request.body == Array("hello".utf8))
            #expect(request.peer?.pid == getpid())
            #expect(request.peer?.uid == geteuid())
            #expect(request.peer?.gid == getegid())
        }
    }

    @Test func tcpRequestOnAPickedPortHasNoPeer() async throws {
        let requests = Mailbox<ControlRequest>()
        let server = ControlServer(
            address: .tcp(host: "127.0.0.1", port: 0), authorize: ControlServer.allowEveryone, handler: recordingHandler(requests)
        )
        try await withServer(server) { address in
            let port = try #require(address.port)
            #expect(port != 0)
            let connection = try await RawHTTPConnection.tcp(port: port)
            try await connection.send(httpRequest("GET", "/metrics?x=1"))
            let response = try #require(try await connection.readResponse())
            #expect(response.status == 200)
            let request = try #require(await requests.take())
            #expect(request.path == "/metrics")
            #expect(request.query == ["x": "1"])
            #expect(request.peer == nil)
        }
    }

    @Test func keepAliveServesThreeRequestsOnOneConnection() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let requests = Mailbox<ControlRequest>()
        let server = recordingServer(sandbox.socketPath, requests)
        try await withServer(server) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            for index in 1...3 {
                try await connection.send(httpRequest("GET", "/v1/ping/\(index)"))
                let response = try #require(try await connection.readResponse())
                #expect(response.status == 200)
                #expect(response.header("connection") == "keep-alive")
                #expect(response.text == #"{"path":"/v1/ping/\#(index)"}"#)
            }
            var paths: [String] = []
            for _ in 1...3 { paths.append(try #require(await requests.take()).path) }
            #expect(paths == ["/v1/ping/1", "/v1/ping/2", "/v1/ping/3"])
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = recordingServer(sandbox.socketPath)
        try await withServer(server) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send(httpRequest("GET", "/first") + httpRequest("POST", "/second", body: "x") + httpRequest("GET", "/third"))
            var bodies: [String] = []
            for _ in 1...3 { bodies.append(try #require(try await connection.readResponse()).text) }
            #expect(bodies == [#"{"path":"/first"}"#, #"{"path":"/second"}"#, #"{"path":"/third"}"#])
        }
    }

    @Test func connectionCloseAndHTTP10CloseAfterTheResponse() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = recordingServer(sandbox.socketPath)
        try await withServer(server) { _ in
            let closing = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await closing.send(httpRequest("GET", "/a", headers: ["Connection: close"]))
            #expect(try await closing.readResponse()?.header("connection") == "close")
            #expect(try await closing.readToEnd().isEmpty)

            let old = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await old.send("GET /b HTTP/1.0\r\n\r\n")
            #expect(try await old.readResponse()?.text == #"{"path":"/b"}"#)
            #expect(try await old.readToEnd().isEmpty)
        }
    }

    @Test func headRequestGetsNoBodyAndKeepsTheConnection() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = recordingServer(sandbox.socketPath)
        try await withServer(server) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send(httpRequest("HEAD", "/v1/status"))
            let head = try #require(try await connection.readResponse(toHEAD: true))
            #expect(head.status == 200)
            try await connection.send(httpRequest("GET", "/v1/status"))
            #expect(try await connection.readResponse()?.text == #"{"path":"/v1/status"}"#)
        }
    }

    @Test func clientSendsAndReadsOverTheSocket() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = ControlServer(address: .unix(sandbox.socketPath), authorize: ControlServer.sameUserOrRoot()) { request in
            let got = String(decoding: request.body, as: UTF8.self) + (request.query["state"] ?? "")
            return .json(status: request.method == "POST" ? 201 : 200, Array(#"{"got":"\#(got)"}"#.utf8))
        }
        try await withServer(server) { _ in
            try await withControlClient(socketPath: sandbox.socketPath) { client in
                let created = try await client.send(method: "POST", path: "/v1/jobs", body: Array("job".utf8), headers: [("Content-Type", "application/json")])
                #expect(created.status == 201)
                #expect(String(decoding: created.body, as: UTF8.self) == #"{"got":"job"}"#)
                let read = try await client.send(path: "/v1/jobs?state=queued")
                #expect(read.status == 200)
                #expect(String(decoding: read.body, as: UTF8.self) == #"{"got":"queued"}"#)
            }
        }
    }

    @Test func expectContinueGets100BeforeTheBodyIsSent() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let requests = Mailbox<ControlRequest>()
        let server = recordingServer(sandbox.socketPath, requests)
        try await withServer(server) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
            let interim = try #require(try await connection.read(through: Array("\r\n\r\n".utf8)))
            #expect(String(decoding: interim, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue"))
            try await connection.send("{}")
            #expect(try await connection.readResponse()?.status == 200)
            #expect(await requests.take()?.body == Array("{}".utf8))
        }
    }
}
