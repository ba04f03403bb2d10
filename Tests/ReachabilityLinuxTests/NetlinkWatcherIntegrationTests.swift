import Dispatch
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Synchronization
import Testing

/// Collects the watcher's snapshots; can hold the watcher's thread inside the handler so the
/// kernel has to queue (and eventually drop) messages.
private final class SnapshotSink: Sendable {
    private let snapshots = Mutex<[NetworkSnapshot]>([])
    private let holding = Mutex(false)
    private let gate = DispatchSemaphore(value: 0)
    let held = DispatchSemaphore(value: 0)

    func receive(_ snapshot: NetworkSnapshot) {
        snapshots.withLock { $0.append(snapshot) }
        if holding.withLock({ $0 }) {
            held.signal()
            gate.wait()
        }
    }

    func hold() { holding.withLock { $0 = true } }
    func release() {
        holding.withLock { $0 = false }
        gate.signal()
    }

    var all: [NetworkSnapshot] { snapshots.withLock { $0 } }
    var latest: NetworkSnapshot? { all.last }
}

/// The facts netlink alone gives (sysfs is pointed nowhere), for comparing with a fresh dump.
private func kernelState(_ snapshot: NetworkSnapshot) -> [String] {
    snapshot.interfaces.map { "\($0.index) \($0.name) \($0.flags?.rawValue ?? 0) \($0.kind ?? "-") \($0.masterIndex ?? 0)" }
        + snapshot.addresses.map { "\($0.interfaceIndex) \($0.cidr)" }.sorted()
        + snapshot.defaultRoutes.map { "\($0.family) \($0.interfaceIndex) \($0.metric) \($0.table)" }.sorted()
}

private func configuration(_ ns: TestNamespace, buffer: Int = 4 << 20) -> NetlinkConfiguration {
    NetlinkConfiguration(sysfs: SysfsReader(root: "/nonexistent/reach-test-sysfs"), receiveBufferBytes: buffer, namespace: ns.namespace)
}

@Suite("Netlink watcher against the kernel", .enabled(if: TestNamespace.isSupported), .serialized)
struct NetlinkWatcherIntegrationTests {
    @Test func theInitialStateIsPublishedBeforeStartReturns() throws {
        let ns = try TestNamespace()
        try ns.ip("link", "add", "va", "type", "veth", "peer", "name", "vb")
        let sink = SnapshotSink()
        let watcher = try NetlinkWatcher(configuration: configuration(ns)) { sink.receive($0) }
        defer { watcher.stop() }
        #expect(sink.all.count == 1)
        #expect(sink.latest?.interfaces.map(\.name).sorted() == ["lo", "va", "vb"])
        #expect(watcher.statistics.receiveBufferBytes >= 4 << 20)
    }

    @Test func aOneShotReadEqualsTheWatchersState() async throws {
        let ns = try TestNamespace()
        try ns.ipBatch(["link add va type veth peer name vb", "link set va up", "link set vb up", "addr add 10.3.0.2/24 dev va"])
        try ns.ip("route", "add", "default", "via", "10.3.0.1", "dev", "va")
        let sink = SnapshotSink()
        let watcher = try NetlinkWatcher(configuration: configuration(ns)) { sink.receive($0) }
        defer { watcher.stop() }
        let fresh = try NetlinkSnapshotReader.read(configuration(ns))
        try await waitUntil { sink.latest.map(kernelState) == kernelState(fresh) }
        #expect(fresh.defaultRoutes.map(\.gateway) == ["10.3.0.1"])
        #expect(fresh.lookups.first?.interfaceIndex == fresh.interfaces.first { $0.name == "va" }?.index)
    }

    @Test func afterAnOverflowTheFinalStateEqualsAFreshDump() async throws {
        let ns = try TestNamespace()
        let sink = SnapshotSink()
        // A small receive buffer and a held thread make the kernel drop messages for sure.
        let watcher = try NetlinkWatcher(configuration: configuration(ns, buffer: 16 << 10)) { sink.receive($0) }
        defer { watcher.stop() }
        sink.hold()
        try ns.ip("link", "add", "trigger", "type", "veth", "peer", "name", "trigger-peer")
        sink.held.wait()

        var burst: [String] = []
        for pair in 0..<150 {
            burst.append("link add ovf\(pair)a type veth peer name ovf\(pair)b")
            burst.append("link set ovf\(pair)a up")
            burst.append("addr add 10.\(pair / 250 + 20).\(pair % 250).1/24 dev ovf\(pair)a")
        }
        for pair in stride(from: 0, to: 150, by: 3) { burst.append("link del ovf\(pair)a") }
        try ns.ipBatch(burst)
        sink.release()

        let fresh = { try NetlinkSnapshotReader.read(configuration(ns)) }
        try await waitUntil { try sink.latest.map(kernelState) == kernelState(fresh()) }
        #expect(watcher.statistics.overflows >= 1)
        let final = try #require(sink.latest)
        // lo, the trigger pair, and the 100 pairs of 150 that were not deleted.
        let expectedCount = 203
        #expect(final.interfaces.count == expectedCount)
        #expect(!final.interfaces.contains { $0.name == "ovf0a" || $0.name == "ovf0b" })
        #expect(final.interfaces.contains { $0.name == "ovf1b" })
    }

    @Test func stopEndsTheThreadAndNoSnapshotFollows() throws {
        let ns = try TestNamespace()
        let sink = SnapshotSink()
        let watcher = try NetlinkWatcher(configuration: configuration(ns)) { sink.receive($0) }
        watcher.stop()
        watcher.stop()  // idempotent
        let count = sink.all.count
        try ns.ip("link", "add", "late", "type", "veth", "peer", "name", "late-peer")
        #expect(sink.all.count == count)
    }
}

/// Polls `condition` until true; the bound only stops a broken test from hanging.
func waitUntil(bound: Duration = .seconds(30), _ condition: () throws -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + bound
    while try !condition() {
        guard clock.now < deadline else {
            Issue.record("condition not reached")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
