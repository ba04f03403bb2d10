/// The part of a ``NetworkPath`` that says how this host is connected, without the interface
/// list: status, cost, reachable families, primary and underlay interfaces, the network's
/// identity and its validated connectivity. A docker veth appearing or an address on an unrelated interface changes the path
/// but not its summary; a move to another Wi-Fi network changes the summary (its identity).
///
/// `monitor.paths(distinctBy: \.summary)` publishes changes of this value, deduplicated before
/// the debounce, so unrelated churn never delays a real change.
public struct PathSummary: Sendable, Hashable {
    /// The path's transport (``NetworkPath/status``).
    public var status: NetworkPath.Status
    /// Traffic over the path is paid for by volume (``NetworkPath/isExpensive``).
    public var isExpensive: Bool
    /// IPv4 is reachable (``NetworkPath/ipv4``).
    public var ipv4: Bool
    /// IPv6 is reachable (``NetworkPath/ipv6``).
    public var ipv6: Bool
    /// The interface traffic leaves through (``NetworkPath/primary``).
    public var primary: InterfaceReference?
    /// The physical interface under a tunnel primary (``NetworkPath/underlay``).
    public var underlay: InterfaceReference?
    /// Which network the path leads into (``NetworkPath/identity``).
    public var identity: PathIdentity
    /// Whether it reaches the Internet (``NetworkPath/connectivity``).
    public var connectivity: Connectivity
    /// The captive portal's page (``NetworkPath/portalURL``).
    public var portalURL: String?

    /// The summary of `path`: everything but its interface list.
    public init(_ path: NetworkPath) {
        status = path.status
        isExpensive = path.isExpensive
        ipv4 = path.ipv4
        ipv6 = path.ipv6
        primary = path.primary
        underlay = path.underlay
        identity = path.identity
        connectivity = path.connectivity
        portalURL = path.portalURL
    }

    /// Everything but the identity (and what validation found) is the same: the host moved to another network of the same
    /// kind (another Wi-Fi, a new gateway) rather than changing how it is connected.
    public func isSameConnection(as other: PathSummary) -> Bool {
        var copy = other
        copy.identity = identity
        copy.connectivity = connectivity
        copy.portalURL = portalURL
        return copy == self
    }
}
