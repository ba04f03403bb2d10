import ArgumentParser
import Reachability
import ReachabilityCore

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the current path once.",
        discussion: "Exit status 0 when the network is reachable, 2 when it is not.")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the path as one JSON object.")
    var json = false

    func run() async throws {
        let path: NetworkPath
        do {
            path = try NetworkMonitor(configuration: global.monitorConfiguration()).currentPath()
        } catch {
            throw failure(error)
        }
        printLine(json ? PathFormatter.json(path) : PathFormatter.summary(path))
        if !path.isReachable { throw ExitCode(2) }
    }
}
