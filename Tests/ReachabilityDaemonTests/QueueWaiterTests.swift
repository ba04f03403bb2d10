import Foundation
import ReachabilityControl
@testable import ReachabilityDaemon
import ReachabilityTestKit
import ReachabilityTransfers
import Synchronization
import Testing

/// `reach queue wait` when a job finishes while the waiter subscribes: the daemon announces no
/// change made before a client's subscription, so the waiter must read the states after it.
/// (It asked for the stream, then listed: the list could be answered first, and a job that
/// finished in between was waited for until the timeout.)
@Suite("queue wait")
struct QueueWaiterTests {
    /// A daemon stand-in whose job finishes, unannounced, while it subscribes the waiter (it
    /// takes 300 ms to, so the old order lists first); the stream then stays open and silent.
    @Test func aJobThatFinishesWhileTheWaiterSubscribesIsSeen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.path + "/daemon.sock"
        struct Record { var finished = false, subscribed = false, listsAfterSubscribing = 0 }
        let record = Mutex(Record())
        let server = ControlServer(address: .unix(socket), authorize: { _ in true }) { request in
            switch request.path {
            case "/v1/jobs":
                let finished = record.withLock { record in
                    if record.subscribed { record.listsAfterSubscribing += 1 }
                    return record.finished
                }
                let job = QueueJob(
                    id: 1, spec: QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["true"])),
                    state: finished ? .succeeded : .running, reason: nil, createdAt: Date(), updatedAt: Date())
                return .json(status: 200, Array((try? QueueJSON.encode(QueueJobList(jobs: [job]))) ?? Data()))
            case "/v1/events":
                try? await Task.sleep(for: .milliseconds(300))
                record.withLock { $0.finished = true }
                let (lines, continuation) = AsyncStream.makeStream(of: [UInt8].self)
                // As the daemon's stream: the current path first, sent once subscribed.
                continuation.yield(Array("{\"type\":\"path\",\"summary\":\"wired via eth0, unmetered\"}\n".utf8))
                record.withLock { $0.subscribed = true }
                return .stream(status: 200, contentType: "application/x-ndjson", lines)
            default:
                return .json(status: 404, Array("{}".utf8))
            }
        }
        let client = QueueClient(socketPath: socket)
        let waited: Result<QueueWaiter.Outcome?, any Error>
        do {
            waited = .success(try await waitAgainst(server, client))
        } catch {
            waited = .failure(error)
        }
        await client.shutdown()
        let outcome = try waited.get()
        guard case .allSucceeded? = outcome else {
            Issue.record("the waiter did not see the job finish: \(String(describing: outcome))")
            return
        }
        #expect(record.withLock { $0.listsAfterSubscribing } >= 1, "the states were never read after the subscription")
    }

    /// `reach queue wait --all` against `server`; nil when it has not returned after 60 s.
    private func waitAgainst(_ server: ControlServer, _ client: QueueClient) async throws -> QueueWaiter.Outcome? {
        try await withServer(server) {
            try await withThrowingTaskGroup(of: QueueWaiter.Outcome?.self) { group in
                group.addTask { try await QueueWaiter(client: client, ids: nil).wait(timeout: nil) }
                // Not a timing bound: a guard, so a waiter that never sees the job fails instead of hanging.
                group.addTask {
                    try await Task.sleep(for: .seconds(60))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        }
    }

    /// Runs `server` while `body` runs, then stops it. (ReachabilityControlTests' harness does
    /// the same; test targets cannot share it, and ReachabilityTestKit stays without NIO.)
    private func withServer<T: Sendable>(_ server: ControlServer, _ body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            let listening = AsyncStream.makeStream(of: Void.self)
            group.addTask {
                // Ended either way: a server that cannot listen fails the body, not hangs it.
                defer { listening.continuation.finish() }
                try await server.run { _ in listening.continuation.yield() }
                return nil
            }
            for await _ in listening.stream { break }
            let result = try await body()
            group.cancelAll()
            return result
        }
    }
}
