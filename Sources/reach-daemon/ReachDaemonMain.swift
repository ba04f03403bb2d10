import ArgumentParser
import ReachCommands

/// `reach daemon` and `reach queue`, in their own executable (SQLite, the control server and the
/// HTTP stack live here): `reach daemon …` execs `reach-daemon daemon …` with `argv[0]` "reach".
@main
struct ReachDaemonMain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "The network-gated job queue (run as `reach daemon` and `reach queue`).",
        version: ReachVersion.text,
        subcommands: [DaemonCommand.self, QueueCommand.self]
    )
}
