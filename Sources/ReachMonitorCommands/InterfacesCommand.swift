import ArgumentParser
import ReachCommands
import Reachability
import ReachabilityCore

struct InterfacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interfaces",
        abstract: "List every interface with its type, cost and state.",
        discussion: """
            --offline classifies the interfaces under DIR/class/net (see --sysfs-root) from sysfs \
            alone, without netlink: for a copy of another machine's /sys/class/net.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print a JSON array of interface objects.")
    var json = false

    @Flag(help: "Show every signal the classifier considered and which one decided.")
    var explain = false

    @Flag(help: "Read sysfs only, no netlink (addresses are then unknown).")
    var offline = false

    func run() async throws {
        let interfaces: [Interface]
        do {
            let configuration = try global.monitorConfiguration()
            interfaces = offline
                ? try NetworkMonitor.offlineInterfaces(configuration: configuration)
                : try await NetworkMonitor(configuration: configuration).currentPath().interfaces
        } catch {
            throw failure(error)
        }
        // Offline listings leave "addresses" out: sysfs cannot know them.
        printLine(json ? PathFormatter.json(interfaces, withAddresses: !offline) : PathFormatter.table(interfaces, explain: explain))
    }
}
