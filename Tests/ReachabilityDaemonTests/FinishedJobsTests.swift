import Foundation
import Reachability
import ReachabilityCore
@testable import ReachabilityDaemon
import ReachabilitySQLite
import ReachabilityTestKit
import ReachabilityTransfers
import Synchronization
import Testing

/// A finished job is not held in memory: it leaves once its final state is committed, and the
/// database answers for it (issue 36: 10,000 finished jobs must cost no RAM).
@Suite("Finished jobs", .serialized)
struct FinishedJobsTests {
    private func open(_ directory: TemporaryDirectory) throws -> JobQueue {
        let queue = try JobQueue(
            configuration: .init(stateDirectory: directory.path),
            monitor: NetworkMonitor(source: FakeNetworkSource(initial: snapshot("eth0")), configuration: MonitorConfiguration(), clock: ContinuousClock()))
        try queue.start()
        return queue
    }

    private func run(_ arguments: [String], notBefore: Date? = nil) -> QueueJobSpec {
        // One attempt: a failed command fails at once instead of waiting to be retried.
        QueueJobSpec(kind: .command, command: CommandSpec(arguments: arguments), notBefore: notBefore, maxAttempts: 1)
    }

    /// How many jobs the queue holds in memory.
    private func held(_ queue: JobQueue) -> Int { queue.state.withLock { $0.entries.count } }

    /// Polls until `condition` holds (bounded, about 30 s); false if it never did.
    private func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        for _ in 0..<3000 {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try condition()
    }

    @Test func finishedJobsLeaveMemoryAndAreListedCountedAndLookedUpFromTheDatabase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var queue = try open(directory)
        var finished: [Int64] = []
        for index in 0..<20 { finished.append(try await queue.add(run(["sh", "-c", "exit \(index % 2)"]), workingDirectory: "/").id) }
        let held = try await queue.add(run(["true"], notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/")
        #expect(try await eventually { try finished.allSatisfy { try queue.job($0).state.isFinal } })
        #expect(try await eventually { self.held(queue) == 1 }, "every finished job left memory; the held one stayed")

        let check = { (queue: JobQueue) throws in
            #expect(queue.counts()[.succeeded] == 10)
            #expect(queue.counts()[.failed] == 10)
            #expect(queue.counts()[.paused] == 1)
            let all = try queue.list()
            #expect(all.map(\.id) == finished + [held.id], "every job once, oldest first")
            #expect(try queue.list(states: [.failed]).map(\.id) == finished.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
            #expect(try queue.list(states: [.paused]).map(\.id) == [held.id])
            let listed = try QueueJSON.decode(QueueJobList.self, from: Data(queue.listJSON())).jobs
            #expect(listed.map(\.id) == all.map(\.id))
            #expect(listed.map(\.state) == all.map(\.state))
            let summaries = try QueueJSON.decode(QueueJobSummaryList.self, from: Data(queue.listJSON(states: [.succeeded], view: .summary))).jobs
            #expect(summaries.map(\.id) == finished.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
            let detail = try queue.detail(finished[1])
            #expect(detail.job.state == .failed)
            #expect(detail.job.reason?.code == "exitStatus")
            #expect(detail.history.map(\.state).last == "failed")
        }
        try check(queue)
        await #expect(throws: QueueError.conflict("cannot pause job \(finished[0]): it succeeded already")) { try await queue.pause(finished[0]) }
        #expect(throws: QueueError.notFound(999)) { try queue.job(999) }

        // After a restart only the unfinished job is loaded; the rest answer the same.
        await queue.shutdown()
        queue = try open(directory)
        #expect(self.held(queue) == 1)
        try check(queue)
        await queue.shutdown()
    }

    /// A list taken while jobs finish (and leave memory) shows each job exactly once.
    @Test func aListWhileJobsFinishNeverMissesNorRepeatsAJob() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try open(directory)
        var added: [Int64] = []
        for _ in 0..<60 {
            added.append(try await queue.add(run(["true"]), workingDirectory: "/").id)
            let listed = try queue.list().map(\.id)
            #expect(listed == added)
            let encoded = try QueueJSON.decode(QueueJobSummaryList.self, from: Data(queue.listJSON(view: .summary))).jobs.map(\.id)
            #expect(encoded == added)
        }
        #expect(try await eventually { self.held(queue) == 0 })
        #expect(try queue.list().map(\.id) == added)
        #expect(queue.counts()[.succeeded] == 60)
        await queue.shutdown()
    }

    /// The finished jobs' condition is the final states', and a list of them reads the partial
    /// index, not every row.
    @Test func finishedJobsAreReadThroughTheirOwnIndex() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(QueueStore.isFinished == "state IN (" + QueueStore.finalStates.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")")
        #expect(QueueStore.finalStates == [.succeeded, .failed, .cancelled])
        let store = try QueueStore(directory: directory.path)
        let plan = try store.reader.sync { db in
            try db.rows("EXPLAIN QUERY PLAN SELECT * FROM job WHERE \(QueueStore.isFinished) AND state IN (?) ORDER BY id", ["failed"])
                .map { row in try row.get("detail", as: String.self) }
        }
        #expect(plan.contains { $0.contains("job_finished") }, "\(plan)")
    }
}
