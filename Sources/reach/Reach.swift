import ArgumentParser

@main
struct Reach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Whether this host is online, and how: Wi-Fi, cellular, wired, or not at all.",
        discussion: """
            Exit codes: 0 success (status: reachable), 1 runtime failure (netlink, sysfs) or \
            timeout (wait), 2 unreachable (status), 64 bad usage, option value or configuration \
            file; run exits with its command's status.
            """,
        version: "0.1.0",
        subcommands: [
            StatusCommand.self, WatchCommand.self, InterfacesCommand.self, WaitCommand.self, RunCommand.self, GetCommand.self,
            ConfigCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )
}
