import ReachabilityMetrics
import Testing

@Suite("Job and transfer metrics")
struct QueueMetricsTests {
    static let states = ["pending", "running", "paused", "succeeded", "failed", "cancelled"]

    static func jobSeries(_ counts: [String: Double]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: counts.map { ("reach_jobs{state=\"\($0.key)\"}", $0.value) })
    }

    @Test func allSixJobStatesArePresentAtZeroFromTheStart() {
        let jobs = Exposition(ReachMetrics().render()).family("reach_jobs")
        #expect(jobs == Self.jobSeries(Dictionary(uniqueKeysWithValues: Self.states.map { ($0, 0) })))
    }

    @Test(arguments: [
        ("two running, one paused", ["running": 2, "paused": 1], ["running": 2.0, "paused": 1.0]),
        ("every state", ["pending": 5, "running": 1, "paused": 2, "succeeded": 40, "failed": 3, "cancelled": 4],
         ["pending": 5.0, "running": 1.0, "paused": 2.0, "succeeded": 40.0, "failed": 3.0, "cancelled": 4.0]),
        ("an empty queue", [:], [:]),
    ] as [(String, [String: Int], [String: Double])])
    func jobCountsSetTheirStatesAndZeroTheOthers(_ label: String, _ counts: [String: Int], _ expected: [String: Double]) {
        let metrics = ReachMetrics()
        metrics.setJobCounts(["pending": 9, "succeeded": 9])  // replaced wholly by the next counts
        metrics.setJobCounts(counts)
        var all = Dictionary(uniqueKeysWithValues: Self.states.map { ($0, 0.0) })
        all.merge(expected) { $1 }
        #expect(Exposition(metrics.render()).family("reach_jobs") == Self.jobSeries(all), "\(label)")
    }

    @Test func aStateOutsideTheSixIsShownAndThenFallsToZero() {
        let metrics = ReachMetrics()
        metrics.setJobCounts(["verifying": 1])
        #expect(Exposition(metrics.render()).family("reach_jobs")["reach_jobs{state=\"verifying\"}"] == 1)
        metrics.setJobCounts([:])
        #expect(Exposition(metrics.render()).family("reach_jobs")["reach_jobs{state=\"verifying\"}"] == 0)
    }

    @Test func transferredBytesAddUpByDirectionAndNetworkType() {
        let metrics = ReachMetrics()
        #expect(Exposition(metrics.render()).family("reach_transfer_bytes_total").isEmpty)
        metrics.addTransferredBytes(1_000, direction: "download", networkType: "wifi")
        metrics.addTransferredBytes(24, direction: "download", networkType: "wifi")
        metrics.addTransferredBytes(5_000_000_000, direction: "download", networkType: "cellular")
        metrics.addTransferredBytes(7, direction: "upload", networkType: "wifi")
        metrics.addTransferredBytes(0, direction: "upload", networkType: "wired")  // creates the series
        metrics.addTransferredBytes(-5, direction: "upload", networkType: "wifi")  // ignored: counters only rise
        #expect(Exposition(metrics.render()).family("reach_transfer_bytes_total") == [
            "reach_transfer_bytes_total{direction=\"download\",network_type=\"wifi\"}": 1_024,
            "reach_transfer_bytes_total{direction=\"download\",network_type=\"cellular\"}": 5_000_000_000,
            "reach_transfer_bytes_total{direction=\"upload\",network_type=\"wifi\"}": 7,
            "reach_transfer_bytes_total{direction=\"upload\",network_type=\"wired\"}": 0,
        ])
    }

    @Test func pausedSecondsAddUpByReason() {
        let metrics = ReachMetrics()
        metrics.addPausedSeconds(1.5, reason: "expensive")
        metrics.addPausedSeconds(2.25, reason: "expensive")
        metrics.addPausedSeconds(10, reason: "offline")
        metrics.addPausedSeconds(0, reason: "user")
        metrics.addPausedSeconds(-1, reason: "offline")
        metrics.addPausedSeconds(.nan, reason: "offline")
        metrics.addPausedSeconds(.infinity, reason: "offline")
        #expect(Exposition(metrics.render()).family("reach_job_paused_seconds_total") == [
            "reach_job_paused_seconds_total{reason=\"expensive\"}": 3.75,
            "reach_job_paused_seconds_total{reason=\"offline\"}": 10,
            "reach_job_paused_seconds_total{reason=\"user\"}": 0,
        ])
    }

    /// Linux interface names cannot hold a quote or a backslash, but reasons and types come
    /// from callers: the text format escapes `\`, `"` and line feeds in label values.
    @Test func labelValuesAreEscaped() {
        let metrics = ReachMetrics()
        metrics.addPausedSeconds(1, reason: #"rule "metered\roaming""# + "\nsecond line")
        metrics.addTransferredBytes(1, direction: "download", networkType: #"a\b"#)
        let text = metrics.render()
        #expect(text.contains(#"reach_job_paused_seconds_total{reason="rule \"metered\\roaming\"\nsecond line"} 1.0"#))
        #expect(text.contains(#"reach_transfer_bytes_total{direction="download",network_type="a\\b"} 1"#))
    }
}
