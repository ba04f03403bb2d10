import Reachability
import ReachabilityCore
import ReachabilityLinux  // TestNamespace.namespace is a NetworkNamespace
import ReachabilityMetrics
import ReachabilityTestKit
import Testing

/// A monitor of a private namespace with the smallest receive buffer the kernel grants, so a
/// burst of links overflows it. Sysfs points nowhere (it shows the host's interfaces).
private func smallBufferMonitor(_ namespace: TestNamespace) -> NetworkMonitor {
    NetworkMonitor(configuration: MonitorConfiguration(
        sysfsRoot: "/nonexistent/reach-test-sysfs", leaseRoot: nil, namespacePath: namespace.namespace.path,
        receiveBufferBytes: 4096))
}

/// 100 veth pairs at once, their last link named `last`.
private func burst(_ round: Int, last: String) -> [String] {
    (0..<99).map { "link add r\(round)p\($0)a type veth peer name r\(round)p\($0)b" } + ["link add \(last) type veth peer name \(last)b"]
}

@Suite("Overflow counts from the kernel", .enabled(if: TestNamespace.isSupported), .serialized)
struct KernelOverflowTests {
    /// The counter is the watcher's, read from memory, and survives the netlink thread: it is
    /// kept when the last iterator ends and the next run adds to it.
    @Test func overflowsAreCountedAndKeptAcrossRuns() async throws {
        let ns = try TestNamespace()
        let monitor = smallBufferMonitor(ns)
        let metrics = ReachMetrics(monitorStatistics: { monitor.statistics })
        let recorder = PathRecorder(monitor.paths)
        _ = try await recorder.wait { _ in true }
        // One burst overflows a 4 KiB buffer in practice; a few more make it certain.
        for round in 0..<5 where monitor.statistics.overflows == 0 {
            let last = "last\(round)"
            try ns.ipBatch(burst(round, last: last))
            _ = try await recorder.wait { $0.interface(named: last) != nil }
        }
        let counted = monitor.statistics.overflows
        #expect(counted >= 1)
        // A late overflow of the last burst may land between the two reads: bounded both ways.
        let shown = Exposition(metrics.render()).family("reach_netlink_overflows_total")["reach_netlink_overflows_total"] ?? -1
        #expect(shown >= Double(counted) && shown <= Double(monitor.statistics.overflows), "\(shown) vs \(counted)")
        await recorder.cancel()
        #expect(monitor.statistics.overflows >= counted)

        let second = PathRecorder(monitor.paths)
        _ = try await second.wait { _ in true }
        #expect(monitor.statistics.overflows >= counted)
        await second.cancel()
        let rendered = Exposition(metrics.render()).family("reach_netlink_overflows_total")["reach_netlink_overflows_total"]
        #expect(rendered ?? 0 >= Double(counted))
    }
}
