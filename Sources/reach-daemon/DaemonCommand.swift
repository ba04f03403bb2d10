import ArgumentParser
import FoundationEssentials
import Logging
import ReachCommands
import Reachability
import ReachabilityCore
import ReachabilityDaemon

/// `reach daemon`: the persistent job queue as a service.
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the persistent, network-gated job queue (systemd Type=notify service).",
        discussion: """
            State (queue.sqlite, upload resume records, command logs) goes to --state-dir: \
            $STATE_DIRECTORY under systemd's StateDirectory=, else /var/lib/reach as root, else \
            $XDG_STATE_HOME/reach. The control API listens on --socket: REACH_SOCKET when set \
            (for the clients too), else reach.sock in $RUNTIME_DIRECTORY under systemd's \
            RuntimeDirectory=, else /run/reach/reach.sock as root, else \
            $XDG_RUNTIME_DIR/reach/reach.sock; only this user and root are served. \
            --path-socket (default: path.sock beside it, mode 0666) serves every local user the \
            path, its changes and per-destination answers, read-only; no jobs. SIGTERM or SIGINT \
            checkpoints running transfers and exits 0.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("The daemon's state directory.", valueName: "DIR"))
    var stateDirectory: String?

    @Option(help: ArgumentHelp("The control socket.", valueName: "PATH"))
    var socket: String?

    @Option(
        name: .customLong("path-socket"),
        help: ArgumentHelp("The read-only path socket for every local user, or 'none' (default: path.sock beside --socket).", valueName: "PATH"))
    var pathSocket: String?

    @Option(
        name: .customLong("dispatcher-dir"),
        help: ArgumentHelp(
            "Run the executables here on each path change, or 'none' (default: /etc/reach/dispatcher.d as root, else $XDG_CONFIG_HOME/reach/dispatcher.d).",
            valueName: "DIR"))
    var dispatcherDirectory: String?

    @Option(name: .customLong("dispatcher-timeout"), help: ArgumentHelp("Seconds a hook may run before it is killed (1-3600).", valueName: "SECONDS"))
    var dispatcherTimeout = 60

    @Option(name: .customLong("metrics-listen"), help: ArgumentHelp("Also serve /metrics over TCP here (e.g. 127.0.0.1:9850).", valueName: "HOST:PORT"))
    var metricsListen: String?

    @Option(
        name: .customLong("count-interval"),
        help: ArgumentHelp(
            "Seconds between readings of the interfaces' byte counters for data budgets (one link dump each) and checkpoints of the counts (1-3600).",
            valueName: "SECONDS"))
    var countInterval = 60

    @Option(name: .customLong("per-host"), help: "Transfers at once against one host (1-64).")
    var perHost = 2

    @Option(
        name: .customLong("max-running"),
        help: "Transfers at once in all (1-256). The daemon raises its soft limit of open descriptors when they may need more.")
    var maxRunning = 8

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "The least severe messages logged: trace, debug, info (adds retries, successes and path changes), notice, warning (job failures), error or critical (default: REACH_LOG_LEVEL, else notice).",
            valueName: "LEVEL"))
    var logLevel: String?

    func validate() throws {
        _ = try LogLevelOption.parse(option: logLevel, environment: ProcessInfo.processInfo.environment)
        try OptionChecks.check(perHost, option: "--per-host", in: 1...64, unit: "transfers")
        try OptionChecks.check(maxRunning, option: "--max-running", in: 1...256, unit: "transfers")
        try OptionChecks.check(countInterval, option: "--count-interval", in: 1...3600, unit: "seconds")
        if let stateDirectory, !stateDirectory.hasPrefix("/") { throw ValidationError("--state-dir must be an absolute path") }
        if let socket, !socket.hasPrefix("/") { throw ValidationError("--socket must be an absolute path") }
        if let pathSocket, pathSocket != "none", !pathSocket.hasPrefix("/") { throw ValidationError("--path-socket must be an absolute path or 'none'") }
        if let pathSocket, pathSocket == (socket ?? DaemonPaths.serviceSocket()) { throw ValidationError("--path-socket must differ from the control socket") }
        if let metricsListen { _ = try MetricsAddress.parse(metricsListen) }
        try OptionChecks.check(dispatcherTimeout, option: "--dispatcher-timeout", in: 1...3600, unit: "seconds")
        if let dispatcherDirectory, dispatcherDirectory != "none", !dispatcherDirectory.hasPrefix("/") {
            throw ValidationError("--dispatcher-dir must be an absolute path or 'none'")
        }
    }

    func run() async throws {
        let monitor: NetworkMonitor
        let budgets: [ConfiguredBudget]
        do {
            monitor = try global.monitor(counterInterval: .seconds(countInterval))
            budgets = try global.configuredBudgets()
        } catch {
            throw failure(error)
        }
        var configuration = DaemonConfiguration(
            stateDirectory: stateDirectory ?? DaemonPaths.serviceStateDirectory(), socketPath: socket ?? DaemonPaths.serviceSocket())
        if let dispatcherDirectory { configuration.dispatcherDirectory = dispatcherDirectory == "none" ? nil : dispatcherDirectory }
        configuration.dispatcherTimeout = .seconds(dispatcherTimeout)
        if let pathSocket { configuration.pathSocketPath = pathSocket == "none" ? nil : pathSocket }
        configuration.metricsListen = try metricsListen.map(MetricsAddress.parse).map { DaemonConfiguration.ListenAddress(host: $0.host, port: $0.port) }
        configuration.perHost = perHost
        configuration.maxRunning = maxRunning
        configuration.countInterval = .seconds(countInterval)
        configuration.configuredBudgets = budgets
        configuration.logLevel = try LogLevelOption.parse(option: logLevel, environment: ProcessInfo.processInfo.environment)
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

/// `--log-level`, else `REACH_LOG_LEVEL`, else `notice`: swift-log's level names.
enum LogLevelOption {
    static func parse(option: String?, environment: [String: String]) throws -> Logger.Level {
        let (text, source) = option.map { ($0, "--log-level") } ?? (environment["REACH_LOG_LEVEL"].map { ($0, "REACH_LOG_LEVEL") } ?? ("notice", ""))
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("\(source): expected one of \(names), not '\(text.prefix(64))'")
        }
        return level
    }
}
