package import ArgumentParser
import ReachCommands

/// The monitor commands of `reach` (status, watch, interfaces, wait, run, config). A library, so
/// two executables carry them: `reach` itself, without an HTTP stack, and `reach-daemon`, which
/// has one and so can also validate connectivity (`--probe`): `reach` execs it for that.
package struct Reach: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Whether this host is online, and how: Wi-Fi, cellular, wired, or not at all.",
        discussion: """
            Exit codes: 0 success (status: reachable), 1 runtime failure (netlink, sysfs, output) \
            or timeout (wait), 2 unreachable (status), 64 bad usage, option value or configuration \
            file; run exits with its command's status. `reach get`, `reach upload`, `reach daemon`, \
            `reach queue`, `reach budget` and a command given --probe are carried out by \
            reach-daemon, installed next to reach.
            """,
        version: ReachVersion.text,
        subcommands: monitorCommands,
        defaultSubcommand: defaultCommand
    )

    /// The monitor commands, for reach-daemon's whole command tree too.
    package static let monitorCommands: [any ParsableCommand.Type] = [
        StatusCommand.self, WatchCommand.self, InterfacesCommand.self, WaitCommand.self, RunCommand.self, ConfigCommand.self,
    ]

    /// What `reach` with no command runs.
    package static let defaultCommand: any ParsableCommand.Type = StatusCommand.self

    package init() {}
}
