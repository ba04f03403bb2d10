import ReachabilityTransfers
import FoundationEssentials
import Logging
import Reachability
import ReachabilityControl
import ReachabilityMetrics
import ReachabilitySystemd
import ServiceLifecycle
import Synchronization

/// The daemon's loops, as one service: the control server (and the TCP metrics server), the
/// path feed, the `STATUS=` line and the watchdog. On graceful shutdown they are cancelled and
/// the queue checkpoints its jobs.
struct DaemonService: Service {
    let configuration: DaemonConfiguration
    let monitor: NetworkMonitor
    let queue: JobQueue
    let paths: PathFeed
    let metrics: ReachMetrics
    let budgets: BudgetKeeper
    let notifier: SystemdNotifier?
    let logger: Logger

    func run() async throws {
        let dispatcher = configuration.dispatcherDirectory.map {
            Dispatcher(directory: $0, timeout: configuration.dispatcherTimeout, socketPath: configuration.socketPath, logger: logger)
        }
        let pathAPI = {
            let lookup = DestinationLookup(monitor: monitor)
            var api = PathAPI(paths: paths, destination: { host, caller in try await lookup.network(to: host, caller: caller) })
            // A budget's state on the path rests on the bytes moved until now, not an interval ago.
            api.freshPath = { [budgets, monitor] in
                guard budgets.hasBudgets else { return nil }
                await budgets.refresh()
                return try? await monitor.currentPath()
            }
            return api
        }()
        let api = {
            var api = QueueAPI(queue: queue, paths: paths, metrics: metrics, pathAPI: pathAPI)
            api.budgetAPI = BudgetAPI(keeper: budgets)
            return api
        }()
        if let dispatcher { budgets.onTransition.withLock { $0 = { dispatcher.budgetChanged($0) } } }
        // A directory shared with the path socket must let every user reach that socket; the
        // control socket itself stays 0600.
        let sharesDirectory = configuration.pathSocketPath.map {
            DaemonConfiguration.directory(of: $0) == DaemonConfiguration.directory(of: configuration.socketPath)
        } ?? false
        let control = ControlServer(
            address: .unix(configuration.socketPath), access: sharesDirectory ? .ownerBesidePublic : .owner,
            authorize: ControlServer.sameUserOrRoot()
        ) { await api.handle($0) }
        // Each listener says when it is bound; jobs are taken up only once all are, so a
        // listener that cannot be set up stops the daemon before any job has run.
        let (bound, isBound) = AsyncStream.makeStream(of: Void.self)
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await control.run { address in
                            self.logger.notice("listening on \(address); state in \(self.configuration.stateDirectory)")
                            isBound.yield()
                        }
                    }
                    if let pathSocket = configuration.pathSocketPath {
                        group.addTask {
                            var shared = pathAPI
                            shared.audience = .everyone
                            try await pathServer(pathSocket, api: shared).run { address in
                                self.logger.notice("path for every user on \(address)")
                                isBound.yield()
                            }
                        }
                    }
                    if let listen = configuration.metricsListen {
                        group.addTask {
                            try await metricsServer(listen).run { address in
                                self.logger.notice("metrics on http://\(address)/metrics")
                                isBound.yield()
                            }
                        }
                    }
                    group.addTask {
                        var count = 0
                        for await _ in bound {
                            count += 1
                            if count == configuration.listenerCount { break }
                        }
                        try Task.checkCancellation()
                        try queue.start()
                        try? self.notifier?.ready(status: self.statusLine())
                    }
                    group.addTask { await followPaths(dispatcher) }
                    group.addTask { await budgets.run(every: configuration.countInterval) }
                    if let dispatcher { group.addTask { await dispatcher.run() } }
                    if notifier != nil { group.addTask { await reportStatus() } }
                    if let notifier, let watchdog = notifier.watchdogSettings {
                        group.addTask { await pingWatchdog(notifier, every: watchdog.pingInterval) }
                    }
                    // Until cancelled (a graceful shutdown), or until a listener or the queue fails:
                    // the first error ends the group, cancelling the rest (waitForAll would wait
                    // for every task first, and the path follower never ends on its own).
                    for try await _ in group {}
                }
            }
        } catch is CancellationError {
            // Shut down gracefully.
        }
        logger.debug("stopping: checkpointing the queue")
        try? notifier?.stopping(status: "stopping: checkpointing \(queue.counts()[.running] ?? 0) running job(s)")
        await queue.shutdown()
        await budgets.shutdown()
        logger.notice("stopped")
    }

    /// What the path socket serves at once: every GLib program of every user holds a stream,
    /// so more than the control socket, and a share per user (64) so none locks out the rest.
    static let pathSocketLimits = ControlServer.Limits(maxConnections: 512, maxConnectionsPerUser: 64)

    /// The path socket: every local user may connect, and only the path is served there.
    private func pathServer(_ path: String, api: PathAPI) -> ControlServer {
        ControlServer(address: .unix(path), limits: Self.pathSocketLimits, access: .everyone, authorize: ControlServer.allowEveryone) { request in
            if let answer = await api.handle(request) { return answer }
            return QueueAPI.failure(
                403, "forbidden", "only /v1/path, /v1/path/events and /v1/route are served on this socket; jobs need the control socket")
        }
    }

    /// `/metrics` only, for every TCP client (Prometheus).
    private func metricsServer(_ listen: DaemonConfiguration.ListenAddress) -> ControlServer {
        let metrics = self.metrics
        return ControlServer(address: .tcp(host: listen.host, port: listen.port), authorize: ControlServer.allowEveryone) { request in
            guard request.method == "GET", request.path == "/metrics" else {
                return .text(status: 404, "only GET /metrics is served here\n")
            }
            return .text(status: 200, metrics.render(), contentType: ReachMetrics.contentType)
        }
    }

    private func followPaths(_ dispatcher: Dispatcher?) async {
        do {
            var told: String?
            for try await path in monitor.paths {
                paths.publish(path)
                let words = paths.latestSummary()
                if let line = DaemonLogLines.path(words, previous: told) { logger.log(level: line.level, "\(line.text)") }
                told = words
                dispatcher?.pathChanged(path)
                metrics.observe(path)
                try? notifier?.status(statusLine())
            }
        } catch {
            logger.error("the network monitor stopped: \(error)")
        }
    }

    /// `STATUS=` when the one-line summary changed, looked at once a second: the summary
    /// counts every job, which must not happen on each of a burst's thousands of changes.
    private func reportStatus() async {
        guard let notifier else { return }
        var last = statusLine()
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let line = statusLine()
            if line != last { try? notifier.status(line) }
            last = line
        }
    }

    /// A ping each `interval` while the queue's database answers; a wedged daemon stops pinging
    /// and systemd restarts it.
    private func pingWatchdog(_ notifier: SystemdNotifier, every interval: Duration) async {
        while !Task.isCancelled {
            if queue.isResponsive() { try? notifier.watchdog() }
            try? await Task.sleep(for: interval)
        }
    }

    func statusLine() -> String { "\(paths.latestSummary()); \(queue.summary())" }
}
