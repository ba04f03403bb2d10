import Foundation
import ReachabilityControl
import Testing

/// A server whose every answer is a stream the test produces: the handler hands the stream's
/// continuation over and reports when the stream is terminated.
private struct StreamingServer {
    let producers = Mailbox<AsyncStream<[UInt8]>.Continuation>()
    let terminations = Mailbox<Void>()

    func server(_ address: ControlServer.Address, limits: ControlServer.Limits = ControlServer.Limits()) -> ControlServer {
        ControlServer(address: address, limits: limits, authorize: ControlServer.sameUserOrRoot()) { [producers, terminations] _ in
            let (chunks, continuation) = AsyncStream<[UInt8]>.makeStream()
            continuation.onTermination = { _ in terminations.put(()) }
            producers.put(continuation)
            return .stream(status: 200, contentType: "application/x-ndjson", chunks)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct StreamingTests {
    @Test func chunksArriveAsProducedAndTheProducerLearnsOfTheDisconnect() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let streaming = StreamingServer()
        try await withServer(streaming.server(.unix(sandbox.socketPath))) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send(httpRequest("GET", "/v1/events"))
            let producer = try #require(await streaming.producers.take())

            producer.yield(Array("one\n".utf8))
            let head = try #require(try await connection.readHead())
            #expect(head.status == 200)
            #expect(head.header("transfer-encoding") == "chunked")
            #expect(head.header("content-type") == "application/x-ndjson")
            // Chunk 2 is produced only after the client has chunk 1.
            #expect(try await connection.readChunk() == Array("one\n".utf8))
            producer.yield(Array("two\n".utf8))
            #expect(try await connection.readChunk() == Array("two\n".utf8))

            connection.shutdown()
            #expect(await streaming.terminations.take() != nil)
            // AsyncStream calls `onTermination` just before it marks itself finished, so a yield
            // racing with that may still be enqueued: the producer sees `.terminated` within a few tries.
            var terminated = false
            for _ in 0..<1000 where !terminated {
                if case .terminated = producer.yield(Array("three\n".utf8)) { terminated = true } else { try await Task.sleep(for: .milliseconds(1)) }
            }
            #expect(terminated, "the stream was not terminated")
        }
    }

    @Test func finishedStreamEndsTheBodyAndKeepsTheConnection() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let streaming = StreamingServer()
        try await withServer(streaming.server(.unix(sandbox.socketPath))) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            for _ in 1...2 {
                try await connection.send(httpRequest("GET", "/v1/events"))
                let producer = try #require(await streaming.producers.take())
                producer.yield(Array("a".utf8))
                producer.yield([])
                producer.yield(Array("b".utf8))
                producer.finish()
                let response = try #require(try await connection.readResponse())
                #expect(response.text == "ab")
            }
        }
    }

    @Test func streamIsNotCutByTheIdleTimeout() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let streaming = StreamingServer()
        let limits = ControlServer.Limits(idleTimeout: .milliseconds(50))
        try await withServer(streaming.server(.unix(sandbox.socketPath), limits: limits)) { _ in
            let connection = try await RawHTTPConnection.unix(sandbox.socketPath)
            try await connection.send(httpRequest("GET", "/v1/events"))
            let producer = try #require(await streaming.producers.take())
            // Several idle periods pass with nothing to send; the stream must survive them.
            // (A wait, not a timing assertion: on a slow machine it only tests less.)
            try await Task.sleep(for: .milliseconds(400))
            producer.yield(Array("late\n".utf8))
            #expect(try await connection.readHead()?.status == 200)
            #expect(try await connection.readChunk() == Array("late\n".utf8))
            producer.finish()
            #expect(try await connection.readChunk() == nil)
        }
    }

    @Test func clientLinesSplitEventsAcrossChunks() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let streaming = StreamingServer()
        try await withServer(streaming.server(.unix(sandbox.socketPath))) { _ in
            try await withControlClient(socketPath: sandbox.socketPath) { client in
                // The request goes out when iteration starts; the producer answers it meanwhile.
                async let produced: Void = {
                    guard let producer = await streaming.producers.take() else { return }
                    producer.yield(Array("{\"a\":1}\n{\"b\"".utf8))
                    producer.yield(Array(":2}\r\n\n{\"c\":3}".utf8))
                    producer.finish()
                }()
                var received: [String] = []
                for try await line in client.lines(path: "/v1/events") { received.append(String(decoding: line, as: UTF8.self)) }
                await produced
                #expect(received == [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#])
            }
        }
    }

    @Test func clientStoppingTheStreamStopsTheProducer() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let streaming = StreamingServer()
        try await withServer(streaming.server(.unix(sandbox.socketPath))) { _ in
            try await withControlClient(socketPath: sandbox.socketPath) { client in
                async let produced: Void = {
                    await streaming.producers.take()?.yield(Array("first\n".utf8))
                }()
                let chunks = client.stream(path: "/v1/events")
                for try await chunk in chunks {
                    #expect(chunk == Array("first\n".utf8))
                    break
                }
                await produced
                // The iteration stopped: the connection is closed, the server ends the stream.
                #expect(await streaming.terminations.take() != nil)
            }
        }
    }

    @Test func clientStreamReportsAnErrorStatus() async throws {
        let sandbox = try SocketSandbox()
        defer { sandbox.remove() }
        let server = ControlServer(address: .unix(sandbox.socketPath), authorize: ControlServer.sameUserOrRoot()) { _ in
            .json(status: 404, Array(#"{"error":"no such job"}"#.utf8))
        }
        try await withServer(server) { _ in
            try await withControlClient(socketPath: sandbox.socketPath) { client in
                let error = await #expect(throws: ControlClientError.self) {
                    for try await _ in client.stream(path: "/v1/jobs/9/events") {}
                }
                #expect(error?.code == .unexpectedResponse)
                #expect(error?.status == 404)
                #expect(error?.description.contains("no such job") == true)
            }
        }
    }
}
