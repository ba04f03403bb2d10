import ArgumentParser
import ReachCommands
import ReachMonitorCommands
import ReachTransferCommands
import ReachabilityValidation

/// Every `reach` command in one tree: the daemon's own (`daemon`, `queue`, `budget`), the
/// transfer commands (`get`, `upload`) and the monitor commands. `reach` execs this executable
/// for every command that needs the HTTP stack (a transfer, the daemon's, a monitor command
/// given --probe) and for help of any kind (`reach --help`, `reach help queue add`), the
/// completion scripts and the tree the man pages are generated from, so all of them list every
/// command from the commands' own definitions.
struct ReachCommandTree: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: Reach.configuration.abstract,
        discussion: """
            With no command, `reach` runs `status`. Exit codes, for every command: 0 success; 1 a \
            runtime failure (netlink, sysfs, output, a transfer, a job that failed, the daemon \
            refused a change, the daemon could not set up its state or sockets) or a timeout \
            (wait); 2 unreachable (status) or a checksum mismatch (get); 3 a timeout (queue wait); \
            64 bad usage, option value, configuration file or a job or budget the daemon rejects; \
            69 no daemon listening on the socket (queue, budget, status --daemon); run exits with \
            its command's status, 128 + N if signal N ended it, 127 if it could not be started. \
            `reach get`, `reach upload`, `reach daemon`, `reach queue`, `reach budget` and a \
            command given --probe are carried out by reach-daemon, installed next to reach.
            """,
        version: ReachVersion.text,
        subcommands: Reach.monitorCommands + TransferCommands.all + [DaemonCommand.self, QueueCommand.self, BudgetCommand.self],
        defaultSubcommand: Reach.defaultCommand
    )
}

/// `reach daemon --probe URL` validates connectivity: this executable carries the prober.
@main
enum ReachDaemonEntry {
    static func main() async {
        ConnectivityProbing.makeProber = { HTTPConnectivityProber(userAgent: "reach/\(ReachVersion.package)") }
        await ReachCommandTree.main()
    }
}
