import ReachabilityCore

/// Paths as the monitor would publish them on a laptop: on wifi, then on a phone's cellular
/// modem, then offline. Addresses are filled in so tests can show they do not count.
enum PathFixtures {
    static let loopback = Interface(
        name: "lo", index: 1, type: .loopback, isExpensive: false, isUp: true, isRunning: true, addresses: ["127.0.0.1/8"])
    static let wlan0 = Interface(
        name: "wlan0", index: 2, type: .wifi, isExpensive: false, isUp: true, isRunning: true, addresses: ["192.0.2.10/24"])
    static let wwan0 = Interface(
        name: "wwan0", index: 3, type: .cellular, isExpensive: true, isUp: true, isRunning: true, addresses: ["198.51.100.7/30"])

    static let wifi = NetworkPath(
        status: .wifi, ipv4: true, primary: InterfaceReference(name: "wlan0", type: .wifi), interfaces: [loopback, wlan0])
    static let cellular = NetworkPath(
        status: .cellular, isExpensive: true, ipv4: true, primary: InterfaceReference(name: "wwan0", type: .cellular),
        interfaces: [loopback, wwan0])
    static let offline = NetworkPath(status: .unreachable, interfaces: [loopback])

    /// `reach_interface_info`'s series for an interface, as rendered.
    static func infoSeries(_ name: String, _ type: String, expensive: Bool) -> String {
        "reach_interface_info{name=\"\(name)\",type=\"\(type)\",expensive=\"\(expensive)\"}"
    }

    /// `reach_path_status`'s five series, 1 for `current` (none when nil).
    static func statusSeries(_ current: NetworkPath.Status?) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: NetworkPath.Status.allCases.map { status in
            ("reach_path_status{status=\"\(status.rawValue)\"}", status == current ? 1.0 : 0.0)
        })
    }
}
