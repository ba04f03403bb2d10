import ArgumentParser
import Reachability
import ReachabilityCore
import ReachabilityLinux

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
        do {
            if offline {
                try runOffline()
                return
            }
            let path = try NetworkMonitor(configuration: global.monitorConfiguration()).currentPath()
            printLine(json ? PathFormatter.json(path.interfaces) : PathFormatter.table(path.interfaces, explain: explain))
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw failure(error)
        }
    }

    private func runOffline() throws {
        let facts: [InterfaceFacts]
        do {
            facts = try SysfsReader(root: global.sysfsRoot).offlineInterfaces()
        } catch {
            throw UsageFailure(message: "--sysfs-root \(global.sysfsRoot): \(error)")
        }
        let path = PathEvaluator(classifier: Classifier(overrides: try global.rules())).evaluate(NetworkSnapshot(interfaces: facts))
        if json {
            printLine(PathFormatter.json(path.interfaces.map(OfflineInterface.init)))
        } else {
            printLine(PathFormatter.table(path.interfaces, explain: explain))
        }
    }
}

/// An interface as sysfs alone describes it: no addresses (netlink only).
struct OfflineInterface: Encodable {
    var interface: Interface
    init(_ interface: Interface) { self.interface = interface }

    enum CodingKeys: String, CodingKey { case name, index, type, expensive, up, running, evidence }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(interface.name, forKey: .name)
        try container.encode(interface.index, forKey: .index)
        try container.encode(interface.type, forKey: .type)
        try container.encode(interface.isExpensive, forKey: .expensive)
        try container.encode(interface.isUp, forKey: .up)
        try container.encode(interface.isRunning, forKey: .running)
        try container.encode(interface.evidence, forKey: .evidence)
    }
}
