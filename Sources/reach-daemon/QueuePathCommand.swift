import ArgumentParser
import FoundationEssentials
import ReachCommands
import ReachabilityCore
import ReachabilityDaemon

/// `reach queue path`: the daemon's path, as its jobs are judged by it (its overrides, its
/// validation), for scripts such as a Mender state script.
struct QueuePathCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Print the daemon's current path; with --when, exit 1 unless it satisfies the condition.",
        discussion: """
            Reads the path the daemon judges its jobs by (its overrides and validation included), \
            from the control socket or, for any other user, the daemon's read-only path socket. \
            Exit status: 0, or 1 when --when is given and the path does not satisfy it \
            (`reach queue path --when unmetered || exit 21` holds a Mender download while metered), \
            69 when no daemon answers.
            """)

    @OptionGroup var connection: QueueConnection

    @Flag(help: "Print the path as one JSON object (as `reach status --json`).")
    var json = false

    @Option(help: ArgumentHelp("Exit 1 unless the path satisfies this: any, wifi, wired, unmetered, internet.", valueName: "CONDITION"))
    var when: Condition?

    func run() async throws {
        var reader = connection
        if reader.socket == nil { reader.socket = DaemonPaths.pathSocket() }
        let text = try await reader.withClient { try await $0.pathJSON() }
        guard let path = try? JSONDecoder().decode(NetworkPath.self, from: Data(text.utf8)) else {
            printError("reach queue: the daemon's path is not a path document")
            throw ExitCode(1)
        }
        printLine(json ? text : PathFormatter.summary(path))
        guard let when else { return }
        var policy = when.policy
        if when == .internet { policy.requiresInternet = true }
        if case .wait(let reason) = policy.decide(TransferNetwork(path: path), for: Transfer()) {
            printError("reach queue: not \(when.rawValue): \(reason)")
            throw ExitCode(1)
        }
    }
}
