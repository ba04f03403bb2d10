extension PathJSON {
    /// The path as every local user may read it (the daemon's `path.sock`): what a program
    /// needs to decide whether and how to use the network — status, cost, connectivity, the
    /// primary interface and its underlay, and each interface's name, type, cost and state —
    /// and nothing that locates the machine or its user: no addresses, gateways, evidence, SSID,
    /// BSSID, signal, portal URL or budget names.
    public static func sharedText(_ path: NetworkPath) -> String {
        var out = "{\"connectivity\":\(string(path.connectivity.rawValue)),\"expensive\":\(path.isExpensive),\"interfaces\":["
        for (offset, interface) in path.interfaces.enumerated() {
            if offset > 0 { out += "," }
            out += "{\"expensive\":\(interface.isExpensive),\"name\":\(string(interface.name)),\"running\":\(interface.isRunning),"
            out += "\"type\":\(string(interface.type.rawValue)),\"up\":\(interface.isUp)}"
        }
        out += "],\"ipv4\":\(path.ipv4),\"ipv6\":\(path.ipv6),\"primary\":\(reference(path.primary)),"
        out += "\"status\":\(string(path.status.rawValue)),\"underlay\":\(reference(path.underlay))}"
        return out
    }
}
