public import ReachabilityCore
public import ReachabilityLinux

/// How a ``NetworkMonitor`` classifies interfaces and paces its updates.
public struct MonitorConfiguration: Sendable {
    /// User rules that beat every kernel signal, first match wins (see ``OverrideRule``).
    public var overrides: [OverrideRule]
    /// Quiet time a change must survive before it is published; `.zero` publishes every change
    /// at once. The initial path is never delayed.
    public var debounce: Duration
    /// Sysfs root, route probes, receive buffer and namespace of the kernel source.
    public var netlink: NetlinkConfiguration

    public init(overrides: [OverrideRule] = [], debounce: Duration = .zero, netlink: NetlinkConfiguration = NetlinkConfiguration()) {
        self.overrides = overrides
        self.debounce = debounce
        self.netlink = netlink
    }
}
