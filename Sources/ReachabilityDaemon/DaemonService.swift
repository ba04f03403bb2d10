import Foundation
import Logging
import Reachability
import ReachabilityControl
import ReachabilityMetrics
import ReachabilitySystemd
import ServiceLifecycle

/// The daemon's loops, as one service: the control server (and the TCP metrics server), the
/// path feed, the `STATUS=` line and the watchdog. On graceful shutdown they are cancelled and
/// the queue checkpoints its jobs.
struct DaemonService: Service {
    let configuration: DaemonConfiguration
    let monitor: NetworkMonitor
    let queue: JobQueue
    let paths: PathFeed
    let metrics: ReachMetrics
    let notifier: SystemdNotifier?
    let logger: Logger

    func run() async throws {
        let api = QueueAPI(queue: queue, paths: paths, metrics: metrics)
        let control = ControlServer(address: .unix(configuration.socketPath), authorize: ControlServer.sameUserOrRoot()) { await api.handle($0) }
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await control.run { address in
                            self.logger.notice("listening on \(address); state in \(self.configuration.stateDirectory)")
                            try? self.notifier?.ready(status: self.statusLine())
                        }
                    }
                    if let listen = configuration.metricsListen {
                        group.addTask { try await metricsServer(listen).run { address in self.logger.notice("metrics on http://\(address)/metrics") } }
                    }
                    group.addTask { await followPaths() }
                    if notifier != nil { group.addTask { await reportStatus() } }
                    if let notifier, let watchdog = notifier.watchdogSettings {
                        group.addTask { await pingWatchdog(notifier, every: watchdog.pingInterval) }
                    }
                    // Until cancelled (a graceful shutdown), or until the control server fails.
                    try await group.waitForAll()
                }
            }
        } catch is CancellationError {
            // Shut down gracefully.
        }
        try? notifier?.stopping(status: "stopping: checkpointing \(queue.counts()[.running] ?? 0) running job(s)")
        await queue.shutdown()
        logger.notice("stopped")
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

    private func followPaths() async {
        do {
            for try await path in monitor.paths {
                paths.publish(path)
                metrics.observe(path)
                try? notifier?.status(statusLine())
            }
        } catch {
            logger.error("the network monitor stopped: \(error)")
        }
    }

    /// `STATUS=` whenever the one-line summary changes.
    private func reportStatus() async {
        guard let notifier else { return }
        var last = ""
        var seen: [Int64: String] = [:]
        for await job in queue.events() {
            // Progress events come many times a second; the line changes only with a state or reason.
            let key = "\(job.state) \(job.reason?.code ?? "")"
            if seen[job.id] == key { continue }
            seen[job.id] = key
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
