import CoreMetrics
import ReachabilityTransfers

/// `reach_jobs{state}`: the queue's jobs by state. The six states of the daemon's queue are
/// always present (0 when empty), so a dashboard never sees a series vanish; a state name
/// outside them is shown too once given, and falls to 0 when a later count leaves it out.
struct JobMetrics {
    /// The job states (``JobStatus/all``), always present.
    static let states = JobStatus.all.map(\.rawValue)

    private let factory: any MetricsFactory
    private var gauges: [String: Gauge] = [:]

    init(factory: any MetricsFactory) {
        self.factory = factory
        for state in Self.states { gauge(state).record(0) }
    }

    mutating func set(_ counts: [String: Int]) {
        for state in counts.keys where gauges[state] == nil { _ = gauge(state) }
        for (state, gauge) in gauges { gauge.record(counts[state] ?? 0) }
    }

    private mutating func gauge(_ state: String) -> Gauge {
        if let gauge = gauges[state] { return gauge }
        let gauge = Gauge(label: MetricDescription.jobs.name, dimensions: [("state", state)], factory: factory)
        gauges[state] = gauge
        return gauge
    }
}
