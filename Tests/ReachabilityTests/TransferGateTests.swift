import Reachability
import ReachabilityCore
import ReachabilityTestKit
import Synchronization
import Testing

private let running: LinkFlags = [.up, .lowerUp, .running]

private func snapshot(_ name: String) -> NetworkSnapshot {
    NetworkSnapshot(
        interfaces: [InterfaceFacts(name: name, index: 2, flags: running, hardwareType: 1, kind: "veth")],
        addresses: [InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24)],
        defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 2)])
}

private final class EventLog: Sendable {
    let events = Mutex<[TransferGate.Event]>([])
    func record(_ event: TransferGate.Event) { events.withLock { $0.append(event) } }
    var all: [TransferGate.Event] { events.withLock { $0 } }

    /// Bounded, for a broken test: at most about 10 s of polling.
    func wait(for event: TransferGate.Event) async {
        for _ in 0..<10_000 where !all.contains(event) { try? await Task.sleep(for: .milliseconds(1)) }
    }
}

/// A job that runs until cancelled, counting its runs, or finishes when told.
private final class Job: Sendable {
    let runs = Mutex(0)
    let finish = Mutex(false)

    func body() async throws -> String {
        let run = runs.withLock { count -> Int in
            count += 1
            return count
        }
        while !finish.withLock({ $0 }) {
            try Task.checkCancellation()
            await Task.yield()
        }
        return "finished in run \(run)"
    }
}

/// Finishes at once with the network it was started on; counts its starts.
private final class NetworkReporter: GatedExecutor {
    let starts = Mutex(0)
    func start(_ run: GateRun, finished: @escaping @Sendable (Result<String, any Error>) -> Void) async {
        starts.withLock { $0 += 1 }
        finished(.success(run.network.interface?.name ?? "none"))
    }
    func stop(_ reason: TransferWaitReason) async {}
    func shutDown() async {}
    func transfer(updating transfer: Transfer) -> Transfer { transfer }
    var restartsWhenNetworkMoves: Bool { false }
}

@Suite("TransferGate")
struct TransferGateTests {
    private func monitor(_ source: FakeNetworkSource) throws -> NetworkMonitor {
        NetworkMonitor(
            source: source,
            configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")]),
            clock: ContinuousClock())
    }

    @Test func pausesOnCellularAndResumesOnWiFiAfterSettling() async throws {
        let source = FakeNetworkSource(initial: snapshot("wifi0"))
        let clock = TestClock()
        let gate = TransferGate(monitor: try monitor(source), policy: TransferPolicy(allowsCellular: false, resumeAfter: .seconds(3)), clock: clock)
        let log = EventLog()
        let job = Job()
        let outcome = Task { try await gate.run(Transfer(), onEvent: log.record) { try await job.body() } }

        await log.wait(for: .started)
        source.send(snapshot("cell0"))
        await log.wait(for: .paused(.cellularNotAllowed))
        source.send(snapshot("wifi0"))
        await log.wait(for: .waiting(.settling(remaining: .seconds(3))))
        #expect(job.runs.withLock { $0 } == 1)
        await clock.waitForSleepers()
        clock.advance(by: .seconds(3))
        await log.wait(for: .resumed)
        job.finish.withLock { $0 = true }
        let result = try await outcome.value
        #expect(result == "finished in run 2")
        #expect(log.all == [.started, .paused(.cellularNotAllowed), .waiting(.settling(remaining: .seconds(3))), .resumed])
    }

    /// A wait holds no task: it decides each network where it arrives, tells a new reason once,
    /// and hands its settling time over to the driver that takes over from it.
    @Test func aWaitTellsEachReasonOnceAndHandsItsSettlingToTheDriver() async throws {
        let source = FakeNetworkSource(initial: snapshot("cell0"))
        let clock = TestClock()
        let gate = TransferGate(monitor: try monitor(source), policy: TransferPolicy(allowsCellular: false, resumeAfter: .seconds(3)), clock: clock)
        let log = EventLog()
        let (ready, readyFeed) = AsyncStream.makeStream(of: TransferGateWait.self)
        let wait = gate.prepareWait(Transfer(), onEvent: log.record)
        wait.begin { wait in readyFeed.yield(wait) }
        await log.wait(for: .waiting(.cellularNotAllowed))
        source.send(snapshot("wifi0"))
        var handed = ready.makeAsyncIterator()
        let over = try #require(await handed.next())
        #expect(over === wait)
        let executor = NetworkReporter()
        let outcome = Task { try await gate.drive(executor, after: over, onEvent: log.record) }
        // The wait saw the cellular refusal: Wi-Fi must settle before the first start.
        await log.wait(for: .waiting(.settling(remaining: .seconds(3))))
        #expect(executor.starts.withLock { $0 } == 0)
        await clock.waitForSleepers()
        clock.advance(by: .seconds(3))
        #expect(try await outcome.value == "wifi0")
        #expect(log.all == [.waiting(.cellularNotAllowed), .waiting(.settling(remaining: .seconds(3))), .started])
    }

    /// A cancelled wait tells nothing more and never calls back.
    @Test func aCancelledWaitIsSilent() async throws {
        let source = FakeNetworkSource(initial: snapshot("cell0"))
        let monitor = try monitor(source)
        let gate = TransferGate(monitor: monitor, policy: TransferPolicy(allowsCellular: false), clock: TestClock())
        let log = EventLog()
        let called = Mutex(false)
        let wait = gate.prepareWait(Transfer(), onEvent: log.record)
        wait.begin { _ in called.withLock { $0 = true } }
        await log.wait(for: .waiting(.cellularNotAllowed))
        wait.cancel()
        source.send(snapshot("wifi0"))
        // The monitor's next path, seen by a gate of its own, proves Wi-Fi was published.
        let probe = TransferGate(monitor: monitor, policy: TransferPolicy(allowsCellular: false), clock: TestClock())
        _ = try await probe.waitUntilAllowed()
        wait.cancel()
        #expect(!called.withLock { $0 })
        #expect(log.all == [.waiting(.cellularNotAllowed)])
    }

    @Test func waitsBeforeTheFirstStart() async throws {
        let source = FakeNetworkSource(initial: snapshot("cell0"))
        let gate = TransferGate(monitor: try monitor(source), policy: TransferPolicy(cellularSizeLimit: 1000, resumeAfter: .zero), clock: TestClock())
        let log = EventLog()
        let job = Job()
        job.finish.withLock { $0 = true }
        let outcome = Task { try await gate.run(Transfer(expectedBytes: 5000), onEvent: log.record) { try await job.body() } }
        await log.wait(for: .waiting(.overCellularSizeLimit(limit: 1000)))
        #expect(job.runs.withLock { $0 } == 0)
        source.send(snapshot("wifi0"))
        let result = try await outcome.value
        #expect(result == "finished in run 1")
    }

    @Test func aFailingJobsErrorIsRethrown() async throws {
        struct Broken: Error {}
        let source = FakeNetworkSource(initial: snapshot("wifi0"))
        let gate = TransferGate(monitor: try monitor(source), policy: .any, clock: TestClock())
        await #expect(throws: Broken.self) { try await gate.run { () async throws -> Int in throw Broken() } }
    }

    @Test func waitUntilAllowedReturnsTheAllowingPath() async throws {
        let source = FakeNetworkSource(initial: snapshot("cell0"))
        let gate = TransferGate(monitor: try monitor(source), policy: .unmetered)
        let log = EventLog()
        let waiter = Task { try await gate.waitUntilAllowed(onEvent: log.record) }
        await log.wait(for: .waiting(.expensiveNotAllowed))
        source.send(snapshot("wifi0"))
        let path = try await waiter.value
        #expect(path.status == .wifi)
    }

    /// Whatever ends `run` (here the caller's cancellation), the body has finished before it
    /// returns: nothing the job does outlives the gate.
    @Test func theBodyHasEndedWhenRunReturns() async throws {
        let source = FakeNetworkSource(initial: snapshot("wifi0"))
        let gate = TransferGate(monitor: try monitor(source), policy: .any)
        let log = EventLog()
        let ended = Mutex(false)
        let caller = Task {
            try await gate.run(Transfer(), onEvent: log.record) {
                defer { ended.withLock { $0 = true } }
                // Ignores cancellation for a moment, as a job finishing a write would.
                while !Task.isCancelled { await Task.yield() }
                for _ in 0..<1_000 { await Task.yield() }
                return 0
            }
        }
        await log.wait(for: .started)
        caller.cancel()
        _ = await caller.result
        #expect(ended.withLock { $0 })
    }

    @Test func aZeroTimeoutJudgesTheCurrentPath() async throws {
        let onWiFi = TransferGate(monitor: try monitor(FakeNetworkSource(initial: snapshot("wifi0"))), policy: .wifiOnly)
        let allowed = try await onWiFi.waitUntilAllowed(timeout: .zero)
        #expect(allowed?.status == .wifi)

        let onCellular = TransferGate(monitor: try monitor(FakeNetworkSource(initial: snapshot("cell0"))), policy: .wifiOnly)
        let refused = try await onCellular.waitUntilAllowed(timeout: .zero)
        #expect(refused == nil)
    }

    @Test func aTimeoutStartsAfterTheCurrentPathWasRefused() async throws {
        let source = FakeNetworkSource(initial: snapshot("cell0"))
        let clock = TestClock()
        let gate = TransferGate(monitor: try monitor(source), policy: .wifiOnly, clock: clock)
        let waiter = Task { try await gate.waitUntilAllowed(timeout: .seconds(10)) }
        await clock.waitForSleepers()
        source.send(snapshot("wifi0"))
        let path = try await waiter.value
        #expect(path?.status == .wifi)
    }
}
