import ReachabilityCore

/// What dispatcher hooks are told of a path change: the event, the path's facts now and before,
/// as `REACH_*` environment variables (NetworkManager-dispatcher's `CONNECTIVITY_STATE`, and
/// networkd-dispatcher's `IFACE`/`STATE`, in reach's words). Pure, so it is tested with tables.
struct DispatcherChange: Sendable, Hashable {
    /// The facts hooks are told about one path.
    struct Facts: Sendable, Hashable {
        var status: String
        var type: String
        var interface: String
        var expensive: Bool
        var connectivity: String
        var ssid: String?

        init(status: String, type: String = "", interface: String = "", expensive: Bool = false, connectivity: String = "unknown", ssid: String? = nil) {
            self.status = status
            self.type = type
            self.interface = interface
            self.expensive = expensive
            self.connectivity = connectivity
            self.ssid = ssid
        }

        init(_ path: NetworkPath) {
            self.init(
                status: path.status.rawValue, type: path.primary.map { "\($0.type)" } ?? "", interface: path.primary?.name ?? "",
                expensive: path.isExpensive, connectivity: path.primaryValidation?.connectivity.rawValue ?? "unknown",
                ssid: path.identity.ssid)
        }
    }

    /// `startup` (the daemon's first path), `up` (from unreachable), `down` (to unreachable) or
    /// `change` (anything else hooks are told about).
    let event: String
    let facts: Facts
    let previous: Facts?

    /// The change from `previous` to `facts`; nil when nothing hooks are told about changed.
    static func between(_ previous: Facts?, _ facts: Facts) -> DispatcherChange? {
        guard let previous else { return DispatcherChange(event: "startup", facts: facts, previous: nil) }
        guard previous != facts else { return nil }
        let event: String
        switch (previous.status == "unreachable", facts.status == "unreachable") {
        case (true, false): event = "up"
        case (false, true): event = "down"
        default: event = "change"
        }
        return DispatcherChange(event: event, facts: facts, previous: previous)
    }

    /// The `PATH` hooks run with.
    static let hookPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// The hook's whole environment: `PATH`, `REACH_SOCKET` and the `REACH_*` facts; an empty
    /// value for what is not known (`REACH_SSID` off Wi-Fi, the previous facts at startup).
    func environment(socketPath: String) -> [String: String] {
        var variables = [
            "PATH": Self.hookPath,
            "REACH_SOCKET": socketPath,
            "REACH_EVENT": event,
        ]
        func add(_ prefix: String, _ facts: Facts?) {
            variables[prefix + "STATUS"] = facts?.status ?? ""
            variables[prefix + "TYPE"] = facts?.type ?? ""
            variables[prefix + "INTERFACE"] = facts?.interface ?? ""
            variables[prefix + "EXPENSIVE"] = facts.map { $0.expensive ? "1" : "0" } ?? ""
            variables[prefix + "CONNECTIVITY"] = facts?.connectivity ?? ""
            variables[prefix + "SSID"] = facts?.ssid ?? ""
        }
        add("REACH_", facts)
        add("REACH_PREVIOUS_", previous)
        return variables
    }
}
