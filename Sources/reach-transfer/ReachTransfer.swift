import ArgumentParser
import ReachCommands
import ReachMonitorCommands
import ReachTransferCommands
import ReachabilityValidation

/// The transfer commands of `reach`, in their own executable so that the monitor commands do not
/// carry the HTTP stack. `reach get …` execs `reach-transfer get …` (and `reach upload …`,
/// `reach-transfer upload …`) with `argv[0]` "reach", so help and errors read as `reach get`.
struct ReachTransfer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Network-gated transfers (run as `reach get` and `reach upload`).",
        version: ReachVersion.text,
        subcommands: TransferCommands.all
    )
}

/// `get` and `upload` are this executable's own; any other command is a monitor command that
/// `reach` handed over because it asked for a connectivity probe, which needs this HTTP stack.
@main
enum ReachTransferMain {
    static func main() async {
        ConnectivityProbing.makeProber = { HTTPConnectivityProber(userAgent: "reach/\(ReachVersion.package)") }
        let command = CommandLine.arguments.dropFirst().first
        if command == "get" || command == "upload" {
            await ReachTransfer.main()
        } else {
            await Reach.main()
        }
    }
}
