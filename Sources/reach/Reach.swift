import ArgumentParser
import ReachCommands

struct Reach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Whether this host is online, and how: Wi-Fi, cellular, wired, or not at all.",
        discussion: """
            Exit codes: 0 success (status: reachable), 1 runtime failure (netlink, sysfs, output) \
            or timeout (wait), 2 unreachable (status), 64 bad usage, option value or configuration \
            file; run exits with its command's status. `reach get` and `reach upload` are carried \
            out by reach-transfer, `reach daemon` and `reach queue` by reach-daemon, both installed \
            next to reach.
            """,
        version: ReachVersion.text,
        subcommands: [
            StatusCommand.self, WatchCommand.self, InterfacesCommand.self, WaitCommand.self, RunCommand.self,
            ConfigCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )
}

/// `reach get …` and `reach upload …` run reach-transfer, `reach daemon …` and `reach queue …`
/// reach-daemon (the HTTP stack lives there, so the
/// monitor commands do not map it); everything else is parsed here.
@main
enum ReachMain {
    static func main() async {
        if let external = ExternalCommand(arguments: CommandLine.arguments) { external.exec() }
        await Reach.main()
    }
}
