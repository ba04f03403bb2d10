/// A default route (`0.0.0.0/0` or `::/0`) as dumped from the kernel, one per next hop.
public struct DefaultRoute: Sendable, Hashable {
    /// IPv4 (`0.0.0.0/0`) or IPv6 (`::/0`).
    public var family: AddressFamily
    /// The index of the interface the route leaves through.
    public var interfaceIndex: Int32
    /// The route's priority: among usable default routes, the lowest metric wins.
    public var metric: UInt32
    /// The routing table holding the route; 254 is `main`, which wins ties.
    public var table: UInt32
    /// The next hop's address; `nil` for a device route without one (`default dev wg0`).
    public var gateway: String?

    /// A default route in the `main` table with metric 0 unless given.
    public init(family: AddressFamily, interfaceIndex: Int32, metric: UInt32 = 0, table: UInt32 = 254, gateway: String? = nil) {
        self.family = family
        self.interfaceIndex = interfaceIndex
        self.metric = metric
        self.table = table
        self.gateway = gateway
    }
}

/// The kernel's answer to "which way would a packet to the probe address go?" (`RTM_GETROUTE`),
/// which respects metrics, policy routing and every routing table.
public struct RouteLookup: Sendable, Hashable {
    /// The family of the destination asked about.
    public var family: AddressFamily
    /// The index of the interface the packet would leave through.
    public var interfaceIndex: Int32
    /// The next hop's address; `nil` when the destination is on-link.
    public var gateway: String?
    /// The source address the kernel would pick (`RTA_PREFSRC`), when it names one.
    public var preferredSource: String?
    /// The routing table whose route answered, when the kernel says.
    public var table: UInt32?
    /// The firewall mark the imagined packet carried (VPNs mark their own traffic so that it
    /// bypasses the tunnel: a lookup with that mark finds the underlay).
    public var mark: UInt32?
    /// The destination asked about.
    public var destination: String?
    /// The destination is an address of this host (`RTN_LOCAL`): traffic never leaves it.
    public var isLocal: Bool

    /// A lookup answer given field by field.
    public init(
        family: AddressFamily, interfaceIndex: Int32, gateway: String? = nil, preferredSource: String? = nil, table: UInt32? = nil,
        mark: UInt32? = nil, destination: String? = nil, isLocal: Bool = false
    ) {
        self.family = family
        self.interfaceIndex = interfaceIndex
        self.gateway = gateway
        self.preferredSource = preferredSource
        self.table = table
        self.mark = mark
        self.destination = destination
        self.isLocal = isLocal
    }
}
