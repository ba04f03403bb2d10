import Synchronization

extension PortalNetwork {
    /// A fault switched in the router with an `ip rule` (before the local table, so it applies
    /// to traffic for the router's own addresses).
    public enum Fault: Sendable, Hashable {
        /// Traffic from `uplink` to ``PortalNetwork/internetAddress`` is prohibited (ICMP
        /// administratively prohibited): the uplink has no Internet. DNS and the portal still answer.
        case noInternet(Uplink)
        /// TCP to port 443 from `uplink` is prohibited: HTTPS is blocked, HTTP is not.
        case httpsBlocked(Uplink)
        /// UDP and TCP to port 53 from `uplink` are dropped silently (``DNSMode/silent``).
        case dnsDropped(Uplink)

        /// The `ip rule` selectors and actions, one rule each.
        var rules: [[String]] {
            switch self {
            case .noInternet(let uplink):
                [["pref", "10", "iif", uplink.peer, "to", "\(PortalNetwork.internetAddress)/32", "prohibit"]]
            case .httpsBlocked(let uplink):
                [["pref", "11", "iif", uplink.peer, "ipproto", "tcp", "dport", "443", "prohibit"]]
            case .dnsDropped(let uplink):
                ["udp", "tcp"].map { ["pref", "12", "iif", uplink.peer, "ipproto", $0, "dport", "53", "blackhole"] }
            }
        }
    }

    /// Switches `fault` on (nothing when it is on already).
    public func inject(_ fault: Fault) throws {
        guard faults.withLock({ $0.insert(fault).inserted }) else { return }
        for rule in fault.rules { try router.run(["ip", "rule", "add"] + rule) }
    }

    /// Switches `fault` off (nothing when it is off).
    public func remove(_ fault: Fault) throws {
        guard faults.withLock({ $0.remove(fault) != nil }) else { return }
        for rule in fault.rules { try router.run(["ip", "rule", "del"] + rule) }
    }
}
