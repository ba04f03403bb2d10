/// A default route (`0.0.0.0/0` or `::/0`) as dumped from the kernel, one per next hop.
public struct DefaultRoute: Sendable, Hashable {
    public var family: AddressFamily
    public var interfaceIndex: Int32
    public var metric: UInt32
    public var table: UInt32
    public var gateway: String?

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
    public var family: AddressFamily
    public var interfaceIndex: Int32
    public var gateway: String?
    public var preferredSource: String?
    public var table: UInt32?
    /// The firewall mark the imagined packet carried (VPNs mark their own traffic so that it
    /// bypasses the tunnel: a lookup with that mark finds the underlay).
    public var mark: UInt32?
    /// The destination asked about.
    public var destination: String?
    /// The destination is an address of this host (`RTN_LOCAL`): traffic never leaves it.
    public var isLocal: Bool

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
