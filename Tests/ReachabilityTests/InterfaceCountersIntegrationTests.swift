import Foundation
import Reachability
import ReachabilityCore
import ReachabilityLinux
import ReachabilityTestKit
import Synchronization
import Testing

/// The kernel's own byte counters of `name` in `ns` (`ip -s -j link`), received plus sent.
private func kernelBytes(_ ns: TestNamespace, _ name: String) throws -> UInt64 {
    let text = try ns.ip("-s", "-j", "link", "show", name)
    let links = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
    let stats = try #require(links?.first?["stats64"] as? [String: Any])
    let rx = try #require((stats["rx"] as? [String: Any])?["bytes"] as? NSNumber)
    let tx = try #require((stats["tx"] as? [String: Any])?["bytes"] as? NSNumber)
    return rx.uint64Value + tx.uint64Value
}

/// Keeps every counter reading the monitor delivers.
private final class ReadingLog: Sendable {
    let readings = Mutex<[CounterReading]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ monitor: NetworkMonitor) {
        let stream = monitor.interfaceCounters()
        let reader = Task { [weak self] in for await reading in stream { self?.readings.withLock { $0.append(reading) } } }
        task.withLock { $0 = reader }
    }

    /// Waits (at most 10 s) for a reading that satisfies `predicate`.
    func wait(_ predicate: (CounterReading) -> Bool) async throws -> CounterReading {
        for _ in 0..<1000 {
            if let found = readings.withLock({ $0.last(where: predicate) }) { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestNamespaceError(message: "no counter reading matched in 10 s (\(readings.withLock { $0.count }) readings)")
    }

    func cancel() { task.withLock { $0?.cancel() } }
}

@Suite("Interface counters from the kernel", .enabled(if: TestNamespace.isSupported), .serialized)
struct InterfaceCountersIntegrationTests {
    /// A namespace with a veth `va` (10.9.0.1) to a peer namespace (kept alive by the caller),
    /// and a monitor of it reading counters every `interval`.
    private func counting(every interval: Duration) throws -> (TestNamespace, TestNamespace, NetworkMonitor) {
        let ns = try TestNamespace()
        let peer = try TestNamespace()
        try ns.ipBatch(["link add va type veth peer name vb", "link set va up", "addr add 10.9.0.1/24 dev va"])
        try ns.moveLink("vb", to: peer)
        try peer.ipBatch(["link set vb up", "addr add 10.9.0.2/24 dev vb"])
        var configuration = MonitorConfiguration(sysfsRoot: "/nonexistent/reach-test-sysfs", namespacePath: ns.namespace.path)
        configuration.counterInterval = interval
        return (ns, peer, NetworkMonitor(configuration: configuration))
    }

    @Test func countersMatchTheKernelAndADeletedLinkReportsItsLastCounters() async throws {
        let (ns, peer, monitor) = try counting(every: .milliseconds(200))
        defer { withExtendedLifetime(peer) {} }
        let log = ReadingLog(monitor)
        let paths = Task { for try await _ in monitor.paths {} }
        defer {
            paths.cancel()
            log.cancel()
        }
        let index = try await log.wait { $0.counters.contains { $0.name == "va" } }.counters.first { $0.name == "va" }!.index
        // 50 datagrams of 1,400 bytes (python3: the test suite installs it; ping may be absent).
        let send = "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); [s.sendto(b'x' * 1400, ('10.9.0.2', 9)) for _ in range(50)]"
        try ns.run(["python3", "-c", send])
        let expected = try kernelBytes(ns, "va")
        #expect(expected > 50 * 1400)
        // The next dump (no link message carries counters that only grew) has at least the kernel's
        // figure then, and at most its figure now (IPv6's own packets may have gone out since).
        let reading = try await log.wait { $0.counters.contains { $0.index == index && $0.totalBytes >= expected } }
        let counted = try #require(reading.counters.first { $0.index == index }).totalBytes
        #expect(counted <= (try kernelBytes(ns, "va")))
        #expect(reading.interfaces.contains { $0.name == "va" })

        try ns.ip("link", "set", "va", "down")
        try ns.ip("link", "del", "va")
        let removed = try await log.wait { $0.counters.contains { $0.index == index && $0.isRemoved } }
        let last = try #require(removed.counters.first { $0.index == index })
        #expect(last.totalBytes >= expected)
        #expect(!removed.counters.contains { $0.index == index && !$0.isRemoved })
        #expect(monitor.statistics.counterDumps > 0)
    }

    /// With an hour between dumps, traffic alone sends no link message: `countersNow()` reads
    /// the counters at once, and they hold what was sent a moment before (a budget judged
    /// without it would see nothing of it for an hour).
    @Test func countersNowReadsWhatWasJustSentWithoutWaitingForTheInterval() async throws {
        let (ns, peer, monitor) = try counting(every: .seconds(3600))
        defer { withExtendedLifetime(peer) {} }
        #expect(await monitor.countersNow() == nil, "no reading from a monitor that is not running")
        let log = ReadingLog(monitor)
        let paths = Task { for try await _ in monitor.paths {} }
        defer {
            paths.cancel()
            log.cancel()
        }
        _ = try await log.wait { $0.counters.contains { $0.name == "va" } }
        // The link's own messages (carrier, IPv6) have settled: what follows is traffic alone.
        try await Task.sleep(for: .milliseconds(500))
        let dumps = monitor.statistics.counterDumps
        let send = "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); [s.sendto(b'x' * 1400, ('10.9.0.2', 9)) for _ in range(200)]"
        try ns.run(["python3", "-c", send])
        let expected = try kernelBytes(ns, "va")
        #expect(expected > 200 * 1400)
        let reading = try #require(await monitor.countersNow())
        let counted = try #require(reading.counters.first { $0.name == "va" }).totalBytes
        let after = try kernelBytes(ns, "va")
        #expect(counted >= expected && counted <= after, "counted \(counted), the kernel \(expected) then \(after)")
        #expect(reading.interfaces.contains { $0.name == "va" })
        #expect(monitor.statistics.counterDumps > dumps)
    }
}
