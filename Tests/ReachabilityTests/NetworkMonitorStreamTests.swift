import Reachability
import ReachabilityCore
import ReachabilityTestKit
import Dispatch
import Synchronization
import Testing

private let running: LinkFlags = [.up, .lowerUp, .running]

/// A snapshot where `name` (a veth overridden by the rules below) carries the default route.
private func online(via name: String, index: Int32, extraInterface: String? = nil) -> NetworkSnapshot {
    var interfaces = [
        InterfaceFacts(name: "wifi0", index: 2, flags: running, hardwareType: 1, kind: "veth"),
        InterfaceFacts(name: "cell0", index: 3, flags: running, hardwareType: 1, kind: "veth"),
    ]
    if let extraInterface { interfaces.append(InterfaceFacts(name: extraInterface, index: 9, flags: [], hardwareType: 1, kind: "veth")) }
    return NetworkSnapshot(
        interfaces: interfaces,
        addresses: [
            InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24),
            InterfaceAddress(interfaceIndex: 3, family: .ipv4, address: "198.51.100.2", prefixLength: 24),
        ],
        defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: index)])
}

private let offline = NetworkSnapshot(interfaces: [InterfaceFacts(name: "wifi0", index: 2, flags: [], hardwareType: 1, kind: "veth")])

private func configuration(debounce: Duration = .zero) throws -> MonitorConfiguration {
    MonitorConfiguration(
        overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")], debounce: debounce)
}

/// Lets the debouncer take in what was sent, then waits until it sleeps on the clock.
private func debouncerCaughtUp(_ clock: TestClock, _ monitor: NetworkMonitor) async {
    // Every path sent has been taken in by the debouncer (which then sets its deadline without
    // suspending), and it sleeps: only then may time move.
    while monitor.debounceBacklog.pending > 0 { await Task.yield() }
    for _ in 0..<200 { await Task.yield() }
    await clock.waitForSleepers()
}

@Suite("NetworkMonitor stream semantics")
struct NetworkMonitorStreamTests {
    @Test func firstValueIsTheCurrentPath() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        var iterator = monitor.paths.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.status == .wifi)
        #expect(first?.primary?.name == "wifi0")
        #expect(source.starts == 1)
    }

    @Test func oneValuePerRealChangeAndNoDuplicates() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let recorder = PathRecorder(monitor.paths)
        _ = try await recorder.wait { $0.status == .wifi }
        source.send(online(via: "wifi0", index: 2))  // identical: must not be published
        source.send(online(via: "wifi0", index: 2))
        source.send(online(via: "cell0", index: 3))
        source.send(online(via: "cell0", index: 3))
        // Each iterator buffers only the newest path: wait for this one before the next change.
        _ = try await recorder.wait { $0.status == .cellular }
        source.send(offline)
        _ = try await recorder.wait { $0.status == .unreachable }
        #expect(recorder.paths.map(\.status) == [.wifi, .cellular, .unreachable])
        #expect(recorder.paths[1].isExpensive)
        await recorder.cancel()
    }

    @Test func anInterfaceOnlyChangeIsAChangeOfThePath() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let recorder = PathRecorder(monitor.paths)
        _ = try await recorder.wait { $0.status == .wifi }
        source.send(online(via: "wifi0", index: 2, extraInterface: "veth9"))
        let second = try await recorder.wait(after: 1) { _ in true }
        #expect(second.status == .wifi)
        #expect(second.interface(named: "veth9") != nil)
        await recorder.cancel()
    }

    @Test func independentSubscribersShareOneSourceAndACancelledOneDisturbsNoOther() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let first = PathRecorder(monitor.paths)
        let second = PathRecorder(monitor.paths)
        _ = try await first.wait { $0.status == .wifi }
        _ = try await second.wait { $0.status == .wifi }
        #expect(source.starts == 1)

        await first.cancel()
        #expect(source.isRunning)
        source.send(online(via: "cell0", index: 3))
        let change = try await second.wait { $0.status == .cellular }
        #expect(change.primary?.name == "cell0")
        #expect(!first.paths.contains { $0.status == .cellular })

        await second.cancel()
        // A source whose start is still returning is stopped as soon as it has.
        try await source.waitForCancellations(1)
        #expect(!source.isRunning)
        #expect(source.cancellations == 1)
    }

    @Test func aLateSubscriberGetsTheLatestPathFirst() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let early = PathRecorder(monitor.paths)
        _ = try await early.wait { $0.status == .wifi }
        source.send(online(via: "cell0", index: 3))
        _ = try await early.wait { $0.status == .cellular }
        let late = PathRecorder(monitor.paths)
        let first = try await late.wait { _ in true }
        #expect(first.status == .cellular)
        #expect(source.starts == 1)
        await early.cancel()
        await late.cancel()
    }

    @Test func theSourceRestartsForANewSubscriberAfterTheLastLeft() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let first = PathRecorder(monitor.paths)
        _ = try await first.wait { $0.status == .wifi }
        await first.cancel()
        try await source.waitForCancellations(1)
        source.send(offline)
        let second = PathRecorder(monitor.paths)
        let path = try await second.wait { _ in true }
        #expect(path.status == .unreachable)
        #expect(source.starts == 2)
        await second.cancel()
    }

    @Test func aSourceThatCannotStartEndsTheSequenceWithItsError() async throws {
        struct NoNetlink: Error {}
        let source = FakeNetworkSource()
        source.failNextStart(with: NoNetlink())
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        var iterator = monitor.paths.makeAsyncIterator()
        await #expect(throws: NoNetlink.self) { _ = try await iterator.next() }
    }

    @Test func currentPathReadsTheSourceWhenNotRunning() async throws {
        let source = FakeNetworkSource(initial: online(via: "cell0", index: 3))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let path = try await monitor.currentPath()
        #expect(path.status == .cellular)
        #expect(source.starts == 0)
    }

    @Test func debounceCoalescesABurstIntoItsLastValueAndNeverDelaysTheFirst() async throws {
        let clock = TestClock()
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(debounce: .milliseconds(500)), clock: clock)
        let recorder = PathRecorder(monitor.paths)
        // The first path needs no clock movement.
        _ = try await recorder.wait { $0.status == .wifi }

        source.send(offline)
        source.send(online(via: "cell0", index: 3))
        source.send(online(via: "wifi0", index: 2, extraInterface: "veth9"))
        // Let the debouncer take in the whole burst before time moves.
        await debouncerCaughtUp(clock, monitor)
        clock.advance(by: .milliseconds(500))
        let settled = try await recorder.wait(after: 1) { _ in true }
        #expect(settled.interface(named: "veth9") != nil)
        #expect(recorder.paths.count == 2)
        #expect(!recorder.paths.contains { $0.status == .cellular || $0.status == .unreachable })
        await recorder.cancel()
    }

    /// The source delivers the current path before its start returns; a subscriber arriving in
    /// between must get it at once, not wait for the next change.
    @Test func aSubscriberArrivingWhileTheSourceStartsGetsTheCurrentPath() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        source.holdNextStart()
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let first = PathRecorder(monitor.paths)
        _ = try await first.wait { $0.status == .wifi }
        try await source.waitUntilHoldingStart()
        let second = PathRecorder(monitor.paths)
        let path = try await second.wait { _ in true }
        #expect(path.status == .wifi)
        #expect(source.isHoldingStart)
        source.releaseStart()
        await first.cancel()
        await second.cancel()
        try await source.waitForCancellations(1)
        #expect(source.starts == 1)
    }

    /// Everybody left while the source was starting (an orphaned start): the source is stopped,
    /// and the next subscriber gets a first value even though the state did not change.
    @Test func aRestartAfterAnOrphanedStartYieldsAFirstValue() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        source.holdNextStart()
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let orphan = PathRecorder(monitor.paths)
        _ = try await orphan.wait { $0.status == .wifi }
        try await source.waitUntilHoldingStart()
        await orphan.cancel()
        source.releaseStart()
        try await source.waitForCancellations(1)

        let next = PathRecorder(monitor.paths)
        let path = try await next.wait { _ in true }
        #expect(path.status == .wifi)
        #expect(source.starts == 2)
        await next.cancel()
    }

    /// Churn that does not change the summary is dropped before the debounce: a real change
    /// is published one quiet period after it happened, however much churn follows it.
    @Test func unrelatedChurnDoesNotDelayASummaryChange() async throws {
        let clock = TestClock()
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: clock)
        let recorder = PathRecorder(monitor.paths(distinctBy: \.summary, debounce: .milliseconds(500)))
        _ = try await recorder.wait { $0.status == .wifi }

        source.send(online(via: "cell0", index: 3))
        await debouncerCaughtUp(clock, monitor)
        // A veth appearing and disappearing, 300 ms into the quiet period: no change of summary.
        clock.advance(by: .milliseconds(300))
        source.send(online(via: "cell0", index: 3, extraInterface: "veth9"))
        source.send(online(via: "cell0", index: 3))
        source.send(online(via: "cell0", index: 3, extraInterface: "veth9"))
        for _ in 0..<200 { await Task.yield() }
        clock.advance(by: .milliseconds(200))
        let change = try await recorder.wait(after: 1) { _ in true }
        #expect(change.status == .cellular)
        #expect(recorder.paths.count == 2)
    }

    /// The same churn through `paths` (every change counts) restarts the quiet period: the
    /// contrast that shows the order of filter and debounce matters.
    @Test func everyChangeCountsForPlainPaths() async throws {
        let clock = TestClock()
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(debounce: .milliseconds(500)), clock: clock)
        let recorder = PathRecorder(monitor.paths)
        _ = try await recorder.wait { $0.status == .wifi }
        source.send(online(via: "cell0", index: 3))
        await debouncerCaughtUp(clock, monitor)
        clock.advance(by: .milliseconds(300))
        source.send(online(via: "cell0", index: 3, extraInterface: "veth9"))
        await debouncerCaughtUp(clock, monitor)
        clock.advance(by: .milliseconds(500))
        let settled = try await recorder.wait(after: 1) { _ in true }
        // One line for the burst: the churned path, published after the churn's quiet period.
        #expect(settled.interface(named: "veth9") != nil)
        #expect(settled.status == .cellular)
        #expect(recorder.paths.count == 2)
    }

    /// A change undone within the quiet period (A → B → A) publishes nothing.
    @Test func aChangeUndoneWithinTheQuietPeriodIsNoChange() async throws {
        let clock = TestClock()
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: clock)
        let recorder = PathRecorder(monitor.paths(distinctBy: \.summary, debounce: .milliseconds(500)))
        _ = try await recorder.wait { $0.status == .wifi }
        source.send(online(via: "cell0", index: 3))
        source.send(online(via: "wifi0", index: 2))
        await debouncerCaughtUp(clock, monitor)
        clock.advance(by: .milliseconds(500))
        // A later real change proves the pipeline ran; the undone one left no trace before it.
        source.send(offline)
        await debouncerCaughtUp(clock, monitor)
        clock.advance(by: .milliseconds(500))
        _ = try await recorder.wait { $0.status == .unreachable }
        #expect(recorder.paths.map(\.status) == [.wifi, .unreachable])
        await recorder.cancel()
    }

    /// An iterator's termination handler runs while Swift holds its task's status lock; a
    /// source stop that waits for a delivery in flight (as the kernel source joins its thread)
    /// must not run there, or the delivery, resuming that task, and the stop wait on each other.
    @Test(.timeLimit(.minutes(1)))
    func cancellingWhileTheSourcePublishesDoesNotDeadlock() async throws {
        let source = FakeNetworkSource(initial: online(via: "wifi0", index: 2))
        let monitor = NetworkMonitor(source: source, configuration: try configuration(), clock: ContinuousClock())
        let stop = Mutex(false)
        DispatchQueue.global().async {
            var flip = false
            while !stop.withLock({ $0 }) {
                flip.toggle()
                source.send(flip ? online(via: "cell0", index: 3) : online(via: "wifi0", index: 2))
            }
        }
        var received = 0
        for _ in 0..<100 {
            let recorder = PathRecorder(monitor.paths)
            _ = try await recorder.wait { _ in true }
            received += 1
            await recorder.cancel()
        }
        stop.withLock { $0 = true }
        #expect(received == 100)
    }
}
