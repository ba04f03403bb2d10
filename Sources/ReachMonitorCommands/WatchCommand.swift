import ArgumentParser
import ReachCommands
import Reachability
import ReachabilityCore

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the current path, then a line per change, until interrupted.",
        discussion: """
            A change is a change of the path's summary: status, cost, reachable families, primary \
            or underlay interface, or the network's identity (gateway, address prefix, interface \
            index): moving from one Wi-Fi network to another is a change. With --probe, so is a \
            change of connectivity (a portal found, the Internet confirmed). Other churn (a \
            container's veth appearing) is dropped before the debounce, so it never delays a \
            line. With --all-changes, any change of the published path counts, including \
            interfaces appearing, addresses and evidence.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print one JSON object per line: the path, with a leading \"time\" field.")
    var json = false

    @Option(help: ArgumentHelp("Quiet time in milliseconds (0 to 3600000) before a change is printed; 0 prints every change at once.", valueName: "MS"))
    var debounce: Int = 200

    @Flag(name: .customLong("all-changes"), help: "Print every change of the path, not only changes of its summary.")
    var allChanges = false

    func validate() throws {
        try OptionChecks.check(debounce, option: "--debounce", in: 0...3_600_000, unit: "milliseconds")
    }

    func run() async throws {
        ReaderWatch.exitWhenStandardOutputCloses()
        do {
            let monitor = try global.monitor()
            let paths = allChanges
                ? monitor.paths(distinctBy: { $0 }, debounce: .milliseconds(debounce))
                : monitor.paths(distinctBy: \.summary, debounce: .milliseconds(debounce))
            var previous: PathSummary?
            var previousPath: NetworkPath?
            for try await path in paths {
                let summary = path.summary
                let networkMoved = previous.map { $0.isSameConnection(as: summary) && $0.identity != summary.identity } ?? false
                // Without probes, connectivity only mirrors reachability (none, local, unknown): no news.
                let connectivityChange = previous.flatMap { old in
                    monitor.isValidating && old.connectivity != summary.connectivity
                        ? " (connectivity \(old.connectivity) -> \(summary.connectivity))" : nil
                }
                // With --all-changes a line whose summary did not move would repeat the one
                // before: it says what changed instead.
                let otherChange = previousPath.flatMap { old -> String? in
                    guard previous == summary else { return nil }
                    return " (changed: \(path.changes(since: old)))"
                }
                previous = summary
                previousPath = path
                let time = Timestamp.now()
                if json {
                    printLine(PathFormatter.jsonLine(path, time: time))
                } else {
                    let detail = networkMoved
                        ? " (network changed: \(PathFormatter.identity(path.identity)))" : (connectivityChange ?? otherChange ?? "")
                    printLine("\(time)  \(PathFormatter.summary(path))\(detail)")
                }
            }
        } catch {
            throw failure(error)
        }
    }
}
