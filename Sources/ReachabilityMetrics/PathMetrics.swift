import CoreMetrics
import ReachabilityCore

/// The path series: status state set, cost, one info series per interface, and the changes.
struct PathMetrics {
    private let factory: any MetricsFactory
    private let statusGauges: [NetworkPath.Status: Gauge]
    private let expensive: Gauge
    private let connectivityGauges: [Connectivity: Gauge]
    private let changes: Counter
    private var interfaceGauges: [PathShape.InterfaceSeries: Gauge] = [:]
    private var previous: PathShape?

    /// Every status series at 0 and no interface series: nothing is known before the first path.
    init(factory: any MetricsFactory) {
        self.factory = factory
        var statusGauges: [NetworkPath.Status: Gauge] = [:]
        for status in NetworkPath.Status.allCases {
            let gauge = Gauge(label: MetricDescription.pathStatus.name, dimensions: [("status", status.rawValue)], factory: factory)
            gauge.record(0)
            statusGauges[status] = gauge
        }
        self.statusGauges = statusGauges
        expensive = Gauge(label: MetricDescription.pathExpensive.name, factory: factory)
        expensive.record(0)
        var connectivityGauges: [Connectivity: Gauge] = [:]
        for connectivity in Connectivity.all {
            let gauge = Gauge(
                label: MetricDescription.pathConnectivity.name, dimensions: [("connectivity", connectivity.rawValue)], factory: factory)
            gauge.record(connectivity == .unknown ? 1 : 0)
            connectivityGauges[connectivity] = gauge
        }
        self.connectivityGauges = connectivityGauges
        changes = Counter(label: MetricDescription.pathChanges.name, factory: factory)
    }

    mutating func observe(_ path: NetworkPath) {
        let shape = PathShape(path)
        for (connectivity, gauge) in connectivityGauges { gauge.record(connectivity == path.connectivity ? 1 : 0) }
        guard shape != previous else { return }
        if previous != nil { changes.increment() }
        previous = shape
        for (status, gauge) in statusGauges { gauge.record(status == shape.status ? 1 : 0) }
        expensive.record(shape.isExpensive ? 1 : 0)
        updateInterfaces(shape.interfaces)
    }

    /// Unregisters the series of interfaces that went (or changed type or cost) and registers
    /// the new ones: a scrape never shows an interface the path no longer has.
    private mutating func updateInterfaces(_ current: Set<PathShape.InterfaceSeries>) {
        for (series, gauge) in interfaceGauges where !current.contains(series) {
            gauge.destroy()
            interfaceGauges[series] = nil
        }
        for series in current where interfaceGauges[series] == nil {
            let gauge = Gauge(label: MetricDescription.interfaceInfo.name, dimensions: series.dimensions, factory: factory)
            gauge.record(1)
            interfaceGauges[series] = gauge
        }
    }
}
