/// The network a transfer's traffic uses, as the policy judges it: the default path's, or the
/// route to the transfer's server (`NetworkMonitor.networks(to:)`), so a LAN or loopback server
/// is judged by the interface that reaches it rather than by the default route.
public struct TransferNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The transport (`unreachable` when nothing usable carries the traffic).
    public var status: NetworkPath.Status
    /// Traffic over it is paid for by volume (for a tunnel, its underlay's cost unless a rule set it).
    public var isExpensive: Bool
    /// The destination is an address of this host: traffic never leaves it, so no policy
    /// about networks applies.
    public var isLocal: Bool
    /// The egress interface, when known (for a tunnel, the tunnel; the transport is the
    /// underlay's).
    public var interface: InterfaceReference?
    /// What validation found on the egress, for traffic that leaves through a gateway:
    /// ``Connectivity/unknown`` while its first round is out; nil when not probing, or for an
    /// on-link (LAN) destination, which needs no Internet.
    public var connectivity: Connectivity?
    /// The captive portal's page, when ``connectivity`` is ``Connectivity/portal``.
    public var portalURL: String?
    /// The data budgets counting this network's traffic, with what is left of each (a snoozed
    /// budget is not listed): empty when none applies.
    public var budgets: [BudgetAllowance] = []

    /// A network given field by field; by default inexpensive, not local, not validated.
    public init(
        status: NetworkPath.Status, isExpensive: Bool = false, isLocal: Bool = false, interface: InterfaceReference? = nil,
        connectivity: Connectivity? = nil, portalURL: String? = nil
    ) {
        self.status = status
        self.isExpensive = isExpensive
        self.isLocal = isLocal
        self.interface = interface
        self.connectivity = connectivity
        self.portalURL = portalURL
    }

    /// Whether traffic moved from `other` to this network is counted and limited the same way:
    /// the same egress interface, transport, cost and locality. A change of validation alone is
    /// not a move.
    public func carriesTrafficLike(_ other: TransferNetwork) -> Bool {
        status == other.status && isExpensive == other.isExpensive && isLocal == other.isLocal && interface?.name == other.interface?.name
    }

    /// The default path's network; its connectivity is the primary interface's validation.
    public init(path: NetworkPath) {
        let validation = path.primaryValidation
        self.init(
            status: path.status, isExpensive: path.isExpensive, interface: path.primary, connectivity: validation?.connectivity,
            portalURL: validation?.portalURL)
    }

    /// The network of one route to a destination; an unusable egress is `unreachable`.
    public init(route: DestinationRoute) {
        self.init(
            status: route.isLocal || route.isUsable ? route.status : .unreachable, isExpensive: route.isExpensive,
            isLocal: route.isLocal, interface: route.interface
        )
    }

    /// The network traffic to a destination with these routes takes: the first local or usable
    /// route, in resolution order (the order a client tries the addresses); `unreachable` when
    /// none is usable.
    public init(routes: [DestinationRoute]) {
        if let route = routes.first(where: { $0.isLocal || $0.isUsable }) {
            self.init(route: route)
        } else {
            self.init(status: .unreachable)
        }
    }

    /// No network: nothing usable carries the traffic.
    public static let unreachable = TransferNetwork(status: .unreachable)

    /// Traffic can get there: the destination is local, or the status is not `unreachable`.
    public var isReachable: Bool { isLocal || status != .unreachable }

    public var description: String {
        if isLocal { return "local" }
        let name = interface.map { " via \($0.name)" } ?? ""
        let validated = connectivity.map { isReachable ? ", \($0)" : "" } ?? ""
        return "\(status)\(isExpensive ? " (expensive)" : "")\(name)\(validated)"
    }
}
