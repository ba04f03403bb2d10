import ArgumentParser
import Reachability
import ReachabilityCore

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the current path, then a line per change, until interrupted.",
        discussion: """
            A change is a change of status, cost, reachable families, primary or underlay \
            interface, or of the network's identity (gateway, address prefix, interface index): \
            moving from one Wi-Fi network to another is a change. With --all-changes, any change of the published path counts, including \
            interfaces appearing, addresses and evidence.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print one JSON object per line: the path, with a leading \"time\" field.")
    var json = false

    @Option(help: ArgumentHelp("Quiet time in milliseconds before a change is printed; 0 prints every change at once.", valueName: "MS"))
    var debounce: Int = 200

    @Flag(name: .customLong("all-changes"), help: "Print every change of the path, not only connectivity changes.")
    var allChanges = false

    func validate() throws {
        guard debounce >= 0 else { throw ValidationError("--debounce must be 0 or more milliseconds, not \(debounce)") }
    }

    func run() async throws {
        do {
            let monitor = NetworkMonitor(configuration: try global.monitorConfiguration(debounce: .milliseconds(debounce)))
            var previous: PathSummary?
            for try await path in monitor.paths {
                let summary = PathSummary(path)
                if !allChanges && summary == previous { continue }
                let networkMoved = previous.map { $0.sameConnectivity(as: summary) && $0.identity != summary.identity } ?? false
                previous = summary
                let time = Timestamp.now()
                if json {
                    printLine(PathFormatter.jsonLine(path, time: time))
                } else {
                    let detail = networkMoved ? " (network changed: \(PathFormatter.identity(path.identity)))" : ""
                    printLine("\(time)  \(PathFormatter.summary(path))\(detail)")
                }
            }
        } catch {
            throw failure(error)
        }
    }
}

/// The part of a path `watch` reports by default.
struct PathSummary: Equatable {
    var status: NetworkPath.Status
    var expensive: Bool
    var ipv4: Bool
    var ipv6: Bool
    var primary: InterfaceReference?
    var underlay: InterfaceReference?
    var identity: PathIdentity

    init(_ path: NetworkPath) {
        status = path.status
        expensive = path.isExpensive
        ipv4 = path.ipv4
        ipv6 = path.ipv6
        primary = path.primary
        underlay = path.underlay
        identity = path.identity
    }

    /// Everything but the identity is equal.
    func sameConnectivity(as other: PathSummary) -> Bool {
        var copy = other
        copy.identity = identity
        return copy == self
    }
}
