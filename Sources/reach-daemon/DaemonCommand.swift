import ArgumentParser
import Foundation
import ReachCommands
import Reachability
import ReachabilityDaemon

/// `reach daemon`: the persistent job queue as a service.
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the persistent, network-gated job queue (systemd Type=notify service).",
        discussion: """
            State (queue.sqlite, upload resume records, command logs) goes to --state-dir: \
            /var/lib/reach as root, else $XDG_STATE_HOME/reach. The control API listens on \
            --socket: /run/reach/reach.sock as root, else $XDG_RUNTIME_DIR/reach/reach.sock; only \
            this user and root are served. SIGTERM or SIGINT checkpoints running transfers and exits 0.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("The daemon's state directory.", valueName: "DIR"))
    var stateDirectory: String?

    @Option(help: ArgumentHelp("The control socket.", valueName: "PATH"))
    var socket: String?

    @Option(name: .customLong("metrics-listen"), help: ArgumentHelp("Also serve /metrics over TCP here (e.g. 127.0.0.1:9850).", valueName: "HOST:PORT"))
    var metricsListen: String?

    @Option(name: .customLong("per-host"), help: "Transfers at once against one host (1-64).")
    var perHost = 2

    @Option(name: .customLong("max-running"), help: "Transfers at once in all (1-256).")
    var maxRunning = 8

    func validate() throws {
        try OptionChecks.check(perHost, option: "--per-host", in: 1...64, unit: "transfers")
        try OptionChecks.check(maxRunning, option: "--max-running", in: 1...256, unit: "transfers")
        if let stateDirectory, !stateDirectory.hasPrefix("/") { throw ValidationError("--state-dir must be an absolute path") }
        if let socket, !socket.hasPrefix("/") { throw ValidationError("--socket must be an absolute path") }
        if let metricsListen { _ = try MetricsAddress.parse(metricsListen) }
    }

    func run() async throws {
        let monitor: NetworkMonitor
        do { monitor = try global.monitor() } catch { throw failure(error) }
        var configuration = DaemonConfiguration(
            stateDirectory: stateDirectory ?? DaemonPaths.stateDirectory(), socketPath: socket ?? DaemonPaths.socket())
        configuration.metricsListen = try metricsListen.map(MetricsAddress.parse).map { DaemonConfiguration.ListenAddress(host: $0.host, port: $0.port) }
        configuration.perHost = perHost
        configuration.maxRunning = maxRunning
        do {
            try await ReachDaemon(configuration: configuration, monitor: monitor).run()
        } catch {
            printError("reach daemon: \(error)")
            throw ExitCode(1)
        }
    }
}

/// `HOST:PORT` of `--metrics-listen`.
enum MetricsAddress {
    static func parse(_ text: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--metrics-listen: expected HOST:PORT with a port in 0-65535, not '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("--metrics-listen: no host in '\(text)' (127.0.0.1:9850 listens on loopback)") }
        return (host, port)
    }
}
