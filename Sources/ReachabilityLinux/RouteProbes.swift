/// The destinations of the kernel route lookups that find the egress interface.
///
/// A lookup sends no packet: it asks the kernel which route a packet *would* take, with policy
/// routing, metrics and every table considered. Any address outside local networks works; set
/// them to your own servers' addresses to ask about the routes that matter to you.
public struct RouteProbes: Sendable, Hashable {
    public var ipv4: String
    public var ipv6: String

    public init(ipv4: String = "1.1.1.1", ipv6: String = "2606:4700:4700::1111") {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }
}

/// How to reach the kernel: sysfs root, probes, receive buffer, namespace.
public struct NetlinkConfiguration: Sendable {
    public var sysfs: SysfsReader
    public var probes: RouteProbes
    /// Receive buffer of the event sockets. libnl's default is 32 KiB, which about 20 veth
    /// pairs created at once overflow.
    public var receiveBufferBytes: Int
    /// Watch this namespace instead of the process's own.
    public var namespace: NetworkNamespace?
    /// Where DHCP client leases are looked for (metered hints); nil: not at all.
    public var leases: DHCPLeaseReader?

    public init(
        sysfs: SysfsReader = SysfsReader(), probes: RouteProbes = RouteProbes(), receiveBufferBytes: Int = 4 << 20,
        namespace: NetworkNamespace? = nil, leases: DHCPLeaseReader? = DHCPLeaseReader()
    ) {
        self.sysfs = sysfs
        self.probes = probes
        self.receiveBufferBytes = receiveBufferBytes
        self.namespace = namespace
        self.leases = leases
    }
}
