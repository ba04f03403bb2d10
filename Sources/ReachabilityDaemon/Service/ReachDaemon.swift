import ReachabilityTransfers
import FoundationEssentials
import Logging
public import Reachability
import ReachabilityControl
import ReachabilityCore
import ReachabilityMetrics
import ReachabilitySystemd
import ServiceLifecycle
import UnixSignals

/// `reach daemon`: the ``JobQueue`` as a service, composed of the network monitor, the control
/// API on a Unix socket (only this user and root served), Prometheus metrics from memory, and
/// systemd's notify protocol (`READY=1` once the first path and the queue are loaded and the
/// socket listens, `STATUS=`, `WATCHDOG=1`, `STOPPING=1`). SIGTERM or SIGINT stops it
/// gracefully: running transfers are checkpointed and ``run()`` returns. It raises its soft
/// limit of open descriptors when its settings need more than it has (``DescriptorLimit``).
public final class ReachDaemon: Sendable {
    /// What it runs with.
    public let configuration: DaemonConfiguration
    let monitor: NetworkMonitor

    /// A daemon over `monitor`.
    public init(configuration: DaemonConfiguration, monitor: NetworkMonitor) {
        self.configuration = configuration
        self.monitor = monitor
    }

    /// Runs until SIGTERM or SIGINT. Throws when it cannot start, before any job is taken up:
    /// the state directory, the socket or the metrics address is unusable, the database was
    /// written by a newer version, another daemon holds the state directory (the error names its pid),
    /// the queue database cannot be opened, the network cannot be read.
    public func run() async throws {
        var logger = Logger(label: "reach.daemon")
        logger.logLevel = configuration.logLevel
        let notifier = SystemdNotifier.takeFromEnvironment()
        try StateDirectory.prepare(configuration.stateDirectory)
        // Before the database is touched: a second daemon on this directory would run the
        // same jobs again.
        let lock = try StateDirectoryLock.acquire(in: configuration.stateDirectory)
        defer { lock.unlock() }
        // Each listener at its most: the control socket's (and the metrics listener's) limits,
        // the path socket's larger ones when it is served.
        let control = ControlServer.Limits()
        let path = DaemonService.pathSocketLimits
        let need = DescriptorLimit.need(
            maxRunning: configuration.maxRunning, listeners: configuration.listenerCount - (configuration.pathSocketPath == nil ? 0 : 1),
            connectionsPerListener: control.maxConnections + control.rootReserve)
            + (configuration.pathSocketPath == nil ? 0 : path.maxConnections + path.rootReserve)
        if let note = DescriptorLimit.apply(need: need) { logger.notice("\(note)") }
        let monitor = self.monitor
        let metrics = ReachMetrics(monitorStatistics: { monitor.statistics })
        let queue = try JobQueue(
            configuration: .init(
                stateDirectory: configuration.stateDirectory, perHost: configuration.perHost, maxRunning: configuration.maxRunning,
                commandRetryDelay: configuration.commandRetryDelay),
            monitor: monitor, observer: DaemonObserver(metrics: metrics, logger: logger))
        metrics.countJobs { Dictionary(uniqueKeysWithValues: queue.counts().map { ($0.key.rawValue, $0.value) }) }
        let paths = PathFeed()
        let first = try await monitor.currentPath()
        paths.publish(first)
        metrics.observe(first)
        // Before any job is judged: what the budgets leave applies from the first decision.
        let budgets = try BudgetKeeper(
            store: queue.store, monitor: monitor, metrics: metrics, logger: logger, configured: configuration.configuredBudgets,
            interfaces: first.interfaces, isTransferring: { (queue.counts()[.running] ?? 0) > 0 })
        // The queue is loaded and its jobs taken up by the service, once its listeners are bound.
        let service = DaemonService(
            configuration: configuration, monitor: monitor, queue: queue, paths: paths, metrics: metrics, budgets: budgets, notifier: notifier,
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// Feeds the queue's observations into the metrics and the log.
struct DaemonObserver: QueueObserver {
    let metrics: ReachMetrics
    let logger: Logger
    func transferred(_ bytes: Int64, direction: String, networkType: String) {
        metrics.addTransferredBytes(bytes, direction: direction, networkType: networkType)
    }
    func pausedTime(_ seconds: Double, reason: String) { metrics.addPausedSeconds(seconds, reason: reason) }
    func jobChanged(_ job: QueueJob, from previous: JobStatus, previousCode: String?) {
        guard let line = DaemonLogLines.job(job, from: previous, previousCode: previousCode) else { return }
        logger.log(level: line.level, "\(line.text)")
    }
}
