import Foundation
import Reachability
@testable import ReachabilityControl
@testable import ReachabilityDaemon
import ReachabilityMetrics
import ReachabilityTestKit
import Synchronization
import Testing

@Suite("Event stream per client")
struct EventStreamBufferTests {
    @Test func waitingLinesComeOutInOrderJoinedUpToTheChunkSize() async {
        let buffer = EventStreamBuffer(limit: 100)
        for text in ["a\n", "b\n", "c\n", "dddd\n"] { #expect(buffer.push(Array(text.utf8))) }
        #expect(buffer.waitingBytes == 11)
        var seen: [String] = []
        for _ in 0..<3 { seen.append(String(decoding: await buffer.next(upTo: 4) ?? [], as: UTF8.self)) }
        // Whole lines only: "c\n" would not fit after "a\nb\n"; a line longer than the chunk
        // comes alone.
        #expect(seen == ["a\nb\n", "c\n", "dddd\n"])
        #expect(buffer.waitingBytes == 0)
        #expect(buffer.push(Array("e\n".utf8)))
        #expect(buffer.push(Array("f\n".utf8)))
        #expect(await buffer.next() == Array("e\nf\n".utf8))
    }

    @Test func overTheLimitWhatWaitsIsFollowedByOneDroppedLineAndTheStreamEnds() async {
        let buffer = EventStreamBuffer(limit: 10)
        #expect(buffer.push(Array("12345".utf8)))
        #expect(buffer.push(Array("67890".utf8)))
        #expect(!buffer.push(Array("x".utf8)))
        #expect(!buffer.push(Array("y".utf8)))  // ended: nothing more is taken
        #expect(await buffer.next(upTo: 5) == Array("12345".utf8))
        #expect(await buffer.next(upTo: 5) == Array("67890".utf8))
        let last = await buffer.next()
        #expect(last == EventStreamBuffer.droppedLine(waiting: 10))
        #expect(await buffer.next() == nil)
    }

    @Test func aWaitingReaderGetsTheLineAtOnce() async {
        let buffer = EventStreamBuffer(limit: 10)
        let reader = Task { await buffer.next() }
        try? await Task.sleep(for: .milliseconds(20))
        buffer.push(Array("hello".utf8))
        #expect(await reader.value == Array("hello".utf8))
    }

    /// The control API's `/v1/events`: a client that never reads while 200 big jobs are added
    /// holds at most its limit; when it finally reads, it gets the lines up to the limit, then
    /// one `dropped` line, then the end.
    @Test func aClientThatNeverReadsIsDroppedWithAFinalEvent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try JobQueue(
            configuration: .init(stateDirectory: directory.path), monitor: NetworkMonitor(source: FakeNetworkSource(), clock: ContinuousClock()))
        try queue.start()
        var api = QueueAPI(queue: queue, paths: PathFeed(), metrics: ReachMetrics())
        api.eventBufferLimit = 64 * 1024
        let response = await api.handle(ControlRequest(method: "GET", path: "/v1/events"))
        guard case .stream(let lines) = response.body else {
            Issue.record("not a stream")
            return
        }
        let argument = String(repeating: "z", count: 4096)
        for _ in 0..<200 {
            _ = try await queue.add(
                QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["echo", argument]), notBefore: Date().addingTimeInterval(3600)),
                workingDirectory: "/")
        }
        var received: [String] = []
        var bytes = 0
        for await chunk in lines {
            bytes += chunk.count
            #expect(chunk.last == 0x0A, "a chunk ends within a line")
            received += chunk.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(received.first?.hasPrefix(#"{"type":"path""#) == true)
        #expect(received.last?.hasPrefix(#"{"type":"dropped","reason":"slowClient""#) == true, "\(received.last?.prefix(80) ?? "")")
        #expect(bytes <= 64 * 1024 + 512)
        #expect(received.count < 200, "everything arrived: the client was never behind")
        // The queue's own subscribers are gone with the client.
        try await Task.sleep(for: .milliseconds(50))
        #expect(queue.state.withLock { $0.subscribers.count } == 0)
        await queue.shutdown()
    }
}
