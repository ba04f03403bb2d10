import ReachabilityTransfers
import Foundation
import Reachability
import ReachabilityCore
@testable import ReachabilityDaemon
import ReachabilityTestKit
import Synchronization
import Testing

private let running: LinkFlags = [.up, .lowerUp, .running]

/// One uplink, `name`, with a default route; its role comes from the overrides (the queue and
/// budget tests share it).
func snapshot(_ name: String) -> NetworkSnapshot {
    NetworkSnapshot(
        interfaces: [InterfaceFacts(name: name, index: 2, flags: running, hardwareType: 1, kind: "veth")],
        addresses: [InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24)],
        defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 2)])
}

private func makeMonitor(_ source: FakeNetworkSource) throws -> NetworkMonitor {
    NetworkMonitor(
        source: source,
        configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")]),
        clock: ContinuousClock())
}

/// A queue in its own state directory, on a fake network (Wi-Fi unless told otherwise).
private struct QueueFixture {
    let directory: TemporaryDirectory
    let source: FakeNetworkSource
    let monitor: NetworkMonitor

    init(network: String = "wifi0") throws {
        directory = try TemporaryDirectory()
        source = FakeNetworkSource(initial: snapshot(network))
        monitor = try makeMonitor(source)
    }

    func open() throws -> JobQueue {
        let queue = try JobQueue(
            configuration: .init(stateDirectory: directory.path, commandRetryDelay: .milliseconds(10)), monitor: monitor)
        try queue.start()
        return queue
    }

    var file: String { directory.path + "/runs.txt" }
    func runs() -> Int { ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").count }
}

private func command(_ script: String, when: String? = nil, maxAttempts: Int? = nil, notBefore: Date? = nil) -> QueueJobSpec {
    QueueJobSpec(
        kind: .command, command: CommandSpec(arguments: ["sh", "-c", script]), constraints: QueueConstraints(when: when), notBefore: notBefore,
        maxAttempts: maxAttempts)
}

/// Polls until the job matches (bounded, about 30 s).
func waitFor(_ queue: JobQueue, _ id: Int64, _ predicate: (QueueJob) -> Bool) async throws -> QueueJob {
    for _ in 0..<3000 {
        let job = try queue.job(id)
        if predicate(job) { return job }
        try await Task.sleep(for: .milliseconds(10))
    }
    let job = try queue.job(id)
    throw QueueError.conflict("job \(id) stayed \(job.state) \(job.reason?.message ?? "")")
}

@Suite("JobQueue", .serialized)
struct JobQueueTests {
    @Test func jobsSurviveAReopenAndAFinishedJobNeverRunsAgain() async throws {
        let fixture = try QueueFixture()
        defer { fixture.directory.remove() }
        var queue = try fixture.open()
        let done = try await queue.add(command("echo run >> \(fixture.file)"), workingDirectory: "/")
        _ = try await waitFor(queue, done.id) { $0.state == .succeeded }
        let later = try await queue.add(command("true", notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/")
        _ = try await waitFor(queue, later.id) { $0.reason?.code == "notBefore" }
        await queue.shutdown()

        queue = try fixture.open()
        #expect(try queue.job(done.id).state == .succeeded)
        #expect(try queue.job(done.id).result?.exitStatus == 0)
        #expect(try queue.job(later.id).reason?.code == "notBefore")
        try await Task.sleep(for: .milliseconds(200))
        #expect(fixture.runs() == 1)
        #expect(try queue.history(of: done.id).map(\.state) == ["pending", "running", "succeeded"])
        #expect(try queue.integrityCheck() == "ok")
        await queue.shutdown()
    }

    @Test func aFailingCommandIsRetriedWithBackoffThenFailsNamingItsExitStatus() async throws {
        let fixture = try QueueFixture()
        defer { fixture.directory.remove() }
        let queue = try fixture.open()
        let events = queue.events()
        let job = try await queue.add(command("echo run >> \(fixture.file); exit 3", maxAttempts: 3), workingDirectory: "/")
        let failed = try await waitFor(queue, job.id) { $0.state.isFinal }
        #expect(failed.state == .failed)
        #expect(failed.reason?.code == "exitStatus")
        #expect(failed.reason?.message.contains("3 of 3 attempts") == true)
        #expect(fixture.runs() == 3)
        #expect(failed.attempts == 3)
        var sawRetry = false
        for await event in events where event.id == job.id {
            if event.reason?.code == "waitingToRetry" { sawRetry = event.reason?.until != nil }
            if event.state.isFinal { break }
        }
        #expect(sawRetry)
        await queue.shutdown()
    }

    @Test func aCommandForWiFiWaitsOnCellularAndRunsWhenWiFiComes() async throws {
        let fixture = try QueueFixture(network: "cell0")
        defer { fixture.directory.remove() }
        let queue = try fixture.open()
        let job = try await queue.add(command("echo run >> \(fixture.file)", when: "wifi"), workingDirectory: "/")
        let waiting = try await waitFor(queue, job.id) { $0.state == .paused }
        #expect(waiting.reason?.code == "queuedForWifi")
        #expect(fixture.runs() == 0)
        fixture.source.send(snapshot("wifi0"))
        _ = try await waitFor(queue, job.id) { $0.state == .succeeded }
        #expect(fixture.runs() == 1)
        await queue.shutdown()
    }

    /// A path change that alters only the words of a waiting job's reason (still
    /// `queuedForWired`, now "wifi not allowed") is neither written nor told to subscribers: the
    /// path says what changed. A job that changes state is told as before.
    @Test func aReasonWhoseWordsAloneChangeIsNotToldToSubscribers() async throws {
        let fixture = try QueueFixture(network: "cell0")
        defer { fixture.directory.remove() }
        let queue = try fixture.open()
        let events = queue.events()
        let waiting = try await queue.add(command("true", when: "wired"), workingDirectory: "/")
        let before = try await waitFor(queue, waiting.id) { $0.reason?.code == "queuedForWired" }
        #expect(before.reason?.message.contains("cellular") == true)
        let forWifi = try await queue.add(command("echo run >> \(fixture.file)", when: "wifi"), workingDirectory: "/")
        _ = try await waitFor(queue, forWifi.id) { $0.reason?.code == "queuedForWifi" }
        fixture.source.send(snapshot("wifi0"))
        let after = try await waitFor(queue, waiting.id) { $0.reason?.message.contains("wifi") == true }
        #expect(after.state == .paused && after.reason?.code == "queuedForWired")
        _ = try await waitFor(queue, forWifi.id) { $0.state == .succeeded }
        // Every change made so far is in the stream before the sentinel's.
        let sentinel = try await queue.add(command("true", notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/")
        var toldOfWaiting: [QueueJob] = []
        var toldOfForWifi: [JobStatus] = []
        for await event in events {
            if event.id == waiting.id { toldOfWaiting.append(event) }
            if event.id == forWifi.id { toldOfForWifi.append(event.state) }
            if event.id == sentinel.id { break }
        }
        #expect(!toldOfWaiting.isEmpty)
        #expect(toldOfWaiting.allSatisfy { $0.reason?.message.contains("wifi") != true }, "\(toldOfWaiting.map { $0.reason?.message ?? "" })")
        #expect(toldOfForWifi.contains(.running) && toldOfForWifi.last == .succeeded, "\(toldOfForWifi)")
        #expect(try queue.history(of: waiting.id).map(\.state) == ["pending", "paused"])
        await queue.shutdown()
    }

    /// Jobs added together are taken up together (``JobQueue/takeUp(_:)``), each on its own
    /// judgement; every transition they make, written without anyone waiting for it, reaches the
    /// database by itself, after the job's insert.
    @Test func jobsAddedInABurstAreAllTakenUpAndEveryTransitionIsWritten() async throws {
        let fixture = try QueueFixture(network: "cell0")
        defer { fixture.directory.remove() }
        let queue = try fixture.open()
        let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<40 {
                group.addTask { try await queue.add(command("echo \(index) >> \(fixture.file)", when: "wifi"), workingDirectory: "/").id }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(ids).count == 40)
        for id in ids {
            let waiting = try await waitFor(queue, id) { $0.state == .paused }
            #expect(waiting.reason?.code == "queuedForWifi")
        }
        // Written by the writer on its own (its wait for company ends), without a drain.
        for id in ids {
            var states: [String] = []
            for _ in 0..<1000 {
                states = try queue.history(of: id).map(\.state)
                if states.count >= 2 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(states == ["pending", "paused"], "job \(id)")
        }
        #expect(fixture.runs() == 0)
        await queue.shutdown()
    }

    /// A job taken up after the engine stopped (the daemon is stopping) is left for the next
    /// start, not failed with "the engine is shut down".
    @Test func aJobTakenUpAfterTheEngineStoppedIsLeftForTheNextStart() async throws {
        let fixture = try QueueFixture()
        defer { fixture.directory.remove() }
        let queue = try fixture.open()
        await queue.engine.shutdown()
        let job = try await queue.add(command("echo run >> \(fixture.file)"), workingDirectory: "/")
        let download = try await queue.add(
            QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://127.0.0.1:9/f", destination: fixture.directory.path + "/f")),
            workingDirectory: "/")
        for _ in 0..<1000 where queue.state.withLock({ $0.isTakeUpArmed }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!queue.state.withLock { $0.isTakeUpArmed }, "the take-up never ran")
        #expect(try queue.job(job.id).state == .pending)
        // A run the engine refused is no attempt: not in memory, nor in the database.
        #expect(try queue.job(download.id).attempts == 0)
        await queue.shutdown()
        #expect(try QueueStore(directory: fixture.directory.path).job(download.id)?.attempts == 0)

        let reopened = try fixture.open()
        _ = try await waitFor(reopened, job.id) { $0.state == .succeeded }
        #expect(fixture.runs() == 1)
        await reopened.shutdown()
    }

    /// A pause suspends a command (the same process goes on after the resume); with
    /// `onDisallow: terminate` it is terminated and runs afresh.
    @Test func pauseResumeAndCancelByID() async throws {
        let fixture = try QueueFixture()
        defer { fixture.directory.remove() }
        let queue = try fixture.open()
        let job = try await queue.add(command("echo run >> \(fixture.file); sleep 30"), workingDirectory: "/")
        _ = try await waitFor(queue, job.id) { $0.state == .running }
        let paused = try await queue.pause(job.id)
        #expect(paused.reason?.code == "pausedByUser")
        _ = try await queue.resume(job.id)
        _ = try await waitFor(queue, job.id) { $0.state == .running }
        try await Task.sleep(for: .milliseconds(200))
        #expect(fixture.runs() == 1, "a suspended command goes on; it does not run again")
        #expect(try queue.job(job.id).attempts == 1)

        var terminating = command("echo run >> \(fixture.file); sleep 30")
        terminating.command?.onDisallow = "terminate"
        let restarted = try await queue.add(terminating, workingDirectory: "/")
        _ = try await waitFor(queue, restarted.id) { $0.state == .running && fixture.runs() == 2 }
        _ = try await queue.pause(restarted.id)
        _ = try await queue.resume(restarted.id)
        _ = try await waitFor(queue, restarted.id) { $0.state == .running && fixture.runs() == 3 }
        _ = try await queue.cancel(restarted.id)
        let cancelled = try await queue.cancel(job.id)
        #expect(cancelled.state == .cancelled)
        await #expect(throws: QueueError.self) { try await queue.resume(job.id) }
        await #expect(throws: QueueError.self) { try await queue.pause(999) }
        await queue.shutdown()
    }

    @Test func aJobWhoseCredentialsWereNeverStoredFailsAfterARestartSayingWhy() async throws {
        let fixture = try QueueFixture()
        defer { fixture.directory.remove() }
        var queue = try fixture.open()
        let spec = QueueJobSpec(
            kind: .download, download: DownloadSpec(url: "http://user:secret@127.0.0.1:9/f", destination: fixture.directory.path + "/f"),
            notBefore: Date().addingTimeInterval(3600))
        let job = try await queue.add(spec, workingDirectory: nil)
        #expect(job.spec.download?.url.contains("secret") == false)
        await queue.shutdown()
        let database = try Data(contentsOf: URL(fileURLWithPath: fixture.directory.path + "/queue.sqlite"))
        #expect(database.range(of: Data("secret".utf8)) == nil)
        queue = try fixture.open()
        let restored = try queue.job(job.id)
        #expect(restored.state == .failed)
        #expect(restored.reason?.code == "credentialsLost")
        await queue.shutdown()
    }
}

@Suite("JobQueue list JSON")
struct JobQueueListJSONTests {
    private func startedQueue(in directory: TemporaryDirectory) throws -> JobQueue {
        let queue = try JobQueue(
            configuration: .init(stateDirectory: directory.path), monitor: NetworkMonitor(source: FakeNetworkSource(), clock: ContinuousClock()))
        try queue.start()
        return queue
    }

    /// The cached per-job JSON decodes to exactly what `list` returns, before and after a change.
    @Test func listJSONMatchesTheJobsAndFollowsChanges() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try startedQueue(in: directory)
        for _ in 0..<3 {
            _ = try await queue.add(
                QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["true"]), notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/")
        }
        // Dates go to JSON to the second: compare what they do not touch.
        let shape = { (jobs: [QueueJob]) in jobs.map { "\($0.id) \($0.state) \($0.reason?.message ?? "-") \($0.spec.command?.arguments ?? [])" } }
        let decode = { try QueueJSON.decode(QueueJobList.self, from: Data(queue.listJSON())).jobs }
        #expect(try shape(decode()) == shape(queue.list()))
        #expect(try shape(decode()) == shape(queue.list()))  // from the cache
        _ = try await queue.pause(2)
        #expect(try shape(decode()) == shape(queue.list()))
        #expect(try decode()[1].reason?.code == "pausedByUser")
        #expect(try QueueJSON.decode(QueueJobList.self, from: Data(queue.listJSON(states: [.paused]))).jobs.count == 3)
        await queue.shutdown()
    }

    /// The summary view carries each job's table fields, from its own cache, which a change clears.
    @Test func summaryViewMatchesTheJobsAndFollowsChanges() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try startedQueue(in: directory)
        _ = try await queue.add(QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["sleep", "1"]), notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/")
        _ = try await queue.add(
            QueueJobSpec(kind: .download, download: DownloadSpec(url: "http://user:secret@127.0.0.1:9/a.bin", destination: "/tmp/a.bin"),
                notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/")
        // A reason's `until` goes to JSON to the second: compared without it.
        let secondless = { (jobs: [QueueJobSummary]) in
            jobs.map { job in
                var job = job
                job.reason?.until = nil
                return job
            }
        }
        let summaries = { secondless(try QueueJSON.decode(QueueJobSummaryList.self, from: Data(queue.listJSON(view: .summary))).jobs) }
        let expected = secondless(try queue.list().map(\.summary))
        #expect(try summaries() == expected)
        #expect(try summaries() == expected)  // from the cache
        #expect(expected.map(\.title) == ["run sleep 1", "get http://***@127.0.0.1:9/a.bin → /tmp/a.bin"])
        _ = try await queue.pause(1)
        let paused = try summaries()
        #expect(paused[0].reason?.code == "pausedByUser")
        #expect(paused == secondless(try queue.list().map(\.summary)))
        // The full view keeps its own cache: still every field.
        #expect(try QueueJSON.decode(QueueJobList.self, from: Data(queue.listJSON())).jobs.map(\.id) == [1, 2])
        await queue.shutdown()
    }
}
