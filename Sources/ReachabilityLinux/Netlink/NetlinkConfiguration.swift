public import ReachabilityCore

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
    /// Read Wi-Fi facts over nl80211 (when the kernel has it).
    public var readsWifiFacts: Bool
    /// Report interface counters after each published batch and from one link dump this often
    /// (nanoseconds); nil: no counters.
    public var counterIntervalNanoseconds: Int64? = nil

    public init(
        sysfs: SysfsReader = SysfsReader(), probes: RouteProbes = RouteProbes(), receiveBufferBytes: Int = 4 << 20,
        namespace: NetworkNamespace? = nil, leases: DHCPLeaseReader? = DHCPLeaseReader(), readsWifiFacts: Bool = true
    ) {
        self.readsWifiFacts = readsWifiFacts
        self.sysfs = sysfs
        self.probes = probes
        self.receiveBufferBytes = receiveBufferBytes
        self.namespace = namespace
        self.leases = leases
    }
}
