import ArgumentParser
import ReachCommands
import Reachability
import ReachabilityCore

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the current path once.",
        discussion: """
            Exit status 0 when the network is reachable, 2 when it is not. Connectivity is not \
            validated unless --probe URL (or `probe = URL` in --config) is given: then every uplink \
            is probed once, within --probe-timeout, and the exit status is 0 only when the path's \
            connectivity is full. --explain says what was probed, when, and the answers.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the path as one JSON object.")
    var json = false

    @Flag(help: "After the summary, say why: the egress interface's Wi-Fi facts and every signal behind its type and cost, then how connectivity was judged (each probe, its answer and when).")
    var explain = false

    @Flag(
        name: .customLong("daemon"),
        help: "Print the path the daemon judges its jobs by (its overrides, validation and data budgets), read from its path socket, as `reach queue path` does.")
    var fromDaemon = false

    @Option(
        help: ArgumentHelp(
            "With --daemon: the daemon's control socket (default: REACH_SOCKET, else as `reach daemon`'s), as `reach queue --socket`.",
            valueName: "PATH"))
    var socket: String?

    @Option(name: .customLong("to"), help: ArgumentHelp("Answer for traffic to this host or address instead: interface, type and cost per address family.", valueName: "HOST"))
    var destination: String?

    func validate() throws {
        if fromDaemon && (destination != nil || explain) { throw ValidationError("--daemon prints the daemon's path: it takes --json, not --to or --explain") }
        if socket != nil && !fromDaemon { throw ValidationError("--socket names the daemon's socket: it goes with --daemon") }
    }

    func run() async throws {
        if fromDaemon {
            // The daemon's client lives in reach-daemon (with the HTTP stack): this process is replaced.
            let connection = socket.map { ["--socket", $0] } ?? []
            ExternalCommand(argv: ["reach", "queue", "path"] + connection + (json ? ["--json"] : [])).exec()
        }
        if let destination {
            try await runDestination(destination)
            return
        }
        let path: NetworkPath
        let probing: Bool
        do {
            let monitor = try global.monitor()
            probing = monitor.isValidating
            path = try await monitor.validatedPath()
        } catch {
            throw failure(error)
        }
        printLine(json ? PathFormatter.json(path) : PathFormatter.summary(path))
        if explain && !json {
            for line in PathFormatter.explainEgress(path) { printLine(line) }
            printLine(ConnectivityFormatter.line(path, probing: probing))
            for line in ConnectivityFormatter.explain(path) { printLine(line) }
        }
        if !path.isReachable || (probing && path.connectivity != .full) { throw ExitCode(2) }
    }

    /// `--to HOST`: exit 0 when a usable route leads there (an address of this host is
    /// `local`, and usable), 2 when none does or the name does not resolve.
    private func runDestination(_ host: String) async throws {
        let routes: [DestinationRoute]
        do {
            routes = try await global.monitor().routes(to: host)
        } catch let error as HostResolutionError {
            printError("reach: \(error)")
            throw ExitCode(2)
        } catch {
            throw failure(error)
        }
        if json {
            printLine(PathFormatter.json(routes))
        } else if routes.isEmpty {
            printLine("\(host): no route")
        } else {
            for route in routes { printLine(PathFormatter.summary(route, host: host)) }
        }
        if !routes.contains(where: \.isUsable) { throw ExitCode(2) }
    }
}
