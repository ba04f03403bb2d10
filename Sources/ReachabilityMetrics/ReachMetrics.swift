import Prometheus
public import Reachability
public import ReachabilityCore
import Synchronization

/// The daemon's fleet metrics, kept in memory and written in the Prometheus text format.
///
/// Everything is pushed in as it happens: paths from the monitor's stream (``observe(_:)``),
/// job counts when the queue changes (``setJobCounts(_:)``), bytes and pauses as transfers
/// report them. ``render()`` only serialises what is held, plus an in-memory read of the
/// monitor's counters: a scrape reads no sysfs and asks netlink nothing, so scraping often
/// costs the host nothing it would notice.
///
/// ```swift
/// let metrics = ReachMetrics(monitorStatistics: { monitor.statistics })
/// for try await path in monitor.paths { metrics.observe(path) }
/// // On GET /metrics: respond with metrics.render(), Content-Type ReachMetrics.contentType.
/// ```
///
/// Each instance has a registry of its own (swift-metrics types over a swift-prometheus
/// `PrometheusCollectorRegistry`); the global `MetricsSystem` is neither bootstrapped nor used.
/// The order of families and series in the output is unspecified, as the format allows.
public final class ReachMetrics: Sendable {
    /// The media type of ``render()``'s text: Prometheus text exposition format 0.0.4.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private struct Series {
        var path: PathMetrics
        var jobs: JobMetrics
        var transfers: TransferMetrics
        var monitor: MonitorMetrics
        var budgets: BudgetMetrics
    }

    private let registry = PrometheusCollectorRegistry()
    private let monitorStatistics: @Sendable () -> MonitorStatistics
    private let jobCounts = Mutex<(@Sendable () -> [String: Int])?>(nil)
    /// One lock for every update and for rendering, so a scrape never sees half of a path
    /// change (an interface's series removed and its successor not yet added).
    private let series: Mutex<Series>

    /// Metrics with every always-present series at 0: the path's status set and cost, the six
    /// job states, the changes and overflow counters.
    /// - Parameter monitorStatistics: the monitor's counters, read on each render; it must read
    ///   memory only (`{ monitor.statistics }` does). The default reports none.
    public init(monitorStatistics: @escaping @Sendable () -> MonitorStatistics = { MonitorStatistics() }) {
        self.monitorStatistics = monitorStatistics
        let factory = DescribedPrometheusFactory(registry: registry)
        series = Mutex(Series(
            path: PathMetrics(factory: factory), jobs: JobMetrics(factory: factory), transfers: TransferMetrics(factory: factory),
            monitor: MonitorMetrics(factory: factory), budgets: BudgetMetrics(factory: factory)))
    }

    /// Takes in a path from the monitor: sets the status, cost and interface series, and counts
    /// a change when its status, cost or interfaces (name, type, cost) differ from the previous
    /// path's. The first path is not a change; a path equal in those respects is ignored.
    public func observe(_ path: NetworkPath) {
        series.withLock { $0.path.observe(path) }
    }

    /// Reads `reach_jobs{state}` from `counts` on each ``render()``: the queue's counts are
    /// computed when scraped, never kept in step with every change.
    public func countJobs(with counts: @escaping @Sendable () -> [String: Int]) {
        jobCounts.withLock { $0 = counts }
    }

    /// Sets `reach_jobs{state}` from the queue's counts by state name (`pending`, `running`,
    /// `paused`, `succeeded`, `failed`, `cancelled`); a state left out is 0.
    public func setJobCounts(_ counts: [String: Int]) {
        series.withLock { $0.jobs.set(counts) }
    }

    /// Sets the data budgets' series from every budget now, by name: used and limit bytes, the
    /// state (`ok`, `warning`, `exhausted`, `snoozed`) and the cycle's end (seconds since 1970,
    /// nil for none). A budget left out has its series removed.
    public func setBudgets(_ budgets: [(name: String, usedBytes: Int64, limitBytes: Int64, state: String, cycleEnd: Int64?)]) {
        let values = budgets.map {
            BudgetMetrics.Budget(name: $0.name, usedBytes: $0.usedBytes, limitBytes: $0.limitBytes, state: $0.state, cycleEnd: $0.cycleEnd)
        }
        series.withLock { $0.budgets.set(values) }
    }

    /// Adds `bytes` to `reach_transfer_bytes_total{direction, network_type}`. A negative count
    /// is ignored; 0 creates the series, so that the first real bytes show in `increase()`.
    /// - Parameters:
    ///   - direction: `download` or `upload`.
    ///   - networkType: the type of the network that carried them (a path status, `wifi`).
    public func addTransferredBytes(_ bytes: Int64, direction: String, networkType: String) {
        series.withLock { $0.transfers.addBytes(bytes, direction: direction, networkType: networkType) }
    }

    /// Adds `seconds` to `reach_job_paused_seconds_total{reason}`. A negative or non-finite
    /// duration is ignored; 0 creates the series.
    public func addPausedSeconds(_ seconds: Double, reason: String) {
        series.withLock { $0.transfers.addPausedSeconds(seconds, reason: reason) }
    }

    /// Every series in the Prometheus text exposition format 0.0.4 (``contentType``), with
    /// `# HELP` and `# TYPE` lines and label values escaped.
    public func render() -> String {
        let statistics = monitorStatistics()
        let counts = jobCounts.withLock { $0 }?()
        return series.withLock { series in
            if let counts { series.jobs.set(counts) }
            series.monitor.update(statistics)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(4096)
            registry.emit(into: &buffer)
            return String(decoding: buffer, as: UTF8.self)
        }
    }
}
