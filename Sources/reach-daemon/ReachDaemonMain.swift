import ArgumentParser
import ReachCommands
import ReachabilityValidation

/// `reach daemon` and `reach queue`, in their own executable (SQLite, the control server and the
/// HTTP stack live here): `reach daemon …` execs `reach-daemon daemon …` with `argv[0]` "reach".
struct ReachDaemonMain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "The network-gated job queue (run as `reach daemon` and `reach queue`).",
        version: ReachVersion.text,
        subcommands: [DaemonCommand.self, QueueCommand.self, BudgetCommand.self]
    )
}

/// `reach daemon --probe URL` validates connectivity: this executable carries the prober.
@main
enum ReachDaemonEntry {
    static func main() async {
        ConnectivityProbing.makeProber = { HTTPConnectivityProber(userAgent: "reach/\(ReachVersion.package)") }
        await ReachDaemonMain.main()
    }
}
