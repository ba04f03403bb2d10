import Foundation
import ReachabilityCore
import ReachabilityMetrics
import ReachabilityTestKit
import Testing

/// A real Prometheus scrapes what ``ReachMetrics/render()`` writes: the text parses, label
/// escaping round-trips, and updates show in later scrapes. Under CI=true a missing
/// Prometheus fails the test instead of skipping it.
@Suite(
    "A real Prometheus scraping the metrics",
    .enabled(if: ProcessInfo.processInfo.environment["CI"] == "true" || PrometheusServer.isAvailable), .serialized)
struct PrometheusScrapeTests {
    @Test func prometheusReadsEveryFamilyAndTheEscapedLabels() async throws {
        let endpoint = try MetricsFileServer()
        defer { endpoint.stop() }
        let metrics = PromtoolInput.busyMetrics()
        try endpoint.publish(metrics.render())

        try await PrometheusServer.with(scraping: "127.0.0.1:\(endpoint.port)") { prometheus in
            let status = try await prometheus.waitForResult("reach_path_status == 1")
            #expect(status.map { $0.labels["status"] } == ["cellular"])
            let interfaces = try await prometheus.waitForResult("reach_interface_info")
            #expect(Set(interfaces.map { $0.labels["name"] ?? "-" }) == ["lo", "wwan0"])
            let bytes = try await prometheus.waitForResult(#"reach_transfer_bytes_total{direction="download"}"#)
            #expect(bytes.map(\.value) == ["123456"])
            let paused = try await prometheus.waitForResult("reach_job_paused_seconds_total")
            #expect(Set(paused.compactMap { $0.labels["reason"] }) == ["expensive", #"rule "metered\roaming""# + "\nsecond line"])
            #expect(try await prometheus.waitForResult("reach_netlink_overflows_total").map(\.value) == ["3"])
        }
    }

    @Test func aLaterScrapeSeesTheNewPathAndNoStaleInterface() async throws {
        let endpoint = try MetricsFileServer()
        defer { endpoint.stop() }
        let metrics = ReachMetrics()
        metrics.observe(PathFixtures.wifi)
        try endpoint.publish(metrics.render())

        try await PrometheusServer.with(scraping: "127.0.0.1:\(endpoint.port)") { prometheus in
            _ = try await prometheus.waitForResult(#"reach_path_status{status="wifi"} == 1"#)
            metrics.observe(PathFixtures.offline)
            try endpoint.publish(metrics.render())
            _ = try await prometheus.waitForResult(#"reach_path_status{status="unreachable"} == 1"#)
            // A series missing from a scrape is marked stale at once: wlan0 is gone from the query.
            let interfaces = try prometheus.query("reach_interface_info")
            #expect(interfaces.map { $0.labels["name"] } == ["lo"])
            #expect(try prometheus.query("reach_path_changes_total").map(\.value) == ["1"])
        }
    }
}
