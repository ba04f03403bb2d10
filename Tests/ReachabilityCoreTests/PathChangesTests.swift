import ReachabilityCore
import Testing

/// What `changes(since:)` says moved between two paths.
@Suite("Path changes")
struct PathChangesTests {
    static let base = NetworkPath(
        status: .wifi, ipv4: true, primary: InterfaceReference(name: "wlan0", type: .wifi),
        interfaces: [
            Interface(name: "wlan0", index: 2, type: .wifi, isExpensive: false, isUp: true, isRunning: true, addresses: ["192.168.1.20/24"]),
            Interface(name: "wwan0", index: 3, type: .cellular, isExpensive: true, isUp: true, isRunning: true),
        ],
        identity: PathIdentity(interface: "wlan0", index: 2, gateways: ["192.168.1.1"], prefixes: ["192.168.1.0/24"], ssid: "home"))

    static func changed(_ body: (inout NetworkPath) -> Void) -> NetworkPath {
        var path = base
        body(&path)
        return path
    }

    static let rows: [(String, NetworkPath, PathChanges, String)] = [
        ("the same path", base, [], "none"),
        ("a privacy address", changed { $0.interfaces[0].addresses.append("2001:db8::1234/64") }, .addresses, "addresses"),
        ("the modem went down", changed { $0.interfaces[1].isRunning = false }, .interfaces, "interfaces"),
        ("an interface came", changed {
            $0.interfaces.append(Interface(name: "usb0", index: 4, type: .cellular, isExpensive: true, isUp: true, isRunning: false))
        }, .interfaces, "interfaces"),
        ("a roam's signal", changed { $0.interfaces[0].validation = InterfaceValidation(connectivity: .full) }, .interfaceDetails, "interface details"),
        ("a move to cellular", changed {
            $0.status = .cellular
            $0.isExpensive = true
            $0.primary = InterfaceReference(name: "wwan0", type: .cellular)
            $0.identity = PathIdentity(interface: "wwan0", index: 3, gateways: ["10.64.0.5"], prefixes: ["10.64.0.4/30"])
        }, [.status, .cost, .route, .identity], "status, cost, route, identity"),
        ("IPv6 arrived", changed { $0.ipv6 = true }, .families, "families"),
        ("another SSID on the same interface", changed { $0.identity.ssid = "hotel" }, .identity, "identity"),
        ("a portal", changed {
            $0.connectivity = .portal
            $0.portalURL = "http://p.test/login"
        }, .connectivity, "connectivity"),
        ("a budget ran out", changed { $0.budgets = [PathBudget(name: "cell", state: .exhausted, limitBytes: 1, cycleEnd: nil)] }, .budgets, "budgets"),
    ]

    @Test(arguments: rows)
    func changesSayWhatMoved(_ what: String, _ path: NetworkPath, _ expected: PathChanges, _ words: String) {
        let changes = path.changes(since: Self.base)
        #expect(changes == expected, "\(what)")
        #expect(changes.description == words, "\(what)")
        #expect(changes.isDisjoint(with: .summary) == (path.summary == Self.base.summary), "\(what): summary and changes agree")
    }
}
