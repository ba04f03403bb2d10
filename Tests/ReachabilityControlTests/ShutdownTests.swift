import Foundation
import ReachabilityControl
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ShutdownTests {
    @Test func cancellingRunRemovesTheSocketFile() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = recordingServer(sandbox.socketPath)
        try await withServer(server) { _ in
            #expect(fileType(of: sandbox.socketPath) == S_IFSOCK)
        }
        #expect(fileType(of: sandbox.socketPath) == nil)
        // The directory it created stays: only the socket was the server's.
        #expect(fileType(of: sandbox.path("run")) == S_IFDIR)
    }

    @Test func leavesASocketThatReplacedItsOwn() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = recordingServer(sandbox.socketPath)
        try await withServer(server) { _ in
            #expect(unlink(sandbox.socketPath) == 0)
            try makeStaleSocket(at: sandbox.socketPath)
        }
        #expect(fileType(of: sandbox.socketPath) == S_IFSOCK)
    }

    @Test func cancellingRunClosesIdleConnectionsAndEndsStreams() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let producers = Mailbox<AsyncStream<[UInt8]>.Continuation>()
        let terminated = Mailbox<Void>()
        let server = ControlServer(address: .unix(sandbox.socketPath), authorize: ControlServer.sameUserOrRoot()) { _ in
            let (chunks, continuation) = AsyncStream<[UInt8]>.makeStream()
            continuation.onTermination = { _ in terminated.put(()) }
            producers.put(continuation)
            return .stream(status: 200, contentType: "application/x-ndjson", chunks)
        }
        let (idle, streaming) = try await withServer(server) { _ in
            let idle = try await RawHTTPConnection.unix(sandbox.socketPath)
            let streaming = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await streaming.send(httpRequest("GET", "/v1/events"))
            let producer = try #require(await producers.take())
            producer.yield(Array("{}\n".utf8))
            #expect(try await streaming.readHead()?.status == 200)
            #expect(try await streaming.readChunk() == Array("{}\n".utf8))
            return (idle, streaming)
        }
        // run() has returned: the stream's producer was told, both connections are closed.
        #expect(await terminated.take() != nil)
        #expect(try await idle.readToEnd().isEmpty)
        #expect(try await streaming.readToEnd().isEmpty)
        #expect(fileType(of: sandbox.socketPath) == nil)
    }
}
