// Prints the network path, then one line per change, as NWPathMonitor does on Apple's
// platforms. `example-path-changes [CHANGES]` stops after CHANGES changes (0: the current path
// only); without it, it runs until interrupted.

// snippet: monitor
import Reachability   // with the rules, paths and policy (not Core's codecs)

let monitor = NetworkMonitor(configuration: MonitorConfiguration(
    overrides: [try OverrideRule(parsing: "usb0=cellular")],
    debounce: .milliseconds(200)))

// The current path, then one path per change. Any number of tasks may iterate at once.
// `monitor.paths(distinctBy: \.summary)` would skip changes the line below does not show.
var changes = 0
var previous: NetworkPath?
for try await path in monitor.paths {
    // A change of addresses or evidence alone looks like the path before: say what changed.
    let changed = previous.map { "(changed: \(path.changes(since: $0)))" } ?? ""
    print(path.status, path.isExpensive ? "expensive" : "not expensive", path.primary?.name ?? "-", path.ipv4, path.ipv6, changed)
    if path.status == .cellular && path.isExpensive { print("on a metered phone link: small transfers only") }
    if shouldStop(afterChanges: changes) { break }
    changes += 1
    previous = path
}

// Or ask once (a fresh reading when no iterator is running):
let now = try await monitor.currentPath()

// Which way would traffic to one host go (interface, transport, cost, per family)?
for route in try await monitor.routes(to: "127.0.0.1") {
    print(route.interface.name, route.status, route.isExpensive, route.isLocal)
}
// end snippet
print("now:", now.summary.status)

/// Whether to stop after `count` changes: `example-path-changes N` stops after N.
func shouldStop(afterChanges count: Int) -> Bool {
    guard let limit = CommandLine.arguments.dropFirst().first.flatMap({ Int($0) }) else { return false }
    return count >= limit
}
