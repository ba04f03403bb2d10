/// Which interfaces of a snapshot are uplinks worth validating, and what marks their network:
/// a running interface that a default route leaves through and that has a global address of
/// that route's family. A VPN with its own default route is an uplink of its own (its probes
/// go through the tunnel); the physical interface under it is one too when it keeps a default
/// route, so Wi-Fi is judged even while a VPN is primary.
public enum ProbeUplinks {
    /// The uplinks of `snapshot`, by key, with the targets to probe. The key's `network`
    /// fingerprint changes when the interface's global addresses, its gateways or the portal
    /// API its lease names change: that is a new network, probed at once.
    public static func targets(in snapshot: NetworkSnapshot, namespacePath: String? = nil) -> [UplinkKey: ProbeTarget] {
        var families: [Int32: (ipv4: Bool, ipv6: Bool, gateways: Set<String>)] = [:]
        for route in snapshot.defaultRoutes {
            var entry = families[route.interfaceIndex] ?? (false, false, [])
            if route.family == .ipv4 { entry.ipv4 = true } else { entry.ipv6 = true }
            if let gateway = route.gateway { entry.gateways.insert(gateway) }
            families[route.interfaceIndex] = entry
        }
        var targets: [UplinkKey: ProbeTarget] = [:]
        for facts in snapshot.interfaces {
            guard let routed = families[facts.index], facts.canCarryTraffic else { continue }
            let global = snapshot.addresses.filter { $0.interfaceIndex == facts.index && $0.isUsableForInternet }
            let ipv4 = routed.ipv4 && global.contains { $0.family == .ipv4 }
            let ipv6 = routed.ipv6 && global.contains { $0.family == .ipv6 }
            guard ipv4 || ipv6 else { continue }
            let hints = facts.dhcpHints
            let fingerprint = (global.map(\.cidr).sorted() + routed.gateways.sorted() + [hints?.captivePortalURL ?? ""])
                .joined(separator: " ")
            let key = UplinkKey(index: facts.index, network: fingerprint)
            targets[key] = ProbeTarget(
                interface: facts.name, index: facts.index, ipv4: ipv4, ipv6: ipv6, dnsServers: hints?.dnsServers ?? [],
                captivePortalAPI: hints?.captivePortalURL, namespacePath: namespacePath)
        }
        return targets
    }
}

/// Puts what validation found into a path: each probed interface's ``InterfaceValidation``,
/// and the path's own ``NetworkPath/connectivity`` from its primary interface.
public enum ConnectivityAnnotation {
    /// `path` with `results` (by interface index) applied; interfaces in `pending` (uplinks
    /// whose first round is still out) get an ``Connectivity/unknown`` validation with no
    /// probes. A routed path whose primary has no result is `unknown`; an unrouted one keeps
    /// the `none` or `local` the evaluator gave it.
    public static func apply(_ results: [Int32: InterfaceValidation], pending: Set<Int32> = [], to path: NetworkPath) -> NetworkPath {
        guard !results.isEmpty || !pending.isEmpty else { return path }
        var annotated = path
        for position in annotated.interfaces.indices {
            let index = annotated.interfaces[position].index
            annotated.interfaces[position].validation =
                results[index] ?? (pending.contains(index) ? InterfaceValidation(connectivity: .unknown) : nil)
        }
        guard path.isReachable else { return annotated }
        let validation = annotated.primaryValidation
        annotated.connectivity = validation?.connectivity ?? .unknown
        annotated.portalURL = validation?.connectivity == .portal ? validation?.portalURL : nil
        return annotated
    }
}
