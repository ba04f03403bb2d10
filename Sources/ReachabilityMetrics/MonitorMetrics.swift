import CoreMetrics
import Reachability

/// `reach_netlink_overflows_total` and `reach_netlink_stats_dumps_total`, following the monitor's own counter: the monitor counts in
/// memory, and each render adds what it counted since the previous one.
struct MonitorMetrics {
    private let overflows: Counter
    private let counterDumps: Counter
    private var counted = MonitorStatistics()

    init(factory: any MetricsFactory) {
        overflows = Counter(label: MetricDescription.netlinkOverflows.name, factory: factory)
        counterDumps = Counter(label: MetricDescription.counterDumps.name, factory: factory)
    }

    mutating func update(_ statistics: MonitorStatistics) {
        // The monitor's totals never decrease; a smaller value (another monitor) adds nothing.
        if statistics.overflows > counted.overflows {
            overflows.increment(by: statistics.overflows - counted.overflows)
            counted.overflows = statistics.overflows
        }
        if statistics.counterDumps > counted.counterDumps {
            counterDumps.increment(by: statistics.counterDumps - counted.counterDumps)
            counted.counterDumps = statistics.counterDumps
        }
    }
}
