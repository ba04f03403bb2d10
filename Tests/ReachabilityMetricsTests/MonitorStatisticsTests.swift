import Reachability
import ReachabilityCore
import ReachabilityMetrics
import ReachabilityTestKit
import Synchronization
import Testing

@Suite("Netlink overflow metrics")
struct MonitorStatisticsTests {
    @Test func theOverflowCounterFollowsTheMonitorAndNeverGoesBack() {
        let overflows = Mutex(0)
        let metrics = ReachMetrics(monitorStatistics: { MonitorStatistics(overflows: overflows.withLock { $0 }) })
        let series = "reach_netlink_overflows_total"
        #expect(Exposition(metrics.render()).family(series) == [series: 0])
        overflows.withLock { $0 = 3 }
        #expect(Exposition(metrics.render()).family(series) == [series: 3])
        #expect(Exposition(metrics.render()).family(series) == [series: 3])
        overflows.withLock { $0 = 5 }
        #expect(Exposition(metrics.render()).family(series) == [series: 5])
        overflows.withLock { $0 = 2 }
        #expect(Exposition(metrics.render()).family(series) == [series: 5])
    }

    @Test func aMonitorOverAFakeSourceCountsNothing() async throws {
        let monitor = NetworkMonitor(source: FakeNetworkSource(), clock: ContinuousClock())
        #expect(monitor.statistics == MonitorStatistics())
        let recorder = PathRecorder(monitor.paths)
        _ = try await recorder.wait { _ in true }
        #expect(monitor.statistics == MonitorStatistics())
        await recorder.cancel()
    }
}
