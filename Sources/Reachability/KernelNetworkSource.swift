public import ReachabilityCore
import ReachabilityLinux

/// The kernel, through netlink (libnl) and sysfs: the source every ``NetworkMonitor`` built
/// from a ``MonitorConfiguration`` uses.
public struct KernelNetworkSource: NetworkStateSource {
    /// Where and how to read: the namespace, the sysfs and lease roots, the route probes, the
    /// socket buffer. Its `overrides` and `debounce` are the monitor's concern, not the source's.
    public var configuration: MonitorConfiguration

    /// A source reading the kernel as `configuration` says; nothing is opened until it is read.
    public init(configuration: MonitorConfiguration = MonitorConfiguration()) {
        self.configuration = configuration
    }

    /// Dumps links, addresses and routes once over netlink, with the sysfs facts, the DHCP lease
    /// hints and the route lookups towards the probe addresses.
    /// - Throws: ``MonitorConfigurationError`` when the namespace cannot be opened; a netlink
    ///   error when the kernel cannot be read.
    public func snapshot() throws -> NetworkSnapshot {
        try NetlinkSnapshotReader.read(try netlinkConfiguration())
    }

    /// ``snapshot()`` with real kernel route lookups (plain and marked) towards `destinations`,
    /// which are address literals, in place of the probe addresses.
    /// - Throws: as ``snapshot()``.
    public func snapshot(towards destinations: [String]) throws -> NetworkSnapshot {
        try NetlinkSnapshotReader.read(try netlinkConfiguration(), towards: destinations)
    }

    /// Starts a netlink watcher thread that calls `handler` with the current state before this
    /// returns, then once per batch of kernel events, until the subscription is cancelled.
    /// - Throws: ``MonitorConfigurationError`` when the namespace cannot be opened; a netlink
    ///   error when the sockets cannot be set up or the first dump fails.
    public func start(_ handler: @escaping @Sendable (NetworkSnapshot) -> Void) throws -> any NetworkStateSubscription {
        WatcherSubscription(watcher: try NetlinkWatcher(configuration: try netlinkConfiguration(), onSnapshot: handler))
    }

    /// ``start(_:)`` with the interfaces' counters (`IFLA_STATS64`) after each snapshot and from
    /// one link dump per `configuration.counterInterval` (none without one).
    public func start(
        _ handler: @escaping @Sendable (NetworkSnapshot) -> Void, counters: @escaping @Sendable ([InterfaceCounters]) -> Void
    ) throws -> any NetworkStateSubscription {
        WatcherSubscription(watcher: try NetlinkWatcher(configuration: try netlinkConfiguration(), onSnapshot: handler, onCounters: counters))
    }

    /// Opens the namespace, if any: done at each start so a configuration stays a plain value.
    private func netlinkConfiguration() throws(MonitorConfigurationError) -> NetlinkConfiguration {
        var netlink = NetlinkConfiguration(
            sysfs: SysfsReader(root: configuration.sysfsRoot), probes: configuration.routeProbes,
            receiveBufferBytes: configuration.receiveBufferBytes, leases: configuration.leaseRoot.map { DHCPLeaseReader(root: $0) },
            readsWifiFacts: configuration.readsWifiFacts)
        netlink.counterIntervalNanoseconds = configuration.counterInterval.map { interval in
            let (seconds, attoseconds) = interval.components
            return max(1_000_000, seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000)
        }
        if let path = configuration.namespacePath {
            do throws(NamespaceError) {
                netlink.namespace = try NetworkNamespace(path: path)
            } catch {
                throw MonitorConfigurationError(setting: "namespace", value: path, reason: error.reason)
            }
        }
        return netlink
    }
}

struct WatcherSubscription: NetworkStateSubscription {
    let watcher: NetlinkWatcher
    func cancel() { watcher.stop() }
    func requestCounters() { watcher.requestCounters() }
}
